import { applyD1Migrations, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { fillTemplate, listOperations, loadDocument } from "./harness/document";
import { assertConformant } from "./harness/response-validation";
import { basic, buildRequest, call, expectError, expectUnauthenticated, PASSWORD, SUPERVISOR, unique, type CallOptions, type CallResult } from "./helpers";
import { bookmarkAt, LaggingD1, positionOf } from "./replication/lagging-d1";

/**
 * Read replication (D1's Sessions API, src/db/session.ts) run through a lagging replica: the Worker
 * is given, as its DB binding, a test double (replication/lagging-d1.ts) whose replica is a second
 * real local D1 that replays the primary's writes only when a session needs it to (lag: Infinity)
 * or a set number of writes behind. Everything else is the real Worker and the real migrations.
 */
let d1: LaggingD1;
let bindings: typeof env;

beforeAll(async () => {
  await applyD1Migrations(env.REPLICA_DB, env.TEST_MIGRATIONS);
});

beforeEach(() => {
  // Each test starts with a replica that follows only on demand, at the primary's current position.
  d1 ??= new LaggingD1(env.DB, env.REPLICA_DB);
  d1.lag = Number.POSITIVE_INFINITY;
  bindings ??= { ...env, DB: d1 as unknown as D1Database };
});

/** A request to the real Worker over the lagging D1, its answer checked against the OpenAPI document. */
async function send(method: string, path: string, options: CallOptions & { bookmark?: string | null } = {}): Promise<CallResult> {
  const headers = { ...options.headers, ...(options.bookmark ? { "X-D1-Bookmark": options.bookmark } : {}) };
  const request = buildRequest(method, path, { ...options, headers });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertConformant({ method, url: request.url, status: response.status, headers: response.headers, text, requestHeaders: request.headers });
  return { status: response.status, headers: response.headers, json, text };
}

/** Runs `request` and checks that every D1 call it made ran where said (the double's trail). */
async function ranOn(where: "primary" | "replica", request: () => Promise<CallResult>): Promise<CallResult> {
  const from = d1.trail.length;
  const res = await request();
  const calls = d1.trail.slice(from);
  expect(calls.length).toBeGreaterThan(0);
  for (const place of calls) expect(place.split("@")[0]).toBe(where);
  return res;
}

const bookmarkOf = (res: CallResult) => res.headers.get("X-D1-Bookmark");
const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));
const as = (user: { username: string; password: string }) => ({ username: user.username, password: user.password });

async function newAccount() {
  const res = await send("POST", "/api/accounts", { body: { name: unique("acct") } });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.id as string, name: res.json.name as string, bookmark: bookmarkOf(res)! };
}

async function newUser(accountId: string, groups = ["Users", "Administrators"]) {
  const username = unique("user");
  const res = await send("POST", "/api/users", { body: { name: username, password: PASSWORD, accountId, groups, roles: [] } });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.id as string, username, password: PASSWORD, bookmark: bookmarkOf(res)! };
}

describe("reading one's own writes", () => {
  it("a write answers the primary's bookmark; a read with it sees the write, a read without it is served by the lagging replica and does not", async () => {
    const before = d1.primaryAt;
    const account = await newAccount();
    expect(positionOf(account.bookmark)).toBeGreaterThan(before);
    expect(d1.replicaAt).toBeLessThan(d1.primaryAt);

    const stale = await ranOn("replica", () => send("GET", `/api/accounts/${account.id}`));
    expect(stale.status).toBe(404);
    expect(positionOf(bookmarkOf(stale)!)).toBeLessThan(positionOf(account.bookmark));

    const fresh = await ranOn("replica", () => send("GET", `/api/accounts/${account.id}`, { bookmark: account.bookmark }));
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json.name).toBe(account.name);
    expect(bookmarkOf(fresh)).toBe(account.bookmark);
  });

  it("a bookmark costs no round trip: every request's count is that of the real binding", async () => {
    const account = await newAccount();
    const viaReal = await call("GET", "/api/accounts");
    const viaReplica = await send("GET", "/api/accounts", { bookmark: account.bookmark });
    expect(viaReplica.status).toBe(200);
    expect(roundTrips(viaReplica)).toBe(roundTrips(viaReal));
    const createdReal = await call("POST", "/api/accounts", { body: { name: unique("acct") } });
    const createdReplica = await send("POST", "/api/accounts", { body: { name: unique("acct") }, bookmark: account.bookmark });
    expect(roundTrips(createdReplica)).toBe(roundTrips(createdReal));
    expect(createdReplica.headers.get("X-D1-Served-By")).toMatch(/^primary@PRIMARY/);
  });

  it("the request log says where D1 served the calls, as X-D1-Served-By does", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((text: unknown) => void lines.push(String(text)));
    try {
      const created = await send("POST", "/api/accounts", { body: { name: unique("acct") } });
      const line = lines.map((l) => JSON.parse(l)).find((l) => l.message === "request" && l.requestId === created.headers.get("X-Request-Id"));
      expect(line?.d1ServedBy).toBe(created.headers.get("X-D1-Served-By"));
      expect(line?.d1ServedBy).toMatch(/^primary@PRIMARY/);
    } finally {
      spy.mockRestore();
    }
  });

  it("a sequence of requests carrying the last bookmark never goes back in time, with the replica one write behind", async () => {
    d1.lag = 1;
    const account = await newAccount();
    let bookmark = account.bookmark;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const name = unique("seq");
      const created = await send("POST", "/api/users", { body: { name, password: PASSWORD, accountId: account.id, groups: ["Users"], roles: [] }, bookmark });
      expect(created.status, created.text).toBe(201);
      expect(positionOf(bookmarkOf(created)!)).toBeGreaterThan(positionOf(bookmark));
      bookmark = bookmarkOf(created)!;
      ids.push(created.json.id);
      // Every user made so far is there on every later read that carries the chain's bookmark.
      for (const id of ids) {
        const read = await send("GET", `/api/users/${id}`, { bookmark });
        expect(read.status, `${id} at ${bookmark}`).toBe(200);
        expect(positionOf(bookmarkOf(read)!)).toBeGreaterThanOrEqual(positionOf(bookmark));
        bookmark = bookmarkOf(read)!;
      }
    }
  });

  it("a request that ran no statement hands back the bookmark it was sent", async () => {
    const res = await send("GET", "/api/health", { as: null, bookmark: bookmarkAt(0) });
    expect(res.status).toBe(200);
    expect(bookmarkOf(res)).toBe(bookmarkAt(0));
  });
});

describe("what must never be stale, on a lagging replica", () => {
  it("a revoked bearer token is refused by the next request, with or without an older bookmark", async () => {
    const account = await newAccount();
    const user = await newUser(account.id);
    const client = await send("POST", "/api/trusted-access/clients", { body: { client_name: unique("client"), access_token_validity_seconds: 3600 } });
    expect(client.status, client.text).toBe(201);
    const token = await send("POST", "/api/trusted-access/pull/tokens", {
      as: { username: client.json.client_id, password: client.json.client_secret },
      body: { username: user.username },
    });
    expect(token.status, token.text).toBe(200);
    const bearer = token.json.access_token as string;
    const oldBookmark = bookmarkOf(token)!;
    // Twice: the first request verifies the token, the second has it checked riding on its read.
    for (let i = 0; i < 2; i++) expect((await send("GET", "/api/users", { as: { bearer } })).status).toBe(200);

    const revoked = await send("DELETE", `/api/trusted-access/tokens/${token.json.token_id}`);
    expect(revoked.status).toBe(204);
    // The replica has not seen the revocation; the request's first round trip, which carries the token's check, is the primary's.
    expect(d1.replicaAt).toBeLessThan(positionOf(bookmarkOf(revoked)!));
    const from = d1.trail.length;
    expectUnauthenticated(await send("GET", "/api/users", { as: { bearer } }), "/api/users", "Bearer");
    expect(d1.trail[from]).toBe("primary");
    expectUnauthenticated(await send("GET", "/api/users", { as: { bearer }, bookmark: oldBookmark }), "/api/users", "Bearer");
  });

  it("a deleted user is refused at once", async () => {
    const account = await newAccount();
    const user = await newUser(account.id);
    expect((await send("GET", `/api/users/${user.id}`, { as: as(user), bookmark: user.bookmark })).status).toBe(200);
    expect((await send("DELETE", `/api/users/${user.id}`)).status).toBe(204);
    expectUnauthenticated(await send("GET", `/api/users/${user.id}`, { as: as(user) }), `/api/users/${user.id}`);
    expectUnauthenticated(await send("GET", `/api/users/${user.id}`, { as: as(user), bookmark: user.bookmark }), `/api/users/${user.id}`);
  });

  it("a disabled account's users are refused at once", async () => {
    const account = await newAccount();
    const user = await newUser(account.id);
    expect((await send("GET", "/api/users", { as: as(user), bookmark: user.bookmark })).status).toBe(200);
    const disabled = await send("PUT", `/api/accounts/${account.id}`, { body: { name: account.name, disabled: true } });
    expect(disabled.status, disabled.text).toBe(200);
    expectUnauthenticated(await send("GET", "/api/users", { as: as(user) }), "/api/users");
  });

  it("a changed password: the old one is refused and the new one works at once", async () => {
    const account = await newAccount();
    const user = await newUser(account.id);
    expect((await send("GET", `/api/users/${user.id}`, { as: as(user), bookmark: user.bookmark })).status).toBe(200);
    const newPassword = "a brand new passphrase";
    const changed = await send("PUT", `/api/users/${user.id}`, { body: { name: user.username, groups: ["Users", "Administrators"], password: newPassword } });
    expect(changed.status, changed.text).toBe(200);
    expectUnauthenticated(await send("GET", `/api/users/${user.id}`, { as: as(user) }), `/api/users/${user.id}`);
    expect((await send("GET", `/api/users/${user.id}`, { as: { username: user.username, password: newPassword } })).status).toBe(200);
  });

  it("without the primary for credentials this would fail: the replica still holds the deleted user", async () => {
    const account = await newAccount();
    const user = await newUser(account.id);
    await send("GET", `/api/users/${user.id}`, { bookmark: user.bookmark });
    expect((await send("DELETE", `/api/users/${user.id}`)).status).toBe(204);
    // The supervisor (no D1 lookup to authenticate) reads the lagging replica: the user is still there.
    const stale = await ranOn("replica", () => send("GET", `/api/users/${user.id}`));
    expect(stale.status).toBe(200);
  });
});

describe("the X-D1-Bookmark header", () => {
  it("a malformed bookmark is a 400 naming the header, before anything is read or written", async () => {
    const at = d1.primaryAt;
    for (const bad of ["garbage", "00000000-0000-0000", `${bookmarkAt(1)}x`]) {
      const res = await send("POST", "/api/accounts", { body: { name: unique("acct") }, bookmark: bad });
      expectError(res, 400, "INVALID_BOOKMARK");
      expect(res.json.message).toContain("X-D1-Bookmark");
    }
    expect(d1.primaryAt).toBe(at);
  });

  it("a well-formed bookmark the database refuses (ahead of it) is a 400 too, not a 500", async () => {
    const res = await send("GET", "/api/accounts", { bookmark: bookmarkAt(d1.primaryAt + 1000) });
    expectError(res, 400, "INVALID_BOOKMARK");
  });

  it("CORS allows the header on requests and exposes it on answers", async () => {
    const origin = "https://console.example.test";
    const preflight = await call("OPTIONS", "/api/accounts", {
      as: null,
      unchecked: true, // a preflight is not an operation of the document
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-d1-bookmark" },
    });
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("x-d1-bookmark");
    const res = await call("GET", "/api/accounts", { headers: { Origin: origin } });
    expect(res.headers.get("Access-Control-Expose-Headers")?.toLowerCase()).toContain("x-d1-bookmark");
    expect(res.headers.get("X-D1-Bookmark")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);
  });

  it("the supervisor's Basic credentials need no D1 lookup, so its reads go to the replica", async () => {
    const res = await ranOn("replica", () => send("GET", "/api/accounts", { headers: { Authorization: basic(SUPERVISOR.username, SUPERVISOR.password) } }));
    expect(res.status).toBe(200);
  });

  it("every operation documents the request and response header, and answers a malformed one with its documented 400", async () => {
    const operations = listOperations(await loadDocument());
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      const parameter = op.parameters.find((p) => p.in === "header" && p.name === "X-D1-Bookmark");
      expect(parameter?.required, op.key).toBe(false);
      for (const [status, response] of Object.entries(op.responses)) expect(Object.keys(response.headers ?? {}), `${op.key} ${status}`).toContain("X-D1-Bookmark");
      const path = fillTemplate(op.template, Object.fromEntries(op.pathParams.map((name) => [name, "x"])));
      // Refused before anything runs, whatever the route and caller: `call` checks the answer against the document.
      const res = await call(op.method, path, { headers: { "X-D1-Bookmark": "not-a-bookmark" } });
      // Under /api/trusted-access/ errors are OAuth bodies ({error, error_description}).
      if (path.startsWith("/api/trusted-access/")) expect({ status: res.status, error: res.json.error, description: res.json.error_description }, op.key).toEqual({ status: 400, error: "invalid_request", description: expect.stringContaining("X-D1-Bookmark") });
      else expectError(res, 400, "INVALID_BOOKMARK");
    }
  });
});
