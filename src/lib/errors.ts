import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { VENDOR_JSON } from "./media-types";
import type { AppEnv } from "./types";

/**
 * The one error module. Every 4xx/5xx the API answers is built here:
 *  - ErrorMessage for 400, 403, 404, 405, 406, 409, 412, 413, 415, 429, 500;
 *  - ServletErrorMessage for 401;
 *  - {error, error_description} under /api/trusted-access/, with the OAuth code of each errorCode (oauthErrorOf).
 * `code` is the general class of the status, `errorCode` the stable specific reason below.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, description: "One or more members of the request are invalid; `problems` names each." },
  MALFORMED_JSON: { status: 400, description: "The request body is not valid JSON." },
  INVALID_PAGE_TOKEN: { status: 400, description: "The pageToken was not issued by this service." },
  ID_MISMATCH: { status: 400, description: "The body names another object than the path." },
  PREVIEW_NOT_ENABLED: { status: 400, description: "A preview endpoint was called without `X-Enable-Preview: true`." },
  INVALID_BOOKMARK: { status: 400, description: "The X-D1-Bookmark header is not a bookmark this service answered." },
  INVALID_PASSPHRASE: { status: 400, description: "The X-Export-Passphrase header is shorter than 12 characters; or, on an account import, the bundle's sealed values do not open with it (or it is missing): `problems` names each." },
  UNAUTHENTICATED: { status: 401, description: "No valid credentials were sent." },
  FORBIDDEN: { status: 403, description: "The caller lacks the privilege or permission the operation needs." },
  PRIVILEGE_ESCALATION: { status: 403, description: "The caller tried to grant a privilege it does not hold." },
  ACCOUNT_FORBIDDEN: { status: 403, description: "The caller may not act on another account." },
  NOT_FOUND: { status: 404, description: "No such object in the caller's account." },
  ROUTE_NOT_FOUND: { status: 404, description: "No endpoint has this path." },
  METHOD_NOT_ALLOWED: { status: 405, description: "The endpoint does not take this method; `Allow` lists those it does." },
  NOT_ACCEPTABLE: { status: 406, description: "The Accept header excludes every JSON media type the service speaks." },
  DUPLICATED: { status: 409, description: "The name is already taken (400 on the custom-metric endpoints, as the spec fixes)." },
  QUOTA_EXCEEDED: { status: 409, description: "Creating the object would exceed the account's quota." },
  DEFAULT_ACCOUNT_PROTECTED: { status: 409, description: "The default account cannot be deleted or disabled." },
  BUILT_IN_GROUP: { status: 409, description: "The built-in groups cannot be deleted or renamed." },
  CANNOT_DELETE_SELF: { status: 409, description: "A user cannot delete itself." },
  ACCOUNT_USERS_INCOMPLETE: {
    status: 409,
    description: "The account's users were replaced by a list that leaves some out: a user leaves its account only by DELETE /api/users/{id}. `problems` names them.",
  },
  ADMINS_NOT_REPLACEABLE: {
    status: 409,
    description: "The administrators cannot be replaced as asked: the caller would leave itself out, or a user left out holds ROLE_ADMIN through another group. `problems` names them.",
  },
  IMPORT_CONFLICT: { status: 409, description: "The bundle cannot be imported as it is: `problems` names each object in CONFLICT and why, `plan` is the whole plan (as a dry run answers it)." },
  PRECONDITION_FAILED: { status: 412, description: "If-Match does not match the object's current ETag." },
  CONCURRENT_UPDATE: { status: 409, description: "A PATCH without If-Match found the object changed between its read and its write on every attempt, or a user or group the write names (as owner or grantee) was deleted meanwhile; send it again." },
  USER_OWNS_OBJECTS: { status: 409, description: "The user still owns sources or folders: delete it with `transferTo` naming the user who takes them over; `problems[0].dependencies` lists them." },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The request body is larger than the configured limit." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "The body is in none of the JSON media types the service speaks (application/vnd.service.v3+json, application/json, application/vnd.composer.v3+json, application/vnd.zoomdata+json; a PATCH body also application/merge-patch+json)." },
  TOO_MANY_LOGIN_ATTEMPTS: { status: 429, description: "Too many failed logins from this address (for this username, or across usernames); retry after `Retry-After` seconds." },
  INTERNAL_ERROR: { status: 500, description: "An unexpected error; quote the request id when reporting it." },
  TOO_MANY_PERIODS: { status: 400, description: "The calendar periods asked for are more than one answer may list (10,000); the message gives their count." },
  TOO_MANY_CALENDARS: { status: 409, description: "The account already has the most calendars it may have (1,000)." },
  DATASET_LIMIT: { status: 409, description: "The account already has the most JSON datasets it may have (MAX_DATASETS_PER_ACCOUNT, 100 by default)." },
  INVALID_TOKEN: { status: 401, description: "The bearer token is unknown, expired or revoked (challenge: `Bearer error=\"invalid_token\"`)." },
  INVALID_CLIENT: { status: 401, description: "Trusted-access client authentication failed: no or malformed Basic credentials, an unknown or deleted client, a wrong or expired secret." },
  INVALID_GRANT: { status: 400, description: "No token for this user: no such user (in the account named, or in the accounts the client serves), the username belongs to another account, or the user or its account kept changing while the token was issued (try again)." },
  UNAUTHORIZED_CLIENT: { status: 400, description: "The client is restricted to other accounts than the one named." },
  ACCESS_DENIED: { status: 403, description: "No token for the supervisor's name, nor for a user of a disabled account." },
  INVALID_CURSOR: { status: 400, description: "The cursor was not issued by this service for this listing (hand-made, altered, another folder's or caller's, expired)." },
  FOLDER_TOO_DEEP: { status: 400, description: "The folder (or the deepest folder of a moved subtree) would sit deeper than MAX_FOLDER_DEPTH (root = 0; 6 by default)." },
  FOLDER_CYCLE: { status: 400, description: "A folder cannot move into itself or below itself." },
  FOLDER_OTHER_PROJECT: { status: 400, description: "A folder cannot move to another project (another root's tree); a root cannot move at all." },
  FOLDER_NOT_EMPTY: { status: 409, description: "The folder still holds subfolders or items." },
  CONNECTION_TYPE_IN_USE: { status: 409, description: "Connections use the connection type; `problems` lists them." },
  CONNECTION_TYPE_DISABLED: { status: 409, description: "The connection type is disabled (the message is its disabledMessage) or no longer available to the account: it takes no new connections, changes or validations." },
  CONNECTION_IN_USE: { status: 409, description: "Sources or materialized views use the connection; `problems` lists them." },
  CONNECTION_DISABLED: { status: 409, description: "The connection is disabled: enable it to list, describe or preview its data." },
  CONNECTION_SECRETS_UNAVAILABLE: { status: 409, description: "Secret parameter values cannot be stored or read: CONNECTION_SECRETS_KEY is not set, or no longer holds the key a stored value was sealed with." },
  HOST_NOT_ALLOWED: { status: 403, description: "The data store's host is outside the hosts this service may reach (CONNECTOR_ALLOWED_HOSTS); nothing was contacted." },
  DATA_STORE_NOT_FOUND: { status: 404, description: "The data store has no such schema or table, or the connection's user may not see it." },
  DATA_STORE_UNREACHABLE: { status: 422, description: "The data store could not be reached (connection refused, unknown host, connection lost)." },
  DATA_STORE_TIMEOUT: { status: 422, description: "The data store did not connect or answer within the configured time-out." },
  DATA_STORE_AUTH_FAILED: { status: 422, description: "The data store refused the connection's credentials." },
  DATA_STORE_TLS_FAILED: { status: 422, description: "TLS was required but could not be set up with the data store (refused, or an untrusted certificate)." },
  DATA_STORE_PERMISSION_DENIED: { status: 422, description: "The connection's user may not read this in the data store." },
  DATA_STORE_INVALID_RESPONSE: { status: 422, description: "The data store answered with something the connector cannot read." },
  DATA_STORE_RESPONSE_TOO_LARGE: { status: 422, description: "The data store's answer is larger than CONNECTOR_MAX_RESPONSE_BYTES." },
  DATA_STORE_ERROR: { status: 422, description: "The data store answered with an error of its own; the message quotes it." },
  DELIVERY_NOT_FAILED: { status: 409, description: "Only a FAILED webhook delivery can be retried; this one is PENDING or DELIVERED." },
  ACCOUNT_MOVING: { status: 409, description: "The account is being moved to another database (POST /api/accounts/{id}/move): its data can be read but not changed until the move ends; retry shortly." },
  TOO_MANY_WEBHOOKS: { status: 409, description: "The account (or, for the supervisor, the installation outside any account) already has the most webhook subscriptions it may have (100)." },
  TOO_MANY_MATERIALIZED_VIEWS: { status: 409, description: "The account already has the most materialized views it may have (100)." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ALL_ERROR_CODES = Object.keys(ERROR_CODES) as ErrorCode[];

const STATUS_CLASS: Record<number, [code: string, reason: string]> = {
  400: ["BAD_REQUEST", "Bad Request"],
  401: ["UNAUTHORIZED", "Unauthorized"],
  403: ["FORBIDDEN", "Forbidden"],
  404: ["NOT_FOUND", "Not Found"],
  405: ["METHOD_NOT_ALLOWED", "Method Not Allowed"],
  406: ["NOT_ACCEPTABLE", "Not Acceptable"],
  409: ["CONFLICT", "Conflict"],
  412: ["PRECONDITION_FAILED", "Precondition Failed"],
  413: ["PAYLOAD_TOO_LARGE", "Payload Too Large"],
  415: ["UNSUPPORTED_MEDIA_TYPE", "Unsupported Media Type"],
  422: ["UNPROCESSABLE_ENTITY", "Unprocessable Content"],
  429: ["TOO_MANY_REQUESTS", "Too Many Requests"],
  500: ["INTERNAL_SERVER_ERROR", "Internal Server Error"],
};

export interface AccessibleObjectUsage {
  id: string;
  name: string;
  type: string;
  parent?: AccessibleObjectUsage;
}

export interface Problem {
  name: string;
  message: string;
  level: "ERROR" | "WARNING";
  dependencies?: Record<string, { hasOtherUsages: boolean; accessible: AccessibleObjectUsage[] }>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly errorCode: ErrorCode,
    message: string,
    options: { status?: number; problems?: Problem[]; headers?: Record<string, string>; plan?: unknown } = {},
  ) {
    super(message);
    this.status = options.status ?? ERROR_CODES[errorCode].status;
    this.problems = options.problems;
    this.plan = options.plan;
    this.headers = options.headers ?? {};
  }

  readonly problems: Problem[] | undefined;
  /** IMPORT_CONFLICT: the whole plan refused (docs/export-import.md). */
  readonly plan: unknown;
}

/** Shorthands for the errors handlers throw most. */
export const notFound = (what: string) => new ApiError("NOT_FOUND", `${what} not found`);
export const forbidden = (message = "You do not have the privilege this operation needs") => new ApiError("FORBIDDEN", message);
export const duplicated = (message: string, status: 400 | 409 = 409, name = "body.name") =>
  new ApiError("DUPLICATED", message, { status, problems: [{ name, message, level: "ERROR" }] });
export const invalid = (name: string, message: string) =>
  new ApiError("VALIDATION_FAILED", message, { problems: [{ name, message, level: "ERROR" }] });

const TARGET_PREFIX: Record<string, string> = { json: "body", query: "query", param: "path", header: "header" };

export const UNKNOWN_MEMBER_MESSAGE = "Unknown member: this operation does not take it (check its spelling)";

type Issue = ZodError["issues"][number];

/**
 * One Problem per invalid member, named by its path: `body.numberFormat.decimals`, `body.quotas[0].type`;
 * an unknown member is named itself (`body.privilegs`, `body.account.nmae`), each one a Problem.
 */
export function problemsFromZod(error: ZodError, target: string): Problem[] {
  return problemsOfIssues(error.issues, TARGET_PREFIX[target] ?? target);
}

function problemsOfIssues(issues: readonly Issue[], prefix: string): Problem[] {
  return issues.flatMap((issue) => {
    let name = prefix;
    for (const segment of issue.path) name += typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`;
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ name: `${name}.${key}`, message: UNKNOWN_MEMBER_MESSAGE, level: "ERROR" as const }));
    // A union none of whose shapes fit: when one shape fits but for unknown members, name them.
    if (issue.code === "invalid_union") {
      const onlyUnknown = issue.errors.find((branch) => branch.length > 0 && branch.every((i) => i.code === "unrecognized_keys"));
      if (onlyUnknown) return problemsOfIssues(onlyUnknown, name);
    }
    return [{ name, message: issue.message, level: "ERROR" as const }];
  });
}

export function validationError(error: ZodError, target: string): ApiError {
  const problems = problemsFromZod(error, target);
  const summary = problems.length === 1 ? `${problems[0]!.name}: ${problems[0]!.message}` : `${problems.length} invalid members`;
  return new ApiError("VALIDATION_FAILED", `Invalid request: ${summary}`, { problems });
}

const TRUSTED_ACCESS_PREFIX = "/api/trusted-access/";

/** Every answer under /api/trusted-access/ (after the context path) is an OAuth error body. */
export function isTrustedAccessPath(path: string, contextPath = ""): boolean {
  const local = contextPath && path.startsWith(contextPath) ? path.slice(contextPath.length) : path;
  return local.startsWith(TRUSTED_ACCESS_PREFIX);
}

/** The `error` values of the trusted-access error bodies (RFC 6749 section 5.2, RFC 6750 section 3.1). */
export const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "invalid_token",
  "access_denied",
  "temporarily_unavailable",
  "server_error",
] as const;
export type OAuthError = (typeof OAUTH_ERRORS)[number];

/** The errorCodes whose OAuth code is not the one of their status (below). */
const OAUTH_ERROR_OF_CODE: Partial<Record<ErrorCode, OAuthError>> = {
  INVALID_TOKEN: "invalid_token",
  INVALID_GRANT: "invalid_grant",
  UNAUTHORIZED_CLIENT: "unauthorized_client",
};

/** By status: 401 is a failed authentication (Basic here), 403 a refusal; any other 4xx, a request to fix. */
const OAUTH_ERROR_OF_STATUS: Record<number, OAuthError> = {
  401: "invalid_client",
  403: "access_denied",
  429: "temporarily_unavailable",
  500: "server_error",
};

/** The one mapping of errorCodes to OAuth error codes, used for the bodies and for the OpenAPI document. */
export function oauthErrorOf(code: ErrorCode, status: number = ERROR_CODES[code].status): OAuthError {
  return OAUTH_ERROR_OF_CODE[code] ?? OAUTH_ERROR_OF_STATUS[status] ?? (status >= 500 ? "server_error" : "invalid_request");
}

/** An OAuth body has no `problems`: its description names the invalid members (the first ten) the message does not already name. */
function oauthDescription(error: ApiError): string {
  const unnamed = (error.problems ?? []).filter((p) => !error.message.includes(p.name)).slice(0, 10);
  return unnamed.length ? `${error.message} (${unnamed.map((p) => `${p.name}: ${p.message}`).join("; ")})` : error.message;
}

/** Builds the response of an error in the body the spec names for its status and endpoint. */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  const path = new URL(c.req.url).pathname;
  // The type negotiated for the request (src/middleware/media-type); outside /api, the service's own.
  const headers: Record<string, string> = { ...error.headers, "Content-Type": c.get("mediaType") ?? VENDOR_JSON };
  let body: unknown;
  if (isTrustedAccessPath(path, c.get("config")?.contextPath)) {
    body = { error: oauthErrorOf(error.errorCode, error.status), error_description: oauthDescription(error) };
  } else if (error.status === 401) {
    body = {
      timestamp: new Date().toISOString(),
      status: 401,
      error: "Unauthorized",
      message: error.message,
      path,
    };
  } else {
    const [code, reason] = STATUS_CLASS[error.status] ?? ["ERROR", "Error"];
    body = {
      error: reason,
      message: error.message,
      path,
      status: String(error.status),
      code,
      errorCode: error.errorCode,
      timestamp: new Date().toISOString(),
      requestId: c.get("requestId"),
      problems: error.problems ?? [],
      ...(error.plan !== undefined && { plan: error.plan }),
    };
  }
  return c.json(body, error.status as 400, headers);
}

/** The app's onError: known errors keep their status, anything else is a logged 500 without internals. */
export function handleError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) return errorResponse(c, err);
  // An ApiError raised under a database call (the bearer check riding on it) reaches here as the cause of Drizzle's error.
  const underlying = apiErrorCause(err);
  if (underlying) return errorResponse(c, underlying);
  if (err instanceof HTTPException) return errorResponse(c, fromHttpException(err));
  // The triggers of migration 0010: a write naming, as owner or grantee, a user deleted since it was checked.
  if (raisedBy(err, USER_MISSING)) return errorResponse(c, new ApiError("CONCURRENT_UPDATE", "A user this write names was deleted meanwhile"));
  // Migration 0016's: a grant naming a group deleted since it was checked.
  if (raisedBy(err, GROUP_MISSING)) return errorResponse(c, new ApiError("CONCURRENT_UPDATE", "A group this write names was deleted meanwhile"));
  // A well-formed bookmark D1 refuses (say, one of another database) is the sender's mistake, not ours.
  if (c.req.header("X-D1-Bookmark")?.trim() && /bookmark/i.test(collectMessages(err))) return errorResponse(c, invalidBookmark());
  log(c, "error", "unhandled error", { errorName: err?.name, errorMessage: String(err?.message ?? err).slice(0, 500) });
  return errorResponse(
    c,
    new ApiError("INTERNAL_ERROR", `Internal error; quote request id ${c.get("requestId")} when reporting it`),
  );
}

/** 400 for an X-D1-Bookmark that is not one of this database's bookmarks (src/middleware/database). */
export function invalidBookmark(): ApiError {
  return new ApiError("INVALID_BOOKMARK", "Malformed X-D1-Bookmark header: send back a bookmark exactly as a response's X-D1-Bookmark gave it");
}

/** Hono's own exceptions: malformed JSON from the validator, 415 from the media-type gate, 413 from bodyLimit. */
function fromHttpException(err: HTTPException): ApiError {
  switch (err.status) {
    case 400:
      return new ApiError("MALFORMED_JSON", "Malformed JSON in request body", {
        problems: [{ name: "body", message: "Malformed JSON in request body", level: "ERROR" }],
      });
    case 413:
      return new ApiError("PAYLOAD_TOO_LARGE", "Request body is too large");
    case 415:
      return new ApiError("UNSUPPORTED_MEDIA_TYPE", "Unsupported media type");
    default:
      return new ApiError(err.status >= 500 ? "INTERNAL_ERROR" : "VALIDATION_FAILED", err.message || "Request failed", {
        status: err.status,
      });
  }
}

/** A bearer token may be named in a revocation's path: log lines show `{token}` instead (a token_id, a UUID, stays). */
export function loggablePath(path: string): string {
  return path.replace(/(\/api\/trusted-access\/tokens\/)([^/]+)/, (whole, prefix: string, named: string) =>
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(named) ? whole : `${prefix}{token}`,
  );
}

/** Structured JSON log line carrying the request id. Never pass secrets in `fields`. */
export function log(c: Context<AppEnv>, level: "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}) {
  const line = JSON.stringify({
    level,
    message,
    requestId: c.get("requestId"),
    method: c.req.method,
    path: loggablePath(new URL(c.req.url).pathname),
    ...fields,
  });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** True for a D1/SQLite constraint failure of the given kind (UNIQUE, CHECK, FOREIGN KEY), and of the named constraint if given. */
export function isConstraintError(err: unknown, kind: "UNIQUE" | "CHECK" | "FOREIGN KEY" | "PRIMARY KEY" | "NOT NULL", name?: string): boolean {
  const text = collectMessages(err);
  return text.includes(`${kind} constraint failed`) && (name === undefined || text.includes(name));
}

/** The reason the database triggers give when a row would name a user that does not exist in its account. */
export const USER_MISSING = "owner_user_missing";

/** The reason the database triggers give when a grant would name a group that does not exist in its account. */
export const GROUP_MISSING = "grantee_group_missing";

/** True for a write refused by a trigger's RAISE(ABORT, reason). */
export function raisedBy(err: unknown, reason: string): boolean {
  return collectMessages(err).includes(reason);
}

function apiErrorCause(err: unknown): ApiError | undefined {
  for (let e = (err as { cause?: unknown })?.cause, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ApiError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function collectMessages(err: unknown): string {
  let text = "";
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    text += ` ${(e as { message?: string }).message ?? ""}`;
    e = (e as { cause?: unknown }).cause;
  }
  return text;
}
