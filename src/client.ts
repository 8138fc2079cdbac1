import { hc } from "hono/client";
import type { AppType } from "./app";

export type { AppType };

export interface ApiClientOptions {
  /** HTTP Basic credentials of a user (or the supervisor). */
  username: string;
  password: string;
  /** Another fetch, e.g. a Worker's service binding or a test's. */
  fetch?: typeof fetch;
}

/**
 * A client typed from the app itself (`hono/client`): its paths, parameters, bodies and answers
 * are those of the Zod schemas that validate requests and generate the OpenAPI document, so code
 * written against it stops compiling when the API changes under it. `baseUrl` is the origin plus
 * the context path, if any.
 */
export function createApiClient(baseUrl: string, options: ApiClientOptions) {
  return hc<AppType>(baseUrl, {
    headers: { Authorization: basicAuthorization(options.username, options.password) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The Basic header of RFC 7617: base64 of the UTF-8 of "username:password". */
function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
