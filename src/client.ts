import { hc } from "hono/client";
import type { AppType } from "./app";

export type { AppType };

export interface ApiClientOptions {
  /** HTTP Basic credentials of a user (or the supervisor). */
  username: string;
  password: string;
  /** Another fetch, e.g. a Worker's service binding or a test's. */
  fetch?: typeof fetch;
  /**
   * Carry the database bookmark (X-D1-Bookmark) of each answer to the next request, so that this
   * client reads its own writes and never reads older than it did, whichever replica serves it
   * (docs/replication.md). On unless `false`.
   */
  carryBookmark?: boolean;
}

/**
 * A client typed from the app itself (`hono/client`): its paths, parameters, bodies and answers
 * are those of the Zod schemas that validate requests and generate the OpenAPI document, so code
 * written against it stops compiling when the API changes under it. `baseUrl` is the origin plus
 * the context path, if any.
 */
export function createApiClient(baseUrl: string, options: ApiClientOptions) {
  const send = options.fetch ?? fetch;
  return hc<AppType>(baseUrl, {
    headers: { Authorization: basicAuthorization(options.username, options.password) },
    fetch: options.carryBookmark === false ? send : carryingBookmark(send),
  });
}

/**
 * A fetch that sends the latest X-D1-Bookmark it has received. Bookmarks are fixed-width hex, so the
 * later of two is the greater string: an answer that overtook a slower one does not move it back.
 */
function carryingBookmark(send: typeof fetch): typeof fetch {
  let last: string | undefined;
  return async (input, init) => {
    const request = new Request(input, init);
    if (last && !request.headers.has("X-D1-Bookmark")) request.headers.set("X-D1-Bookmark", last);
    const response = await send(request);
    const answered = response.headers.get("X-D1-Bookmark");
    if (answered && (!last || answered > last)) last = answered;
    return response;
  };
}

/** The Basic header of RFC 7617: base64 of the UTF-8 of "username:password". */
function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
