import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Access } from "../domain/principal";
import { authorize } from "../middleware/authorize";
import { stability, type Stability } from "../middleware/stability";
import { ERROR_CODES, type ErrorCode } from "./errors";
import { VENDOR_JSON } from "./media-types";

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
  .object({ error: z.string().openapi({ example: "invalid_client" }), error_description: z.string() })
  .openapi("TrustedAccessError");

/** A JSON response body, served as the vendor media type. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { [VENDOR_JSON]: { schema } } };
}

/** A required JSON request body, accepted as the vendor media type or plain application/json. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    description,
    content: { "application/json": { schema }, [VENDOR_JSON]: { schema } },
  };
}

export const noContent = { description: "Done; no body." };

export interface RouteExtras {
  access: Access;
  stability?: Stability;
  /** The specific errorCodes this route can answer besides the ones every route of its kind can. */
  errors?: ErrorCode[];
  /** Status to answer DUPLICATED with, where the spec fixes it (E1: 400). */
  duplicatedStatus?: 400 | 409;
  /** Trusted-access endpoints answer errors as {error, error_description}. */
  errorBody?: "oauth";
}

export function defineRoute<const R extends RouteConfig>(config: R & RouteExtras): R {
  const { access, stability: mark, errors = [], duplicatedStatus, errorBody, ...route } = config;
  const codes = new Set<ErrorCode>(["INTERNAL_ERROR", ...errors]);
  const request = route.request;
  // Accept is negotiated under /api only: the HTML reference page answers any Accept.
  if (route.path.startsWith("/api") || !route.path.startsWith("/docs")) codes.add("NOT_ACCEPTABLE");
  if (request?.params || request?.query) codes.add("VALIDATION_FAILED");
  if (request?.body) ["VALIDATION_FAILED", "MALFORMED_JSON"].forEach((c) => codes.add(c as ErrorCode));
  // The pipeline checks the type and size of any body before routing, whether or not the route takes one.
  if (request?.body || route.method !== "get") ["UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"].forEach((c) => codes.add(c as ErrorCode));
  if (access.kind !== "public") ["UNAUTHENTICATED", "TOO_MANY_LOGIN_ATTEMPTS"].forEach((c) => codes.add(c as ErrorCode));
  if (access.kind !== "public" && access.kind !== "authenticated") codes.add("FORBIDDEN");
  if (mark === "preview") codes.add("PREVIEW_NOT_ENABLED");

  const responses: Record<string, unknown> = { ...route.responses };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = code === "DUPLICATED" && duplicatedStatus ? duplicatedStatus : ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = errorBody === "oauth" ? TrustedAccessErrorSchema : status === 401 ? ServletErrorMessageSchema : ErrorMessageSchema;
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join(" "),
      content: { [VENDOR_JSON]: { schema } },
      "x-error-codes": list,
    };
  }

  return createRoute({
    ...route,
    responses,
    security: access.kind === "public" ? [] : undefined,
    deprecated: mark === "deprecated" ? true : route.deprecated,
    "x-access": access.kind === "privilege" ? access.privilege : access.kind,
    ...(mark ? { "x-stability": mark } : {}),
    middleware: [stability(mark), authorize(access)],
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
