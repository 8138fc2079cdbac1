import type { MiddlewareHandler } from "hono";
import { cors as honoCors } from "hono/cors";
import type { AppEnv } from "../../lib/types";

/**
 * Cross-origin access for browser consoles on other origins, off by default. Only the origins
 * listed in CORS_ALLOWED_ORIGINS get CORS headers, credentials included; preflights are answered
 * here, before authentication (a browser sends them without credentials). A preflight from an
 * unlisted origin gets a 204 that grants nothing, so the browser refuses the real request.
 */
const forListedOrigins = honoCors({
  origin: (origin) => origin,
  credentials: true,
  allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
  allowHeaders: ["Authorization", "Content-Type", "Accept", "If-Match", "If-None-Match", "X-Enable-Preview", "X-Request-Id", "X-D1-Bookmark"],
  exposeHeaders: ["ETag", "Location", "X-Request-Id", "Retry-After", "X-API-Stability", "Deprecation", "Sunset", "WWW-Authenticate", "X-D1-Bookmark"],
  maxAge: 600,
});

export const corsPolicy: MiddlewareHandler<AppEnv> = async (c, next) => {
  const allowed = c.get("config").corsAllowedOrigins;
  const origin = c.req.header("Origin");
  if (origin && allowed.has(origin)) return forListedOrigins(c, next);
  if (c.req.method === "OPTIONS" && c.req.header("Access-Control-Request-Method")) {
    c.header("Vary", "Origin");
    return c.body(null, 204);
  }
  await next();
  if (allowed.size > 0) c.header("Vary", "Origin", { append: true });
};
