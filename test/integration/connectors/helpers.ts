import { expect, inject } from "vitest";
import { ConnectorError, connectorEnvironment, type ConnectorEnvironment, type ConnectorErrorKind } from "../../../src/connectors";
import { SAMPLE_PASSWORD, SAMPLE_USER } from "../../global-setup/fixture-data.mjs";

export const servers = inject("connectorServers");

/** The environment as the Worker builds it from its vars; tests allow the loopback address explicitly. */
export function environment(vars: {
  allowedHosts?: string;
  connectMs?: number;
  operationMs?: number;
  maxResponseBytes?: number;
} = {}): ConnectorEnvironment {
  return connectorEnvironment({
    CONNECTOR_ALLOWED_HOSTS: vars.allowedHosts ?? "127.0.0.1",
    CONNECTOR_CONNECT_TIMEOUT_MS: String(vars.connectMs ?? 3000),
    CONNECTOR_OPERATION_TIMEOUT_MS: String(vars.operationMs ?? 5000),
    CONNECTOR_MAX_RESPONSE_BYTES: vars.maxResponseBytes === undefined ? undefined : String(vars.maxResponseBytes),
  });
}

/** Parameters of the sample database, as the superuser, without TLS (the test server has none). */
export function postgresParameters(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    host: servers.postgres.host,
    port: String(servers.postgres.port),
    database: servers.postgres.database,
    user: SAMPLE_USER,
    password: SAMPLE_PASSWORD,
    sslmode: "disable",
    ...overrides,
  };
}

/** Awaits a call that must fail with a ConnectorError of this kind; returns it. */
export async function expectConnectorError(call: Promise<unknown>, kind: ConnectorErrorKind): Promise<ConnectorError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  expect((error as ConnectorError).kind).toBe(kind);
  return error as ConnectorError;
}

/** Milliseconds an async call takes. */
export async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await call();
  return { result, ms: performance.now() - started };
}
