import type { Bindings } from "../../lib/types";
import { textDigest } from "../../middleware/conditional-get";

/**
 * The OpenAPI document as served: generated at build time (scripts/openapi-document.mjs) into the
 * Worker's static assets, read once per isolate through the ASSETS binding (wrangler.toml keeps
 * its public path for the Worker, which answers it 404), placed under the configured context path,
 * then written and digested once per media type.
 */
export const DOCUMENT_ASSET_PATH = "/openapi/openapi.json";

let generated: Promise<string> | undefined;
const served = new Map<string, Promise<{ text: string; etag: string }>>();

export function servedDocument(env: Bindings, contextPath: string, type: string): Promise<{ text: string; etag: string }> {
  const key = `${contextPath} ${type}`;
  let document = served.get(key);
  if (!document) {
    document = (async () => {
      const text = contextPath ? withContextPath(await generatedDocument(env), contextPath) : await generatedDocument(env);
      return { text, etag: `"${await textDigest(text, type)}"` };
    })();
    served.set(key, document);
    document.catch(() => served.delete(key));
  }
  return document;
}

function generatedDocument(env: Bindings): Promise<string> {
  generated ??= (async () => {
    const res = await env.ASSETS.fetch(new Request(`https://assets.invalid${DOCUMENT_ASSET_PATH}`));
    if (!res.ok) throw new Error(`The OpenAPI document is missing from the static assets (${DOCUMENT_ASSET_PATH}: ${res.status}): scripts/openapi-document.mjs writes it`);
    return res.text();
  })();
  generated.catch(() => (generated = undefined));
  return generated;
}

/** The document of an app mounted under `contextPath` ("/composer"): every path under it, the root as the bare prefix. */
export function withContextPath(text: string, contextPath: string): string {
  const document = JSON.parse(text) as { paths: Record<string, unknown> };
  document.paths = Object.fromEntries(Object.entries(document.paths).map(([path, item]) => [path === "/" ? contextPath : contextPath + path, item]));
  return JSON.stringify(document);
}
