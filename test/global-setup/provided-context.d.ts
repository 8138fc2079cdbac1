// What the global setup (connector-servers.mjs) provides: `inject("connectorServers")`.
// Credentials are constants in fixture-data.mjs.
export interface ConnectorTestServers {
  /** The sample PostgreSQL server (see sample-postgres.mjs for its data). */
  postgres: { host: string; port: number; database: string };
  /** The same, also offering TLS with a self-signed certificate; null without openssl. */
  tlsPostgres: { host: string; port: number; database: string } | null;
  /** Base URL of the JSON fixture server (see fixture-servers.mjs for its paths). */
  jsonBaseUrl: string;
  /** A second instance of the same server: another origin, for cross-origin redirects. */
  otherJsonBaseUrl: string;
  /** Accepts TCP connections and never answers. */
  blackHolePort: number;
  /** Nothing listens there. */
  closedPort: number;
  /** The webhook receiver (webhook-receiver.mjs): POST /hooks/<name>, GET /received/<name>. */
  webhookReceiverUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    connectorServers: ConnectorTestServers;
  }
}
