import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, inject } from "vitest";
import { createApp } from "../../src/app";
import { READER_PASSWORD, READER_USER, SAMPLE_PASSWORD, SAMPLE_USER } from "../global-setup/fixture-data.mjs";
import { as, buildRequest, call, createAccount, createUser, unique, type CallOptions, type CallResult, type TestUser } from "./helpers";
import { assertConformant } from "./harness/response-validation";

/** The real servers of the global setup (test/global-setup/): PostgreSQL, HTTP, a black hole, a closed port. */
export const servers = inject("connectorServers");

export type Parameter = { key: string; value?: string; systemAccess?: boolean; isSystemAccess?: boolean };

/** The sample PostgreSQL as a connection's parameters: the reader role (it reads sales and hr), no TLS (the server has none). */
export function postgresParameters(overrides: Record<string, string | undefined> = {}): Parameter[] {
  const values: Record<string, string | undefined> = {
    host: servers.postgres.host,
    port: String(servers.postgres.port),
    database: servers.postgres.database,
    user: READER_USER,
    password: READER_PASSWORD,
    sslmode: "disable",
    ...overrides,
  };
  return Object.entries(values).map(([key, value]) => (value === undefined ? { key } : { key, value }));
}

/** The superuser of the sample server, for tests that need a second set of credentials. */
export const superuserParameters = () => postgresParameters({ user: SAMPLE_USER, password: SAMPLE_PASSWORD });

export const connectionBody = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  connectionTypeId: "postgresql",
  allParameters: postgresParameters(),
  ...overrides,
});

/** Creates a connection through the API and answers it (the test fails otherwise). */
export async function createConnection(user: TestUser, body: Record<string, unknown>, query = ""): Promise<any> {
  const res = await call("POST", `/api/connections${query}`, { as: as(user), body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/**
 * An account with a connection manager, a plain member, a source creator and one PostgreSQL
 * connection ("Warehouse…", made by the manager): what the data-store tests share.
 */
export async function connectionWorld() {
  const account = await createAccount();
  const manager = await createUser(account.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
  const member = await createUser(account.id);
  const creator = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
  const warehouse: { id: string; name: string } = await createConnection(manager, connectionBody(unique("Warehouse")));
  return { account, manager, member, creator, warehouse };
}

export const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));

/** Every value of a connection's parameters as answered, by key (secrets have none). */
export const answeredValues = (connection: { allParameters: { key: string; value?: string }[] }) =>
  Object.fromEntries(connection.allParameters.map((p) => [p.key, p.value]));

const app = await createApp();

/**
 * A request through the real app with some vars changed (CONNECTION_SECRETS_KEY, the allowed hosts,
 * the time-outs), its answer checked against the document like call()'s.
 */
export async function callWithVars(vars: Record<string, string | undefined>, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  // Defined, not assigned: assigning would run the env's own setters and change it for every later test.
  const bindings = Object.create(env, Object.fromEntries(Object.entries(vars).map(([key, value]) => [key, { value, enumerable: true }]))) as typeof env;
  const ctx = createExecutionContext();
  const request = buildRequest(method, path, options);
  const response = await app.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  await assertConformant({ method, url: request.url, status: response.status, headers: response.headers, text });
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

/**
 * The database holding an account's rows: the one its directory entry names (DB, the directory, when
 * it names none: always, on one database; docs/sharding.md).
 */
export async function accountDatabase(accountId: string): Promise<D1Database> {
  const shard = await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(accountId).first<string | null>("shard");
  return shard ? (env[shard as "SHARD_2"] as D1Database) : env.DB;
}

/** The raw row of a connection in D1, as stored (on its account's shard). */
export async function storedConnectionRow(accountId: string, id: string): Promise<Record<string, unknown> | null> {
  return (await accountDatabase(accountId)).prepare("SELECT * FROM connections WHERE account_id = ? AND id = ?").bind(accountId, id).first();
}
