import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../lib/errors";
import { VENDOR_JSON } from "../../lib/openapi";
import type { AppEnv } from "../../lib/types";

const JSON_BODY = /^application\/(json|vnd\.service\.v3\+json)\s*(;\s*charset=[\w-]+\s*)?$/i;
const ACCEPTABLE_RANGES = new Set(["*/*", "application/*", "application/json", VENDOR_JSON]);

/**
 * Media types: bodies must be the vendor type or application/json (415 otherwise); an Accept
 * that excludes every JSON type is refused (406); JSON responses go out as the vendor type.
 */
export const mediaType: MiddlewareHandler<AppEnv> = async (c, next) => {
  const accept = c.req.header("Accept");
  if (accept && !acceptsJson(accept)) {
    throw new ApiError("NOT_ACCEPTABLE", `Accept must allow ${VENDOR_JSON} or application/json`);
  }
  if (hasBody(c.req.raw)) {
    const contentType = c.req.header("Content-Type") ?? "";
    if (!JSON_BODY.test(contentType)) {
      throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be ${VENDOR_JSON} or application/json`);
    }
  }
  await next();
  // Only what c.json() sets by default: a handler that chose its own type (the OpenAPI document's
  // "application/json; charset=UTF-8") keeps it.
  if (c.res.headers.get("Content-Type") === "application/json") {
    c.res.headers.set("Content-Type", VENDOR_JSON);
  }
};

function hasBody(request: Request): boolean {
  const length = request.headers.get("Content-Length");
  if (length !== null) return length !== "0";
  return request.body !== null && request.headers.has("Transfer-Encoding");
}

export function acceptsJson(accept: string): boolean {
  return accept.split(",").some((part) => {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) return false;
    return ACCEPTABLE_RANGES.has(range) || /^application\/[\w.-]+\+json$/.test(range);
  });
}
