// Vitest global setup of the integration project: starts, once per run, the real servers
// the connector tests talk to, and hands their addresses to the tests inside workerd with
// `provide` (read there with `inject("connectorServers")`; types in provided-context.d.ts).
// Everything stops, and PostgreSQL's temp data is deleted, when the run ends.
import { SAMPLE_PASSWORD } from "./fixture-data.mjs";
import { findFreePort, startBlackHoleServer, startJsonFixtureServer } from "./fixture-servers.mjs";
import { startSamplePostgres } from "./sample-postgres.mjs";

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const started = performance.now();
  const [postgres, tlsPostgres, jsonServer, otherJsonServer, blackHole, closedPort] = await Promise.all([
    findFreePort().then((port) => startSamplePostgres({ port, password: SAMPLE_PASSWORD })),
    // Needs the openssl command for its certificate; without it, the TLS tests are skipped.
    findFreePort()
      .then((port) => startSamplePostgres({ port, password: SAMPLE_PASSWORD, tls: true }))
      .catch((error) => {
        console.warn(`No TLS PostgreSQL for the connector tests (is openssl installed?): ${error?.message ?? error}`);
        return null;
      }),
    startJsonFixtureServer(),
    startJsonFixtureServer(),
    startBlackHoleServer(),
    findFreePort(),
  ]);
  if (process.env.CONNECTOR_SETUP_TIMING) {
    console.log(`connector test servers ready in ${Math.round(performance.now() - started)} ms`);
  }

  project.provide("connectorServers", {
    postgres: { host: postgres.host, port: postgres.port, database: postgres.database },
    tlsPostgres: tlsPostgres && { host: tlsPostgres.host, port: tlsPostgres.port, database: tlsPostgres.database },
    jsonBaseUrl: `http://127.0.0.1:${jsonServer.port}`,
    otherJsonBaseUrl: `http://127.0.0.1:${otherJsonServer.port}`,
    blackHolePort: blackHole.port,
    closedPort,
  });

  return async () => {
    await Promise.all([postgres.stop(), tlsPostgres?.stop(), jsonServer.close(), otherJsonServer.close(), blackHole.close()]);
  };
}
