import type { Context } from "hono";
import { textDigest } from "../middleware/conditional-get";
import type { AppEnv } from "./types";

/**
 * An answer that depends only on the deployment (the health probe, the expression catalogue, the
 * reference page): its text is made once per isolate and its digest ETag once per media type, where
 * conditional GET would otherwise digest the same text on every request. The tag is the one
 * conditional GET gives any answer without a revision (textDigest of the type and text sent).
 */
export function constantAnswer(make: () => string): (c: Context<AppEnv>, contentType: string) => Promise<Response> {
  let text: string | undefined;
  const etags = new Map<string, Promise<string>>();
  return async (c, contentType) => {
    text ??= make();
    let etag = etags.get(contentType);
    if (!etag) etags.set(contentType, (etag = textDigest(text, contentType).then((digest) => `"${digest}"`)));
    c.header("ETag", await etag);
    return c.body(text, 200, { "Content-Type": contentType });
  };
}
