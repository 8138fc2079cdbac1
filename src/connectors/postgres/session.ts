/**
 * One short PostgreSQL session per connector call: connect, run the work in a read-only
 * transaction with a statement timeout, and always close, whatever happens.
 */
import postgres from "postgres";
import type { ConnectorEnvironment } from "../connector";
import { ConnectorError } from "../connector-error";
import { formatDuration, withDeadline } from "../deadline";
import { toConnectorError } from "./errors";
import { describeTarget, type PostgresTarget } from "./parameters";
import { openPostgresSocket, type PostgresJsSocket } from "./socket";

type RawTextTypes = { rawText: postgres.PostgresType<string> };
export type Sql = postgres.Sql<{ rawText: string }>;

export interface Session {
  sql: Sql;
  /** True when the connection to the server uses TLS (not known through Hyperdrive: false). */
  encrypted: boolean;
}

// Dates, times and bytea are kept as PostgreSQL prints them, not parsed into JS objects.
const RAW_TEXT_TYPES = [1082 /* date */, 1083 /* time */, 1114 /* timestamp */, 1184 /* timestamptz */, 1266 /* timetz */, 17 /* bytea */];

// Extra time the client waits past the server's statement timeout before giving up itself,
// for a server (or network) that does not answer at all.
const CLIENT_GRACE_MS = 1_000;

/**
 * Runs `work` in a fresh session. Timeouts: connecting (TCP, TLS, login) must finish in
 * timeouts.connectMs; each statement is cancelled by the server after operationMs, and the
 * client stops waiting for the whole work after operationMs + 1 s. Throws ConnectorError.
 */
export async function withPostgresSession<T>(
  target: PostgresTarget,
  environment: ConnectorEnvironment,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const { connectMs, operationMs } = environment.timeouts;
  const where = describeTarget(target);
  const abort = new AbortController();
  let socket: PostgresJsSocket | undefined;

  // `socket` is a postgres.js option its type declarations leave out.
  const options: postgres.Options<RawTextTypes> & { socket: () => Promise<PostgresJsSocket> } = {
    ...credentials(target),
    // The socket option does the dialling (see socket.ts); postgres.js's own TLS stays off.
    socket: async () => (socket = await openPostgresSocket(await socketRequest(target, where, abort.signal))),
    ssl: false,
    max: 1,
    prepare: false, // no named statements: one short session, and safe behind poolers such as Hyperdrive
    fetch_types: false, // saves a round trip; arrays of custom types come back as text
    connect_timeout: connectMs / 1000,
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
    types: { rawText: { to: 25, from: RAW_TEXT_TYPES, serialize: (x: string) => x, parse: (x: string) => x } },
    connection: { application_name: "analytics-metadata-api" },
  };
  const sql: Sql = postgres(options);

  try {
    // The first statement opens the connection. SET LOCAL lasts for this transaction only,
    // which also keeps it from leaking into a pooled server connection (Hyperdrive).
    await withDeadline(
      sql.unsafe(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(operationMs)}`),
      connectMs,
      () => new ConnectorError("TIMEOUT", `Could not connect to ${where} within ${formatDuration(connectMs)}.`),
    );
    return await withDeadline(
      work({ sql, encrypted: socket?.encrypted ?? false }),
      operationMs + CLIENT_GRACE_MS,
      () => new ConnectorError("TIMEOUT", `${where} did not answer within ${formatDuration(operationMs)}.`),
    );
  } catch (error) {
    throw toConnectorError(error, where, operationMs);
  } finally {
    abort.abort();
    // timeout 0: do not wait for queries still running; the transaction is rolled back.
    await sql.end({ timeout: 0 }).catch(() => {});
  }
}

function credentials(target: PostgresTarget) {
  const source = target.kind === "direct" ? target : target.binding;
  return { database: source.database, user: source.user, password: source.password };
}

async function socketRequest(target: PostgresTarget, where: string, signal: AbortSignal) {
  if (target.kind === "hyperdrive") {
    // Hyperdrive's endpoint is local to the Worker; Hyperdrive itself speaks TLS to the origin.
    return { open: () => target.binding.connect(), sslmode: "disable" as const, where, signal };
  }
  // Loaded when a host is dialled, not with the module: the app's modules then also load outside
  // workerd (the unit tests build the OpenAPI document in Node).
  const { connect } = await import("cloudflare:sockets");
  const address = { hostname: target.host, port: target.port };
  return {
    open: (secureTransport: "off" | "starttls") => connect(address, { secureTransport, allowHalfOpen: false }),
    sslmode: target.sslmode,
    where,
    signal,
  };
}
