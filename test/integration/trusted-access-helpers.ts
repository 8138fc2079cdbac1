import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { runEverywhere } from "./every-database";
import { call, unique, VENDOR_JSON, type CallResult, type Credentials } from "./helpers";

/** Trusted-access test helpers: clients made through the API (as the supervisor), tokens through the token endpoints. */
export interface TestClient {
  clientId: string;
  clientSecret: string;
  /** The client's Basic credentials for the token endpoints. */
  credentials: { username: string; password: string };
}

export async function createClient(body: Record<string, unknown> = {}): Promise<TestClient> {
  const res = await call("POST", "/api/trusted-access/clients", { body: { client_name: unique("client"), access_token_validity_seconds: 3600, ...body } });
  if (res.status !== 201) throw new Error(`client: ${res.status} ${res.text}`);
  const { client_id: clientId, client_secret: clientSecret } = res.json;
  return { clientId, clientSecret, credentials: { username: clientId, password: clientSecret } };
}

/** POST .../push/tokens with the given credentials (a client's, or anything a test wants to try). */
export function pushToken(as: Credentials, body: unknown, headers?: Record<string, string>): Promise<CallResult> {
  return call("POST", "/api/trusted-access/push/tokens", { as, body, headers });
}

export function pullToken(as: Credentials, body: unknown, headers?: Record<string, string>): Promise<CallResult> {
  return call("POST", "/api/trusted-access/pull/tokens", { as, body, headers });
}

/** A bearer token for an existing user (pull), as call() credentials. */
export async function bearerFor(client: TestClient, username: string): Promise<{ bearer: string; tokenId: string }> {
  const res = await pullToken(client.credentials, { username });
  if (res.status !== 200) throw new Error(`pull: ${res.status} ${res.text}`);
  return { bearer: res.json.access_token, tokenId: res.json.token_id };
}

/**
 * Asserts an OAuth error body `{error, error_description}` with the given status and code (and nothing else), sent in
 * `mediaType` (the vendor type unless the request negotiated another).
 */
export function expectOAuthError(res: CallResult, status: number, error: string, mediaType = VENDOR_JSON) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error });
  expect(res.headers.get("Content-Type")).toBe(mediaType);
  expect(Object.keys(res.json).sort()).toEqual(["error", "error_description"]);
  expect(res.json.error_description.length).toBeGreaterThan(0);
  if (status === 401) expect(res.headers.get("WWW-Authenticate")).toMatch(error === "invalid_token" ? /^Bearer .*error="invalid_token"/ : /^Basic /);
}

/** Moves a stored time into the past (test set-up only: the API refuses past times, and tests do not wait). */
export async function expireClientSecret(clientId: string) {
  await env.DB.prepare("UPDATE trusted_access_clients SET client_secret_expires_at = ? WHERE client_id = ?").bind(Math.floor(Date.now() / 1000) - 1, clientId).run();
}

export async function expireToken(tokenId: string) {
  // On whichever database holds it (its user's shard).
  await runEverywhere("UPDATE access_tokens SET expires_at = ? WHERE token_id = ?", Date.now() - 1, tokenId);
}

export const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));

