import type { OpenAPIHono } from "@hono/zod-openapi";
import { createRouter } from "../../lib/create-router";
import { representationDigest } from "../../middleware/conditional-get";
import { jsonMediaTypeOf, negotiate } from "../../lib/media-types";
import type { AppEnv } from "../../lib/types";
import { docsPage, DOCS_CONTENT_SECURITY_POLICY } from "./docs-page";
import { buildDocument } from "./openapi-document";
import * as routes from "./meta.routes";

/**
 * The document's text and entity tag for one media type, made once per app: the document only
 * changes with a deployment, and it is about half a megabyte of JSON to write and digest.
 */
const servedDocuments = new WeakMap<object, Map<string, Promise<{ text: string; etag: string }>>>();

function servedDocument(app: OpenAPIHono<AppEnv>, type: string) {
  let byType = servedDocuments.get(app);
  if (!byType) servedDocuments.set(app, (byType = new Map()));
  let served = byType.get(type);
  if (!served) {
    const text = JSON.stringify(buildDocument(app));
    served = representationDigest(new TextEncoder().encode(text), type).then((digest) => ({ text, etag: `"${digest}"` }));
    byType.set(type, served);
  }
  return served;
}


/** Public routes: served before authentication. `getApp` gives the whole app, whose routes the document lists. */
export function createMetaRouter(getApp: () => OpenAPIHono<AppEnv>) {
  return createRouter()
    // A person who opens the service's root lands on its reference, not on a JSON 404.
    .openapi(routes.root, (c) => c.redirect(`${c.req.path.replace(/\/+$/, "")}/docs`, 302) as never)
    .openapi(routes.health, (c) => c.json({ status: "ok" as const }, 200))
    .openapi(routes.openapiDocument, async (c) => {
      // Tools expect plain JSON; a client that asks for another spoken type gets that one.
      const type = `${negotiate(c.req.header("Accept"), jsonMediaTypeOf(c.req.header("Content-Type")), "application/json") ?? "application/json"}; charset=UTF-8`;
      const { text, etag } = await servedDocument(getApp(), type);
      c.header("ETag", etag);
      return c.body(text, 200, { "Content-Type": type }) as never;
    })
    .openapi(routes.docs, (c) => {
      const documentUrl = new URL(c.req.url).pathname.replace(/\/docs\/?$/, "/api/openapi.json");
      c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
      return c.html(docsPage(documentUrl), 200) as never;
    });
}
