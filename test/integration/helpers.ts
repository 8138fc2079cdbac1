import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { ERROR_CODES } from "../../src/lib/errors";
import { assertConformant } from "./harness/response-validation";
import { fetchWorker } from "./harness/worker";

/**
 * Test helpers: every request goes through the real Worker (`exports.default.fetch`, or behind a
 * context path the default export of src/index.ts with CONTEXT_PATH set: harness/worker.ts) with
 * the real local D1. Nothing here bypasses the pipeline except `dbSnapshot`, which reads tables
 * directly to prove that a rejected request changed nothing.
 *
 * Every response `call` receives is checked against the OpenAPI document the Worker serves
 * (test/integration/harness/response-validation.ts): documented status, content type (and the
 * one the request negotiated), body schema and required headers. A response that breaks the contract fails the test that caused
 * it, whatever the test itself asserts.
 */
export const SUPERVISOR = { username: "supervisor", password: "supervisor-test-password" };
export const DEFAULT_ACCOUNT_ID = "00000000-0000-4000-8000-000000000001";
export const VENDOR_JSON = "application/vnd.service.v3+json";
export const PASSWORD = "correct horse battery";

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
  /**
   * Serves the request from the Worker configured with this CONTEXT_PATH (e.g. "/composer"; the
   * path must then start with it), and checks the response against the document served there.
   */
  contextPath?: string;
  /**
   * Skips the contract check of the response. Only for requests that deliberately bypass the
   * contract (say why at the call site); never to silence a response the contract refuses.
   */
  unchecked?: boolean;
}

export interface CallResult {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

/** The Request `call` sends: supervisor credentials unless `as` says otherwise (`null`: no Authorization). */
export function buildRequest(method: string, path: string, options: CallOptions = {}): Request {
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
  // Redirects are answers to check, not to follow (GET / answers 302).
  return new Request(`http://api.test${path}`, { method, headers, body, redirect: "manual" });
}

async function read(response: Response): Promise<CallResult> {
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * Calls the Worker as the supervisor unless `as` says otherwise (`null`: no Authorization), and
 * checks the response against the document (throws a ConformanceError naming the operation, the
 * status and what is wrong) unless `unchecked`.
 */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const request = buildRequest(method, path, options);
  const result = await read(await fetchWorker(request, options.contextPath));
  if (!options.unchecked) {
    const exchange = { method: request.method, url: request.url, status: result.status, headers: result.headers, text: result.text, requestHeaders: request.headers };
    await assertConformant(exchange, options.contextPath);
  }
  return result;
}

/** Mulberry32: a small seeded PRNG, so that a random test sends the same inputs on every run and a failure can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
  options: { groups?: string[]; roles?: string[]; name?: string; password?: string } = {},
): Promise<TestUser> {
  const username = options.name ?? unique("user");
  const password = options.password ?? PASSWORD;
  const res = await call("POST", "/api/users", {
    body: { name: username, password, accountId, groups: options.groups ?? ["Users"], roles: options.roles ?? [] },
  });
  if (res.status !== 201) throw new Error(`user: ${res.status} ${res.text}`);
  return { id: res.json.id, username, password, accountId };
}

/** Creates a group through the API (as the supervisor). */
export async function createGroup(accountId: string, name: string, privileges: string[] = []) {
  const res = await call("POST", "/api/groups", { body: { name, accountId, privileges } });
  if (res.status !== 201) throw new Error(`group: ${res.status} ${res.text}`);
  return res.json as { id: string; name: string; privileges: string[] };
}

/** Asks `probe` every 150 ms until it answers something (a delivery received, a row written after the answer), at most `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export const as = (user: TestUser) => ({ username: user.username, password: user.password });

/**
 * The local rate limiter (miniflare's, behind LOGIN_RATE_LIMITER and LOGIN_ADDRESS_RATE_LIMITER)
 * counts in windows aligned to the wall clock's minute: failures that straddle a minute start again
 * at 0 past it, and the throttle a test expects does not come. Waits for the next minute when fewer
 * than `seconds` are left of this one, so that a test's failures all fall in one window (such a
 * test allows for the wait in its timeout).
 */
export async function withinOneThrottleWindow(seconds = 20): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/**
 * Tables no request writes: the webhook Queue's consumer and cron mark events as carried there,
 * after the answer and at their own pace (docs/webhooks.md), so an earlier write's marks may land
 * between a snapshot and the next.
 */
const WRITTEN_AFTER_THE_ANSWER = ["webhook_dispatched", "webhook_sweep"];

/**
 * The project's databases by binding (vitest.config.ts): DB alone, or DB (the directory and the first
 * shard) and the other shards (docs/sharding.md).
 */
export const databases = (): [string, D1Database][] => env.TEST_DATABASES.map((binding) => [binding, env[binding] as D1Database]);

/**
 * D1 round trips the routing adds to a request over several databases (docs/sharding.md, "How a
 * request finds its shard"); none on one database, where nothing is routed. A check of a route's
 * X-D1-Round-Trips adds the routing's share to the route's own, so it stays exact in both projects.
 */
export const ROUTING_TRIPS = (() => {
  const several = env.TEST_DATABASES.length > 1;
  return {
    /** The supervisor's request naming an object by id (`/api/users/{id}`, …): every shard is asked which account holds it. */
    objectById: several ? env.TEST_DATABASES.length : 0,
    /** `GET /api/accounts/name/{name}`: the directory is asked for the name, then the account's shard is read. */
    accountByName: several ? 1 : 0,
  };
})();

/** The binding of the database holding an account's rows, as its directory row names it (DB for NULL). */
export async function shardNameOf(accountId: string): Promise<"DB" | "SHARD_2"> {
  const row = await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(accountId).first<{ shard: string | null }>();
  if (!row) throw new Error(`no directory row for ${accountId}`);
  return (row.shard ?? "DB") as "DB" | "SHARD_2";
}

/** The database holding an account's rows: the one its directory row names (DB for NULL, and on one database). */
export async function databaseOf(accountId: string): Promise<D1Database> {
  return env[(await bindingOf(accountId)) as "DB"] as D1Database;
}

/** The binding of the database holding an account's rows (DB for NULL, and on one database). */
async function bindingOf(accountId: string): Promise<string> {
  return (await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(accountId).first<string | null>("shard")) ?? "DB";
}

/** The sum over every database of a `SELECT count(*) AS n …` query: a row that must be gone is gone from all of them. */
export async function countOnEveryDatabase(query: string, ...values: unknown[]): Promise<number> {
  let total = 0;
  for (const [, database] of databases()) total += (await database.prepare(query).bind(...values).first<number>("n"))!;
  return total;
}

/**
 * A new account on the same database as `accountId` (on one database, the first made). For checks
 * that another account's row is refused by the database itself, which over several databases would
 * otherwise not hold it.
 */
export async function createAccountBeside(accountId: string) {
  return createAccountOn(await bindingOf(accountId));
}

/**
 * A new account, made by `create`, on another database than `accountId`'s where there is one (over
 * several databases: what one account reaches of another then crosses shards); on one database, the first made.
 */
export async function createAccountApart<T extends { id: string }>(accountId: string, create: () => Promise<T>) {
  const here = await bindingOf(accountId);
  return createAccountOn(databases().find(([binding]) => binding !== here)?.[0] ?? here, create);
}

/**
 * A new account on the database `binding` (DB on one database): a new account goes to the least
 * loaded shard, so a few are made, by `create` (through the API by default), until one lands there.
 * Creations made at once earlier read the same load and may have landed together, hence the slack.
 */
export function createAccountOn(binding: string): ReturnType<typeof createAccount>;
export function createAccountOn<T extends { id: string }>(binding: string, create: () => Promise<T>): Promise<T>;
export async function createAccountOn(binding: string, create: () => Promise<{ id: string }> = () => createAccount()) {
  for (let attempt = 0; attempt <= databases().length + 8; attempt++) {
    const account = await create();
    if ((await bindingOf(account.id)) === binding) return account;
  }
  throw new Error(`no new account landed on ${binding}`);
}

/**
 * Every row of every application table a request writes, on every database, to compare before and
 * after a rejected request (a table of another shard than DB is keyed `SHARD:table`).
 */
export async function dbSnapshot(): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  const tables = (await applicationTables()).filter((name) => !WRITTEN_AFTER_THE_ANSWER.includes(name));
  for (const [binding, database] of databases()) {
    // One batch per database: a snapshot is taken often, and over two databases table by table it is slow.
    const results = await database.batch(tables.map((name) => database.prepare(`SELECT * FROM "${name}" ORDER BY rowid`)));
    tables.forEach((name, i) => (snapshot[binding === "DB" ? name : `${binding}:${name}`] = results[i]!.results));
  }
  return snapshot;
}

/**
 * The rows of `table` in a dbSnapshot, over every database (DB's first, then each other shard's in
 * the project's order). `accounts` is the exception to "each row once": its directory rows and the
 * shards' copies are both listed.
 */
export function snapshotRows(snapshot: Record<string, unknown[]>, table: string): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const [binding] of databases()) rows.push(...((snapshot[binding === "DB" ? table : `${binding}:${table}`] ?? []) as Record<string, unknown>[]));
  return rows;
}

export async function applicationTables(): Promise<string[]> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  return tables.results.map((t) => t.name);
}

/**
 * Tables with an `account_id` column that an account's delete keeps: its audit events stay until
 * retention prunes them (who deleted it is itself one of them, docs/audit.md).
 */
export const KEPT_AFTER_ACCOUNT_DELETE = ["audit_events"];

/** The application tables that have an `account_id` column and go with their account. */
export async function accountOwnedTables(): Promise<string[]> {
  const owned: string[] = [];
  for (const name of await applicationTables()) {
    if (KEPT_AFTER_ACCOUNT_DELETE.includes(name)) continue;
    const columns = await env.DB.prepare(`PRAGMA table_info("${name}")`).all<{ name: string }>();
    if (columns.results.some((c) => c.name === "account_id")) owned.push(name);
  }
  return owned;
}

/**
 * How many rows each account-owned table holds for the account on every database (plus `accounts`
 * itself: its directory row, not a shard's copy).
 */
export async function rowsOfAccount(accountId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of await accountOwnedTables()) {
    counts[name] = 0;
    for (const [, database] of databases()) {
      const row = await database.prepare(`SELECT count(*) AS n FROM "${name}" WHERE account_id = ?`).bind(accountId).first<{ n: number }>();
      counts[name] += row!.n;
    }
  }
  const account = await env.DB.prepare("SELECT count(*) AS n FROM accounts WHERE id = ?").bind(accountId).first<{ n: number }>();
  counts.accounts = account!.n;
  return counts;
}

/**
 * Asserts a generic ErrorMessage body with the given status and errorCode (and, if given, exactly these distinct problem names),
 * sent in `mediaType` (the vendor type unless the request negotiated another).
 */
export function expectError(res: CallResult, status: number, errorCode: keyof typeof ERROR_CODES, problemNames?: string[], mediaType = VENDOR_JSON) {
  expect({ status: res.status, errorCode: res.json?.errorCode }, res.text).toEqual({ status, errorCode });
  expect(res.headers.get("Content-Type")).toBe(mediaType);
  const body = res.json;
  expect(body).toMatchObject({
    error: expect.any(String),
    message: expect.any(String),
    path: expect.any(String),
    status: String(status),
    code: expect.any(String),
    timestamp: expect.any(String),
    problems: expect.any(Array),
  });
  expect(body.error.length).toBeGreaterThan(0);
  expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  expect(body.path).toBe(body.path.split("?")[0]);
  for (const p of body.problems) {
    expect(p).toMatchObject({ name: expect.any(String), message: expect.any(String) });
    expect(["ERROR", "WARNING"]).toContain(p.level);
  }
  if (problemNames) {
    const names = [...new Set(body.problems.map((p: { name: string }) => p.name))].sort();
    expect(names).toEqual([...new Set(problemNames)].sort());
  }
  return body;
}

/** Asserts a 401 ServletErrorMessage for `path` with a WWW-Authenticate challenge of `scheme`. */
export function expectUnauthenticated(res: CallResult, path: string, scheme: "Basic" | "Bearer" = "Basic") {
  expect(res.status, res.text).toBe(401);
  expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
  expect(Object.keys(res.json).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
  expect(res.json).toMatchObject({ status: 401, error: "Unauthorized", message: expect.any(String), path });
  expect(Number.isNaN(Date.parse(res.json.timestamp))).toBe(false);
  expect(res.headers.get("WWW-Authenticate")).toMatch(new RegExp(`^${scheme} `));
}

/** A response text must not carry password material of any kind. */
export function expectNoPasswordMaterial(text: string, ...passwords: string[]) {
  expect(text).not.toMatch(/password|hash|salt|iteration/i);
  for (const p of passwords) expect(text).not.toContain(p);
}
