import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { createRouter } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { buildDocument } from "./openapi-document";
import * as routes from "./meta.routes";

/**
 * The reference page may run its bundle and inline configuration, fetch this document from the
 * same origin, and nothing else: no frames, no forms, no plugins.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline' https://cdn.jsdelivr.net",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Public routes: served before authentication. `getApp` gives the whole app, whose routes the document lists. */
export function createMetaRouter(getApp: () => OpenAPIHono<AppEnv>) {
  return createRouter()
    .openapi(routes.health, (c) => c.json({ status: "ok" as const }, 200))
    .openapi(routes.openapiDocument, (c) => {
      const response = c.json(buildDocument(getApp()) as never, 200);
      response.headers.set("Content-Type", "application/json; charset=UTF-8");
      return response;
    })
    .openapi(routes.docs, async (c, next) => {
      const url = new URL(c.req.url).pathname.replace(/\/docs\/?$/, "/api/openapi.json");
      const response = (await Scalar({ url, pageTitle: "Analytics Metadata Administration API" })(c as never, next)) as Response;
      response.headers.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
      return response as never;
    });
}
