import { constantAnswer } from "../../lib/constant-answer";
import { createRouter } from "../../lib/create-router";
import { jsonMediaTypeOf, negotiate } from "../../lib/media-types";
import { docsPage, DOCS_CONTENT_SECURITY_POLICY } from "./docs-page";
import * as routes from "./meta.routes";
import { servedDocument } from "./served-document";

/** Public routes: served before authentication. */
export function createMetaRouter() {
  return createRouter()
    // A person who opens the service's root lands on its reference, not on a JSON 404.
    .openapi(routes.root, (c) => c.redirect(`${c.req.path.replace(/\/+$/, "")}/docs`, 302) as never)
    .openapi(routes.health, (c) => health(c, c.get("mediaType") ?? "application/json") as never)
    .openapi(routes.openapiDocument, async (c) => {
      // Tools expect plain JSON; a client that asks for another spoken type gets that one.
      const type = `${negotiate(c.req.header("Accept"), jsonMediaTypeOf(c.req.header("Content-Type")), "application/json") ?? "application/json"}; charset=UTF-8`;
      const { text, etag } = await servedDocument(c.env, c.get("config").contextPath, type);
      c.header("ETag", etag);
      return c.body(text, 200, { "Content-Type": type }) as never;
    })
    .openapi(routes.docs, (c) => {
      const documentUrl = new URL(c.req.url).pathname.replace(/\/docs\/?$/, "/api/openapi.json");
      c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
      return pageFor(documentUrl)(c, "text/html; charset=UTF-8") as never;
    });
}

const health = constantAnswer(() => JSON.stringify({ status: "ok" }));

// The reference page of each context path this isolate serves; a path spelled another way (a
// trailing slash, percent-encoding) past the first few is made afresh rather than kept.
const pages = new Map<string, ReturnType<typeof constantAnswer>>();
function pageFor(documentUrl: string) {
  let page = pages.get(documentUrl);
  if (!page) {
    page = constantAnswer(() => docsPage(documentUrl));
    if (pages.size < 8) pages.set(documentUrl, page);
  }
  return page;
}
