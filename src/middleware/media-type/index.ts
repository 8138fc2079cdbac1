import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../lib/errors";
import { essenceOf, JSON_MEDIA_TYPES, jsonMediaTypeOf, MERGE_PATCH_JSON, negotiate, VENDOR_JSON } from "../../lib/media-types";
import type { AppEnv } from "../../lib/types";

const SPOKEN = JSON_MEDIA_TYPES.join(", ");
const STREAMING_LIST = /\/api\/audit-events\/?$/;

/**
 * Media types (the rule is src/lib/media-types.ts):
 *  - the answer's type is negotiated from Accept (406 when it excludes every spoken JSON type) and
 *    kept as `mediaType` for the error bodies; JSON answers are sent in it;
 *  - a request WITH a body must send it in a spoken type (415 otherwise); a request without a
 *    body is never refused for its Content-Type (clients send theirs on every GET and DELETE),
 *    nor is a GET, whose body nothing reads. A PATCH body may also come as a JSON Merge Patch.
 */
export const mediaType: MiddlewareHandler<AppEnv> = async (c, next) => {
  const requestType = jsonMediaTypeOf(c.req.header("Content-Type"));
  // The audit trail's list also streams NDJSON for a SIEM (routes/audit-events): its handler answers that type itself.
  const streams = c.req.method === "GET" && STREAMING_LIST.test(c.req.path) && (c.req.header("Accept") ?? "").toLowerCase().includes("application/x-ndjson");
  const answer = streams ? VENDOR_JSON : negotiate(c.req.header("Accept"), requestType);
  // Even a refusal is written in a type the client may read: its own, or the service's.
  c.set("mediaType", answer ?? requestType ?? VENDOR_JSON);
  // The answer's type depends on these two request headers: caches must key on them.
  c.header("Vary", "Accept, Content-Type", { append: true });
  if (!answer) throw new ApiError("NOT_ACCEPTABLE", `Accept must allow one of ${SPOKEN}`);
  const mergePatch = c.req.method === "PATCH" && essenceOf(c.req.header("Content-Type")) === MERGE_PATCH_JSON;
  if (takesBody(c.req.method) && hasBody(c.req.raw) && !requestType && !mergePatch) throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be one of ${SPOKEN}${c.req.method === "PATCH" ? `, ${MERGE_PATCH_JSON}` : ""}`);
  await next();
  // Only what c.json() sets by default: a handler that chose its own type (the OpenAPI document) keeps it.
  if (c.res.headers.get("Content-Type") === "application/json") c.res.headers.set("Content-Type", answer);
};

/** A GET's (or HEAD's) body has no meaning (RFC 9110 section 9.3.1): it is never read, so never refused. */
const takesBody = (method: string) => method !== "GET" && method !== "HEAD";

function hasBody(request: Request): boolean {
  const length = request.headers.get("Content-Length");
  if (length !== null) return length !== "0";
  return request.body !== null && request.headers.has("Transfer-Encoding");
}
