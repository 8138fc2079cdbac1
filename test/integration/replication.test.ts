import { applyD1Migrations, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { forgetPlacement } from "../../src/db/shards/routing";
import { fillTemplate, listOperations, loadDocument } from "./harness/document";
import { assertConformant } from "./harness/response-validation";
import { basic, buildRequest, call, createAccountOn, databases, DEFAULT_ACCOUNT_ID, expectError, expectUnauthenticated, PASSWORD, SUPERVISOR, unique, type CallOptions, type CallResult } from "./helpers";
import { sharded } from "./every-database";
import { bookmarkAt, LaggingD1, positionOf } from "./replication/lagging-d1";

/**
 * Read replication (D1's Sessions API, src/db/session.ts) run through lagging replicas: the Worker
 * is given, as each of its D1 bindings, a test double (replication/lagging-d1.ts) whose replica is
 * a second real local D1 that replays the primary's writes only when a session needs it to (lag:
 * Infinity) or a set number of writes behind. Everything else is the real Worker and the real
 * migrations.
 *
 * On one database the double is DB's. Over a directory and two shards (integration-shards) every
 * database has its double, and the tests' accounts live on SHARD_2, not on the directory's
 * database: a request's directory session (DB's double) and its account's shard session (SHARD_2's)
 * are then two replicated databases, as in a deployment, and a bookmark is the shard's
 * (docs/replication.md, "Over several databases").
 */
const doubles = new Map<string, LaggingD1>();
let bindings: typeof env;
/** The database of the tests' accounts (the last of the project's), its double, and the directory's (DB's; the same on one database). */
const ACCOUNTS_ON = databases().at(-1)![0];
const shardD1 = () => doubles.get(ACCOUNTS_ON)!;
const directoryD1 = () => doubles.get("DB")!;
const replicaOf = (binding: string) => env[`REPLICA_${binding}` as "REPLICA_DB"];

beforeAll(async () => {
  for (const [binding] of databases()) await applyD1Migrations(replicaOf(binding), env.TEST_MIGRATIONS);
});

beforeEach(() => {
  // Each test starts with replicas that follow only on demand, at their primaries' current positions.
  if (doubles.size === 0) for (const [binding, database] of databases()) doubles.set(binding, new LaggingD1(database, replicaOf(binding)));
  for (const d1 of doubles.values()) d1.lag = Number.POSITIVE_INFINITY;
  bindings ??= { ...env, ...Object.fromEntries(doubles) };
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

/** Runs `request`, and answers it with the D1 calls it made on each database (the doubles' trails), by binding. */
async function traced(request: () => Promise<CallResult>): Promise<{ res: CallResult; calls: Map<string, string[]> }> {
  const from = new Map([...doubles].map(([binding, d1]) => [binding, d1.trail.length]));
  const res = await request();
  return { res, calls: new Map([...doubles].map(([binding, d1]) => [binding, d1.trail.slice(from.get(binding))])) };
}

/**
 * Runs `request` and checks that every D1 call its sessions made, on every database or on those of
 * `on`, ran where said. The binding's own calls (over several databases, the routing's questions to
 * every shard: db/shards/routing.ts) are the primary's whatever the session, as in D1, and not counted.
 */
async function ranOn(where: "primary" | "replica", request: () => Promise<CallResult>, on?: LaggingD1): Promise<CallResult> {
  const { res, calls } = await traced(request);
  const made = [...calls].filter(([binding]) => !on || doubles.get(binding) === on).flatMap(([, trail]) => trail.filter((place) => place !== "binding"));
  expect(made.length).toBeGreaterThan(0);
  for (const place of made) expect(place.split("@")[0]).toBe(where);
  return res;
}

const bookmarkOf = (res: CallResult) => res.headers.get("X-D1-Bookmark");
const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));
const as = (user: { username: string; password: string }) => ({ username: user.username, password: user.password });

/** The answer of an account's creation by `request` that landed on ACCOUNTS_ON (over several databases a few are made until one does). */
async function accountCreatedOn(request: () => Promise<CallResult>): Promise<CallResult> {
  const created = await createAccountOn(ACCOUNTS_ON, async () => {
    const res = await request();
    expect(res.status, res.text).toBe(201);
    return { id: res.json.id as string, res };
  });
  return created.res;
}

/** A new account on ACCOUNTS_ON, made through the doubles. */
async function newAccount() {
  const res = await accountCreatedOn(() => send("POST", "/api/accounts", { body: { name: unique("acct") } }));
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
    const account = await newAccount();
    const d1 = shardD1();
    expect(positionOf(account.bookmark)).toBe(d1.primaryAt);
    expect(d1.replicaAt).toBeLessThan(d1.primaryAt);

    const from = d1.trail.length;
    const stale = await ranOn("replica", () => send("GET", `/api/accounts/${account.id}`));
    expect(stale.status).toBe(404);
    // Served by the lagging replica of the account's database (over several, its shard's: the isolate
    // remembers where it placed the account it created), which has not seen the creation.
    const served = d1.trail.slice(from).filter((place) => place !== "binding");
    expect(served.length).toBeGreaterThan(0);
    for (const place of served) expect(place).toMatch(/^replica@/);
    expect(positionOf(bookmarkOf(stale)!)).toBeLessThan(positionOf(account.bookmark));

    // Over several databases: an isolate that has not placed the account asks the directory where it is.
    forgetPlacement(account.id);
    const { res: fresh, calls } = await traced(() => send("GET", `/api/accounts/${account.id}`, { bookmark: account.bookmark }));
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json.name).toBe(account.name);
    expect(bookmarkOf(fresh)).toBe(account.bookmark);
    // The account's rows are read on its shard's replica, caught up to the bookmark. Over several
    // databases the bookmark says nothing of the directory, so the locator's read of it is the primary's.
    expect(calls.get(ACCOUNTS_ON)!.length).toBeGreaterThan(0);
    for (const place of calls.get(ACCOUNTS_ON)!) expect(place).toMatch(/^replica@/);
    if (sharded()) expect(calls.get("DB")).toEqual(["primary"]);
  });

  it("a bookmark costs no round trip: every request's count is that of the real binding", async () => {
    const account = await newAccount();
    const viaReal = await call("GET", "/api/accounts");
    const viaReplica = await send("GET", "/api/accounts", { bookmark: account.bookmark });
    expect(viaReplica.status).toBe(200);
    expect(roundTrips(viaReplica)).toBe(roundTrips(viaReal));
    // Both on one database: over several, a creation on the directory's own database is one batch, on another shard two.
    const createdReal = await accountCreatedOn(() => call("POST", "/api/accounts", { body: { name: unique("acct") } }));
    const createdReplica = await accountCreatedOn(() => send("POST", "/api/accounts", { body: { name: unique("acct") }, bookmark: account.bookmark }));
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
    for (const d1 of doubles.values()) d1.lag = 1;
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
    const d1 = shardD1();
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
    // The account's list, not the user by id: over several databases the locator asks every shard's
    // primary which account holds an id (binding calls), and a deleted user is then found nowhere. The
    // isolate remembers where the account lives (placed by the deletion), so no directory read either.
    const stale = await ranOn("replica", () => send("GET", `/api/users?accountId=${account.id}`));
    expect(stale.status).toBe(200);
    expect(stale.json.content.map((u: { id: string }) => u.id)).toContain(user.id);
  });
});

describe("the X-D1-Bookmark header", () => {
  it("a malformed bookmark is a 400 naming the header, before anything is read or written", async () => {
    const positions = () => [...doubles.values()].map((d1) => d1.primaryAt);
    const at = positions();
    for (const bad of ["garbage", "00000000-0000-0000", `${bookmarkAt(1)}x`]) {
      const res = await send("POST", "/api/accounts", { body: { name: unique("acct") }, bookmark: bad });
      expectError(res, 400, "INVALID_BOOKMARK");
      expect(res.json.message).toContain("X-D1-Bookmark");
    }
    expect(positions()).toEqual(at);
  });

  it("a well-formed bookmark the database refuses (ahead of it) is a 400 too, not a 500", async () => {
    // A read of the account's shard, which takes the bookmark (over several databases a request that
    // reads only the directory, such as the list of accounts, never hands it to D1: docs/replication.md).
    const res = await send("GET", `/api/accounts/${DEFAULT_ACCOUNT_ID}`, { bookmark: bookmarkAt(directoryD1().primaryAt + 1000) });
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
    // An account's read: its shard's session answers the bookmark (over several databases, the list of accounts reads only the directory and answers none).
    const res = await call("GET", `/api/accounts/${DEFAULT_ACCOUNT_ID}`, { headers: { Origin: origin } });
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
