/**
 * Turns what postgres.js and the socket layer throw into ConnectorErrors with messages a
 * person can act on. PostgreSQL's own messages are kept (they are precise and never hold
 * the password: "password authentication failed for user \"reader\""); every message is
 * still scrubbed of secret values by the caller.
 */
import { ConnectorError, type ConnectorErrorKind } from "../connector-error";
import { formatDuration } from "../deadline";

// SQLSTATE codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
const KIND_BY_SQLSTATE: Readonly<Record<string, ConnectorErrorKind>> = {
  "28000": "AUTH_FAILED", // invalid_authorization_specification (also "no pg_hba.conf entry")
  "28P01": "AUTH_FAILED", // invalid_password
  "3D000": "NOT_FOUND", // invalid_catalog_name: the database does not exist
  "3F000": "NOT_FOUND", // invalid_schema_name
  "42P01": "NOT_FOUND", // undefined_table
  "42501": "PERMISSION_DENIED", // insufficient_privilege
  "57014": "TIMEOUT", // query_canceled: the statement timeout fired
};

export function toConnectorError(error: unknown, where: string, operationMs: number): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const { code, message } = error instanceof Error ? (error as Error & { code?: unknown }) : { code: undefined, message: String(error) };

  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
    const kind = KIND_BY_SQLSTATE[code] ?? "UPSTREAM_ERROR";
    if (kind === "TIMEOUT") return new ConnectorError(kind, `${where} did not finish the query within ${formatDuration(operationMs)}.`);
    return new ConnectorError(kind, kind === "UPSTREAM_ERROR" ? `PostgreSQL error ${code}: ${message}` : capitalize(message));
  }
  switch (code) {
    case "CONNECT_TIMEOUT":
      return new ConnectorError("TIMEOUT", `${where} did not complete the login in time.`);
    case "CONNECTION_CLOSED":
    case "CONNECTION_ENDED":
    case "CONNECTION_DESTROYED":
    case "CONNECTION_LOST":
      return new ConnectorError("UNREACHABLE", `${where} closed the connection unexpectedly.`);
    case "SASL_SIGNATURE_MISMATCH":
      return new ConnectorError("AUTH_FAILED", `${where} could not prove that it knows the password (SCRAM signature mismatch).`);
    case "AUTH_TYPE_NOT_IMPLEMENTED":
      return new ConnectorError("AUTH_FAILED", `${where} asks for an authentication method this service does not support.`);
  }
  return new ConnectorError("UPSTREAM_ERROR", `Unexpected error from ${where}: ${message}`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
