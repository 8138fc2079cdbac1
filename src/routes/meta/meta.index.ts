import type { OpenAPIHono } from "@hono/zod-openapi";
import { createRouter } from "../../lib/create-router";
import { jsonMediaTypeOf, negotiate } from "../../lib/media-types";
import type { AppEnv } from "../../lib/types";
import { docsPage, DOCS_CONTENT_SECURITY_POLICY } from "./docs-page";
import { buildDocument } from "./openapi-document";
import * as routes from "./meta.routes";

/** Public routes: served before authentication. `getApp` gives the whole app, whose routes the document lists. */
export function createMetaRouter(getApp: () => OpenAPIHono<AppEnv>) {
  return createRouter()
    // A person who opens the service's root lands on its reference, not on a JSON 404.
    .openapi(routes.root, (c) => c.redirect(`${c.req.path.replace(/\/+$/, "")}/docs`, 302) as never)
    .openapi(routes.health, (c) => c.json({ status: "ok" as const }, 200))
    .openapi(routes.openapiDocument, (c) => {
      const response = c.json(buildDocument(getApp()) as never, 200);
      // Tools expect plain JSON; a client that asks for another spoken type gets that one.
      const type = negotiate(c.req.header("Accept"), jsonMediaTypeOf(c.req.header("Content-Type")), "application/json");
      response.headers.set("Content-Type", `${type ?? "application/json"}; charset=UTF-8`);
      return response;
    })
    .openapi(routes.docs, (c) => {
      const documentUrl = new URL(c.req.url).pathname.replace(/\/docs\/?$/, "/api/openapi.json");
      c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
      return c.html(docsPage(documentUrl), 200) as never;
    });
}
