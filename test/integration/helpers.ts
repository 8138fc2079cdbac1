import { env, exports } from "cloudflare:workers";

/**
 * Test helpers: every request goes through the real Worker (`exports.default.fetch`) with the
 * real local D1. Nothing here bypasses the pipeline except `dbSnapshot`, which reads tables
 * directly to prove that a rejected request changed nothing.
 */
export const SUPERVISOR = { username: "supervisor", password: "supervisor-test-password" };
export const DEFAULT_ACCOUNT_ID = "00000000-0000-4000-8000-000000000001";
export const VENDOR_JSON = "application/vnd.service.v3+json";

export type Credentials = { username: string; password: string } | { bearer: string } | null;

export function basic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

export interface CallOptions {
  as?: Credentials;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

/** Calls the Worker as the supervisor unless `as` says otherwise (`null`: no Authorization). */
export async function call(method: string, path: string, options: CallOptions = {}) {
  const headers = new Headers(options.headers);
  const who = options.as === undefined ? SUPERVISOR : options.as;
  if (who && !headers.has("Authorization")) {
    headers.set("Authorization", "bearer" in who ? `Bearer ${who.bearer}` : basic(who.username, who.password));
  }
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", VENDOR_JSON);
  }
  const response = await exports.default.fetch(new Request(`http://api.test${path}`, { method, headers, body }));
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export async function createAccount(name = unique("acct")) {
  const res = await call("POST", "/api/accounts", { body: { name } });
  if (res.status !== 201) throw new Error(`account: ${res.status} ${res.text}`);
  return res.json as { id: string; name: string };
}

export interface TestUser {
  id: string;
  username: string;
  password: string;
  accountId: string;
}

/** Creates a user through the API (as the supervisor) in the given account with the given groups and roles. */
export async function createUser(
  accountId: string,
  options: { groups?: string[]; roles?: string[]; name?: string } = {},
): Promise<TestUser> {
  const username = options.name ?? unique("user");
  const password = "correct horse battery";
  const res = await call("POST", "/api/users", {
    body: { name: username, password, accountId, groups: options.groups ?? ["Users"], roles: options.roles ?? [] },
  });
  if (res.status !== 201) throw new Error(`user: ${res.status} ${res.text}`);
  return { id: res.json.id, username, password, accountId };
}

export const as = (user: TestUser) => ({ username: user.username, password: user.password });

/** Every row of every application table, to compare before and after a rejected request. */
export async function dbSnapshot(): Promise<Record<string, unknown[]>> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const snapshot: Record<string, unknown[]> = {};
  for (const { name } of tables.results) {
    snapshot[name] = (await env.DB.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()).results;
  }
  return snapshot;
}
