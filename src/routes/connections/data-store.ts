import type { Context } from "hono";
import { connectorEnvironment, ConnectorError, createConnector, type Connector, type ConnectorErrorKind } from "../../connectors";
import { findConnectionWithType, type ConnectionWithType } from "../../db/connections";
import type { UserPrincipal } from "../../domain/principal";
import { ApiError, notFound, type ErrorCode } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import { assertTypeUsable, parameterProblems, storedValues, throwIfBlocking } from "./connections.model";
import { connectionSecrets } from "./secrets";

/**
 * Reaching the data store behind a stored connection of the caller's account: one D1 read (the
 * connection with its type), the same parameter checks as a write (rule 5 of the spec: problems,
 * WARNINGs dropped with suppressWarnings), then the connector. Its failures become documented 4xx.
 */
export async function openStoredConnection(c: Context<AppEnv>, connectionId: string, suppressWarnings = false): Promise<{ row: ConnectionWithType; connector: Connector }> {
  const db = c.get("db");
  // The routes admit users of an account only (accountMember or a privilege the supervisor lacks).
  const { accountId } = c.get("principal") as UserPrincipal;
  const row = await findConnectionWithType(db, accountId, connectionId);
  if (!row) throw notFound("Connection");
  assertTypeUsable(row.type, row.available);
  if (row.connection.disabled) throw new ApiError("CONNECTION_DISABLED", `The connection '${row.connection.name}' is disabled`);
  const values = await storedValues(row.connection, connectionSecrets(c.env));
  const environment = connectorEnvironment(c.env);
  const keys = row.connection.parameters.map((p) => p.key);
  throwIfBlocking(parameterProblems(row.type, values, environment, { prefix: "connection.", indexOf: (key) => indexOrUndefined(keys.indexOf(key)) }), suppressWarnings);
  return { row, connector: createConnector(row.type.connectorId, values, environment, { accountId, database: db }) };
}

const indexOrUndefined = (index: number) => (index < 0 ? undefined : index);

/** The errorCode of each connector failure; its status is the one connector-error.ts suggests (a test holds them equal). */
export const ERROR_CODE_OF_KIND: Readonly<Record<ConnectorErrorKind, ErrorCode>> = {
  INVALID_PARAMETERS: "VALIDATION_FAILED",
  HOST_NOT_ALLOWED: "HOST_NOT_ALLOWED",
  NOT_FOUND: "DATA_STORE_NOT_FOUND",
  UNREACHABLE: "DATA_STORE_UNREACHABLE",
  TIMEOUT: "DATA_STORE_TIMEOUT",
  AUTH_FAILED: "DATA_STORE_AUTH_FAILED",
  TLS_FAILED: "DATA_STORE_TLS_FAILED",
  PERMISSION_DENIED: "DATA_STORE_PERMISSION_DENIED",
  INVALID_RESPONSE: "DATA_STORE_INVALID_RESPONSE",
  RESPONSE_TOO_LARGE: "DATA_STORE_RESPONSE_TOO_LARGE",
  UPSTREAM_ERROR: "DATA_STORE_ERROR",
};

/** The errorCodes a route that asks a data store can answer. */
export const DATA_STORE_ERRORS = [...new Set(Object.values(ERROR_CODE_OF_KIND))].filter((code) => code !== "VALIDATION_FAILED");

/** Runs a connector call; its ConnectorError (whose message holds no secret) becomes the documented 4xx. */
export async function askStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    throw new ApiError(ERROR_CODE_OF_KIND[error.kind], error.message, {
      problems: error.problems.map((p) => ({ name: `connection.allParameters`, message: `${p.key}: ${p.message}`, level: "ERROR" as const })),
    });
  }
}
