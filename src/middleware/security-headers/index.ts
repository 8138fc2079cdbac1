import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../lib/types";

/**
 * Headers every answer carries: browsers must not sniff a JSON body into something else, and no
 * answer may be framed. Answers to a caller who authenticated are private data: `no-store`, so
 * that no shared or browser cache keeps them (a handler that sets its own Cache-Control wins).
 * API answers forbid every kind of content; the HTML reference page sets its own policy.
 */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "no-referrer");
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
  if (!headers.has("Cache-Control") && (c.get("principal") || c.req.header("Authorization"))) headers.set("Cache-Control", "no-store");
};
