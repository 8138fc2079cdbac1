import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Access } from "../domain/principal";
import { authenticateClient } from "../middleware/authenticate/client";
import { authorize } from "../middleware/authorize";
import { defaultBodyCap, readJsonBody, type BodyCap } from "../middleware/request-body";
import { stability, SUNSET, type Stability } from "../middleware/stability";
import { openObjectsOf } from "./closed-bodies";
import { ERROR_CODES, OAUTH_ERRORS, oauthErrorOf, type ErrorCode } from "./errors";
import { JSON_MEDIA_TYPES, MERGE_PATCH_JSON, VENDOR_JSON, type JsonMediaType } from "./media-types";

/**
 * Route declarations. `defineRoute` is the only way routes are made: it attaches the route's
 * access rule and stability marks as middleware (checked before validation and the handler)
 * and generates every error response the route can answer, with its errorCodes, so that the
 * OpenAPI document lists them. The access rule and marks are also written into the document
 * as `x-access` / `x-stability`: the document is the route table the tests iterate over.
 */
export { VENDOR_JSON };

export const ProblemSchema = z
  .object({
    name: z.string().openapi({ example: "body.numberFormat.decimals" }),
    message: z.string(),
    level: z.enum(["ERROR", "WARNING"]),
    dependencies: z
      .record(
        z.string(),
        z.object({
          hasOtherUsages: z.boolean(),
          accessible: z.array(
            z.object({ id: z.string(), name: z.string(), type: z.string(), parent: z.unknown().optional() }),
          ),
        }),
      )
      .optional()
      .openapi({ description: "Objects that use the named object (ObjectUsage by name)." }),
  })
  .openapi("Problem");

export const ErrorMessageSchema = z
  .object({
    error: z.string().openapi({ description: "Reason phrase of the status.", example: "Bad Request" }),
    details: z.string().optional(),
    message: z.string(),
    path: z.string(),
    status: z.string().openapi({ description: "HTTP status as a string.", example: "400" }),
    code: z.string().openapi({ description: "General class of the error.", example: "BAD_REQUEST" }),
    errorCode: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).openapi({
      description: Object.entries(ERROR_CODES)
        .map(([code, { status, description }]) => `\`${code}\` (${status}): ${description}`)
        .join("\n\n"),
    }),
    timestamp: z.string(),
    requestId: z.string().openapi({ description: "Id of the request (also in X-Request-Id); quote it when reporting a 500." }),
    problems: z.array(ProblemSchema),
    plan: z.unknown().optional().openapi({ description: "IMPORT_CONFLICT only: the whole import plan refused (an ImportPlan), every entry and not only those in CONFLICT." }),
  })
  .openapi("ErrorMessage");

export const ServletErrorMessageSchema = z
  .object({
    timestamp: z.string(),
    status: z.number().int(),
    error: z.string(),
    message: z.string(),
    path: z.string(),
  })
  .openapi("ServletErrorMessage");

export const TrustedAccessErrorSchema = z
  .object({
    error: z.enum(OAUTH_ERRORS).openapi({
      description: "OAuth error code (RFC 6749 section 5.2, RFC 6750 section 3.1). Each response lists the errorCodes it stands for in `x-oauth-errors`.",
      example: "invalid_client",
    }),
    error_description: z.string().openapi({ description: "What went wrong, for people; never a secret." }),
  })
  .openapi("TrustedAccessError");

/**
 * A named (component) schema or null. `.nullable()` on a component renders as `allOf: [$ref, {type: null}]`
 * in the document, which no value can satisfy; a union renders as `anyOf`, which says what is meant.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

/**
 * The same schema under every JSON media type the service speaks (src/lib/media-types.ts): a body
 * is read in any of them, and an answer is written in the one negotiated from Accept.
 */
export function jsonMediaTypes<T>(schema: T, example?: unknown) {
  return Object.fromEntries(JSON_MEDIA_TYPES.map((type) => [type, example === undefined ? { schema } : { schema, example }])) as {
    [K in JsonMediaType]: { schema: T; example?: unknown };
  };
}

/** A JSON response body, in the media type negotiated for the request. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: jsonMediaTypes(schema) };
}

/**
 * A required JSON request body, in any JSON media type the service speaks. `example`: this
 * operation's own, where the schema's (shared with other operations) would not fit it.
 */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string, example?: unknown) {
  return { required: true, description, content: jsonMediaTypes(schema, example) };
}

export const noContent = { description: "Done; no body." };

export interface RouteExtras {
  access: Access;
  /** Served outside /api (the reference page, the root's redirect): no JSON media type is negotiated. */
  outsideApi?: boolean;
  /**
   * The permission the handler checks on the object the path names, after the route's access rule
   * (e.g. "source:READ"). Written into the document as `x-object-permission`; the generated
   * privilege matrix reads it.
   */
  objectPermission?: ObjectPermission;
  stability?: Stability;
  /** The specific errorCodes this route can answer besides the ones every route of its kind can. */
  errors?: ErrorCode[];
  /** Status to answer DUPLICATED with, where the spec fixes it (E1: 400). */
  duplicatedStatus?: 400 | 409;
  /**
   * Trusted-access endpoints answer errors as {error, error_description}: each error response is
   * documented with TrustedAccessError and `x-oauth-errors`, the OAuth code of each errorCode.
   */
  errorBody?: "oauth";
  /** Largest body the route reads (413 above it); MAX_BODY_BYTES unless the route needs more. */
  bodyCap?: BodyCap;
  /**
   * The levels the Problems of the route's 400 can carry (ERROR only unless said), written on that
   * response as `x-problem-levels` and in its description. WARNING: blocks unless `suppressWarnings=true`.
   */
  problemLevels?: readonly ("ERROR" | "WARNING")[];
}

/** Object-level permissions a handler checks, as `<object>:<permission>`. */
export type ObjectPermission =
  | "source:READ"
  | "source:WRITE"
  | "source:EDIT_METRICS"
  /** Folder permissions (src/domain/folders): READ on the folder (else 404), then the one named. */
  | "folder:READ"
  | "folder:WRITE"
  | "folder:DELETE"
  /** CREATE on the body's parent_id; for a new root, ROLE_CREATE_FOLDERS instead. */
  | "folder:CREATE"
  /** ADMINISTER on the folder, or ROLE_PERMISSION_FOLDERS. */
  | "folder:ADMINISTER";

interface HeaderDoc {
  description: string;
  required?: boolean;
  schema: { type: "string" };
}
const headerDoc = (description: string, required = true): HeaderDoc => ({ description, required, schema: { type: "string" } });

/** The request header every preview operation requires (src/middleware/stability checks it: 400 PREVIEW_NOT_ENABLED). */
const PREVIEW_HEADER_PARAMETER = {
  name: "X-Enable-Preview",
  in: "header",
  required: true,
  description: "`true` (any letter case): this preview operation is enabled for the request. Without it: 400 PREVIEW_NOT_ENABLED.",
  schema: { type: "string", example: "true" },
} as const;

/**
 * The passphrase of an export bundle's secrets (src/domain/transfer/passphrase-sealing.ts): given on
 * export, secret connection parameters travel sealed under it; given on import, they are opened
 * with it and sealed again with this deployment's key. docs/export-import.md.
 */
export const EXPORT_PASSPHRASE_PARAMETER = {
  name: "X-Export-Passphrase",
  in: "header",
  required: false,
  description:
    "At least 12 characters (400 INVALID_PASSPHRASE). On export: secret parameter values are included, sealed under it (AES-256-GCM, key by PBKDF2-SHA-256, " +
    "100,000 iterations); without it they are left out. On import: opens the bundle's sealed values; a value it does not open is a problem of its parameter.",
  schema: { type: "string", minLength: 12 },
} as const;

/**
 * The request header every operation takes (src/middleware/database): a read at least as fresh as the
 * write that answered it, in any region. docs/replication.md.
 */
const BOOKMARK_HEADER_PARAMETER = {
  name: "X-D1-Bookmark",
  in: "header",
  required: false,
  description:
    "A bookmark an earlier response answered in X-D1-Bookmark: this request reads a database state at least that fresh (send the last one received, to read your own writes). Malformed: 400 INVALID_BOOKMARK.",
  schema: { type: "string", pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{32}$" },
} as const;

/** Headers every response carries, plus those of a stability mark. */
function commonHeaders(mark: Stability | undefined): Record<string, HeaderDoc> {
  return {
    "X-Request-Id": headerDoc("Id of the request: the caller's sane X-Request-Id, or one made by the service."),
    "X-D1-Bookmark": headerDoc(
      "The database's position after this request (or the X-D1-Bookmark it was sent, when it ran no statement): send it back in the next request's X-D1-Bookmark to read at least this fresh.",
      false,
    ),
    ...(mark === "experimental" || mark === "preview" ? { "X-API-Stability": headerDoc("`experimental`: this operation may change.") } : {}),
    ...(mark === "deprecated"
      ? { Deprecation: headerDoc("`true`: this operation is deprecated."), Sunset: headerDoc(`When this operation stops working (RFC 8594): \`${SUNSET}\`.`) }
      : {}),
  };
}

/** Headers of particular error statuses. */
const ERROR_HEADERS: Record<number, Record<string, HeaderDoc>> = {
  401: { "WWW-Authenticate": headerDoc("The authentication challenge (Basic, or Bearer for bearer requests).") },
  429: { "Retry-After": headerDoc("Seconds to wait before signing in again.") },
};

/** What the description of a 400 says about the levels of its Problems. */
function problemLevelsNote(levels: readonly ("ERROR" | "WARNING")[]): string {
  const warnings = levels.includes("WARNING") ? " WARNINGs block the request too, unless it says `suppressWarnings=true`: then only ERRORs do." : "";
  return ` Its problems carry the level${levels.length > 1 ? "s" : ""} ${levels.join(" or ")}.${warnings}`;
}

/** A route's declaration kept as written, for declarations made from it (the PATCH beside a PUT: src/lib/merge-patch-route.ts). */
export function routeDeclaration<const R extends RouteConfig>(config: R & RouteExtras): R & RouteExtras {
  return config;
}

export function defineRoute<const R extends RouteConfig>(config: R & RouteExtras): R {
  const { access, outsideApi = false, stability: mark, errors = [], duplicatedStatus, errorBody, objectPermission, bodyCap = defaultBodyCap, problemLevels, ...route } = config;
  const codes = new Set<ErrorCode>(["INTERNAL_ERROR", "INVALID_BOOKMARK", ...errors]);
  const request = route.request;
  for (const [type, { schema }] of Object.entries((request?.body?.content ?? {}) as Record<string, { schema: z.ZodType }>)) {
    const open = openObjectsOf(schema);
    if (open.length) throw new Error(`${route.method.toUpperCase()} ${route.path} (${type}): body objects must be z.strictObject (src/lib/closed-bodies.ts): ${open.join(", ")}`);
  }
  // Accept is negotiated under /api only: the HTML reference page and the root's redirect answer any Accept.
  if (!outsideApi) codes.add("NOT_ACCEPTABLE");
  if (request?.params || request?.query) codes.add("VALIDATION_FAILED");
  if (request?.body) ["VALIDATION_FAILED", "MALFORMED_JSON", "PAYLOAD_TOO_LARGE"].forEach((c) => codes.add(c as ErrorCode));
  // The pipeline checks the media type of any body before routing, whether or not the route takes one.
  if (request?.body || route.method !== "get") codes.add("UNSUPPORTED_MEDIA_TYPE");
  // A trusted client is authenticated by its own credentials, and is then allowed (no 403 from the rule).
  if (access.kind === "trustedClient") ["INVALID_CLIENT", "TOO_MANY_LOGIN_ATTEMPTS"].forEach((c) => codes.add(c as ErrorCode));
  else if (access.kind !== "public") ["UNAUTHENTICATED", "INVALID_TOKEN", "TOO_MANY_LOGIN_ATTEMPTS"].forEach((c) => codes.add(c as ErrorCode));
  if (access.kind !== "public" && access.kind !== "authenticated" && access.kind !== "trustedClient") codes.add("FORBIDDEN");
  if (mark === "preview") codes.add("PREVIEW_NOT_ENABLED");
  // A write of an account being moved to another database is refused until the move ends (docs/sharding.md).
  if (route.method !== "get" && access.kind !== "public") codes.add("ACCOUNT_MOVING");

  const common = commonHeaders(mark);
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses as Record<string, { headers?: object }>)) {
    const own: Record<string, HeaderDoc> =
      status === "201" ? { Location: headerDoc("URL of the created object."), ETag: headerDoc("Current entity tag of the object.", false) } : {};
    if (route.method === "get" && status === "200") own.ETag = headerDoc("Entity tag of this representation: send it back in If-None-Match.", false);
    responses[status] = { ...response, headers: { ...common, ...own, ...(response.headers ?? {}) } };
  }
  // Every GET answers If-None-Match with the current ETag by 304 and no body.
  if (route.method === "get") {
    responses["304"] = {
      description: "Not modified: If-None-Match named the current ETag.",
      headers: { ...common, ETag: headerDoc("The current entity tag.") },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = code === "DUPLICATED" && duplicatedStatus ? duplicatedStatus : ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = errorBody === "oauth" ? TrustedAccessErrorSchema : status === 401 ? ServletErrorMessageSchema : ErrorMessageSchema;
    const oauth = errorBody === "oauth" ? Object.fromEntries(list.map((code) => [code, oauthErrorOf(code, status)])) : undefined;
    responses[String(status)] = {
      description:
        list.map((code) => `\`${code}\`${oauth ? ` (\`${oauth[code]}\`)` : ""}: ${ERROR_CODES[code].description}`).join(" ") +
        (status === 400 && problemLevels ? problemLevelsNote(problemLevels) : ""),
      headers: { ...common, ...(ERROR_HEADERS[status] ?? {}) },
      content: jsonMediaTypes(schema),
      "x-error-codes": list,
      ...(oauth ? { "x-oauth-errors": oauth } : {}),
      ...(status === 400 && problemLevels ? { "x-problem-levels": problemLevels } : {}),
    };
  }

  // Every PATCH body may also come as a JSON Merge Patch (src/middleware/media-type).
  const body = request?.body as { content: Record<string, { schema: unknown }> } | undefined;
  const patchRequest =
    route.method === "patch" && body ? { ...request, body: { ...body, content: { ...body.content, [MERGE_PATCH_JSON]: body.content[VENDOR_JSON] } } } : request;

  return createRoute({
    ...route,
    request: patchRequest,
    responses,
    security: access.kind === "public" ? [] : access.kind === "trustedClient" ? [{ trustedAccessAuth: [] }] : undefined,
    deprecated: mark === "deprecated" ? true : route.deprecated,
    "x-access": access.kind === "privilege" ? access.privilege : access.kind,
    ...(objectPermission ? { "x-object-permission": objectPermission } : {}),
    ...(mark ? { "x-stability": mark } : {}),
    parameters: [...(route.parameters ?? []), BOOKMARK_HEADER_PARAMETER, ...(mark === "preview" ? [PREVIEW_HEADER_PARAMETER] : [])],
    // Access is checked before the body is even read: a stranger's 5 MB upload costs no parsing.
    middleware: [stability(mark), access.kind === "trustedClient" ? authenticateClient : authorize(access), ...(request?.body ? [readJsonBody(bodyCap)] : [])],
  } as unknown as R) as R;
}

/** Query members of every paged list. */
export const PageQuerySchema = z.object({
  maxResults: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .openapi({ description: "Page size, 1 to 1000 (default 100)." }),
  pageToken: z.string().max(2048).optional().openapi({ description: "Opaque token from a previous page's pageInfo." }),
});

export const PageInfoSchema = z
  .object({
    nextPageToken: z.string().nullable(),
    previousPageToken: z.string().nullable(),
  })
  .openapi("PageInfo");

export function pagedList<T extends z.ZodType>(item: T, name: string) {
  return z.object({ content: z.array(item), pageInfo: PageInfoSchema }).openapi(name);
}

export const IdParamSchema = z.object({
  id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" }, example: "7b0c5b1e-0d1a-4e8e-9f55-3f4c5d6e7f80" }),
});

/** The four audit members, filled by the server on every write and ignored when sent. */
export const auditMembers = {
  createdByUserID: z.string().openapi({ readOnly: true }),
  createdDate: z.string().openapi({ readOnly: true, format: "date-time" }),
  lastModifiedByUserID: z.string().openapi({ readOnly: true }),
  lastModifiedDate: z.string().openapi({ readOnly: true, format: "date-time" }),
};
