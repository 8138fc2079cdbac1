import type { ParameterProblem } from "../domain/connectors/parameters";

/**
 * Why a call to a data store failed. Each kind is something the caller can act on; none
 * is a bug of this service, so a route answers them with a 4xx (see suggestedHttpStatus).
 */
export type ConnectorErrorKind =
  /** A parameter is missing or malformed (details in `problems`). */
  | "INVALID_PARAMETERS"
  /** The host is outside the allowed hosts; no connection was attempted. */
  | "HOST_NOT_ALLOWED"
  /** Nothing answered: connection refused, unknown host, network unreachable. */
  | "UNREACHABLE"
  /** Connecting or answering took longer than the configured time-out. */
  | "TIMEOUT"
  /** The data store refused the credentials. */
  | "AUTH_FAILED"
  /** TLS was required but could not be set up (refused by the server, untrusted certificate). */
  | "TLS_FAILED"
  /** Logged in, but not allowed to read this. */
  | "PERMISSION_DENIED"
  /** The database, schema or table does not exist (or is not visible to this user). */
  | "NOT_FOUND"
  /** The answer is not what the connector understands (not JSON, not an array of records, ...). */
  | "INVALID_RESPONSE"
  /** The answer is larger than the configured cap. */
  | "RESPONSE_TOO_LARGE"
  /** The data store answered with an error of its own (HTTP 5xx, an SQL error, ...). */
  | "UPSTREAM_ERROR";

/**
 * A failure of a connector call, with a message fit for the API's user: it names what
 * went wrong and never contains a secret parameter's value.
 */
export class ConnectorError extends Error {
  override readonly name = "ConnectorError";

  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    /** For INVALID_PARAMETERS: one entry per offending parameter. */
    readonly problems: readonly ParameterProblem[] = [],
  ) {
    super(message);
  }
}

/** A suggestion for routes: the 4xx to answer each kind with. */
export const suggestedHttpStatus: Readonly<Record<ConnectorErrorKind, 400 | 403 | 404 | 422>> = {
  INVALID_PARAMETERS: 400,
  HOST_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  // The request was fine, the connection it names does not work: 422, never 401/5xx,
  // which clients would read as a problem with their own credentials or with this service.
  UNREACHABLE: 422,
  TIMEOUT: 422,
  AUTH_FAILED: 422,
  TLS_FAILED: 422,
  PERMISSION_DENIED: 422,
  INVALID_RESPONSE: 422,
  RESPONSE_TOO_LARGE: 422,
  UPSTREAM_ERROR: 422,
};

/** Throws INVALID_PARAMETERS listing every problem, if there is any. */
export function throwIfInvalid(problems: readonly ParameterProblem[]): void {
  if (problems.length === 0) return;
  throw new ConnectorError("INVALID_PARAMETERS", `Invalid parameters: ${problems.map((p) => p.message).join(" ")}`, problems);
}
