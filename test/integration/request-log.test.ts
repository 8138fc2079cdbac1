import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { as, basic, buildRequest, call, createAccount, createUser, SUPERVISOR, unique, type TestUser } from "./helpers";
import { bearerFor, createClient, pushToken, type TestClient } from "./trusted-access-helpers";

/**
 * The request log (src/middleware/request-log): one line per request, with who and how long, and
 * never a secret. Every kind of request that carries one is sent with a known value, and the whole
 * console output is searched for it.
 */
let output: string[];
let spies: ReturnType<typeof vi.spyOn>[];

beforeEach(() => {
  output = [];
  spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      output.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
    }),
  );
});
afterEach(() => spies.forEach((spy) => spy.mockRestore()));

/** The request log's lines (JSON, as wrangler.toml's LOG_FORMAT says) captured so far. */
const requestLines = () => output.filter((line) => line.includes('"message":"request"')).map((line) => JSON.parse(line));

describe("one line per request", () => {
  let account: { id: string };
  let admin: TestUser;

  beforeEach(async () => {
    account = await createAccount();
    admin = await createUser(account.id, { roles: ["ROLE_ADMIN"] });
    output.length = 0;
  });

  it("says when, what, how it ended, how long it took, who asked and how many D1 round trips", async () => {
    const res = await call("GET", "/api/users?limit=1", { as: as(admin) });
    expect(res.status).toBe(200);
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    // Where D1 served the calls, when it said (local D1 says primary for all() and run()): as the header says it.
    const servedBy = res.headers.get("X-D1-Served-By");
    const keys = ["accountId", "d1RoundTrips", "durationMs", "level", "message", "method", "path", "requestId", "status", "time", "userId", ...(servedBy ? ["d1ServedBy"] : [])];
    expect(Object.keys(line).sort()).toEqual(keys.sort());
    expect(line.d1ServedBy).toBe(servedBy ?? undefined);
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/api/users", status: 200, requestId: res.headers.get("X-Request-Id"), accountId: account.id, userId: admin.id });
    expect(line.d1RoundTrips).toBe(Number(res.headers.get("X-D1-Round-Trips")));
    expect(line.d1RoundTrips).toBeGreaterThan(0);
    expect(Number.isInteger(line.durationMs) && line.durationMs >= 0).toBe(true);
    expect(Math.abs(Date.parse(line.time) - Date.now())).toBeLessThan(60_000);
  });

  it("logs refusals and unknown routes too, with no one named when no one authenticated", async () => {
    await call("GET", "/api/users", { as: null });
    await call("GET", "/api/no-such-thing", { as: SUPERVISOR });
    await call("GET", "/api/users", { as: SUPERVISOR });
    expect(requestLines().map(({ status, path, userId, accountId }) => ({ status, path, userId, accountId }))).toEqual([
      { status: 401, path: "/api/users", userId: undefined, accountId: undefined },
      { status: 404, path: "/api/no-such-thing", userId: "supervisor", accountId: undefined },
      { status: 200, path: "/api/users", userId: "supervisor", accountId: undefined },
    ]);
  });
});

describe("LOG_FORMAT none", () => {
  it("writes no line for an answer below 500, and the answer is the same", async () => {
    const app = await createApp();
    const send = async (bindings: typeof env, path: string) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(buildRequest("GET", path, {}), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return { status: response.status, text: await response.text() };
    };
    const quiet = { ...env, LOG_FORMAT: "none" };
    output.length = 0;
    const answers = [await send(quiet, "/api/accounts?limit=1"), await send(quiet, "/api/no-such-route")];
    expect(answers.map((a) => a.status)).toEqual([200, 404]);
    expect(requestLines()).toEqual([]);
    await send({ ...env, LOG_FORMAT: "json" }, "/api/no-such-route");
    expect(requestLines()).toHaveLength(1);
  });
});

describe("no secret ever reaches the log", () => {
  it("whatever request carries it: Basic, Bearer, token endpoints, bodies, connection secrets, query strings, paths", async () => {
    const account = (await createAccount()) as { id: string; name: string };
    const admin = await createUser(account.id, { roles: ["ROLE_ADMIN"], password: "Admin-Pass-Secret-4417" });
    const client: TestClient = await createClient();
    output.length = 0;
    const secrets = new Set<string>([admin.password, client.clientSecret, SUPERVISOR.password]);

    // Basic, right and wrong, and the Authorization header itself.
    await call("GET", "/api/user", { as: as(admin) });
    secrets.add(basic(admin.username, admin.password).slice("Basic ".length));
    await call("GET", "/api/user", { as: { username: admin.username, password: "Wrong-Pass-Secret-9051" } });
    secrets.add("Wrong-Pass-Secret-9051");

    // Token endpoints: the client's secret in, a token out; then the token used, and revoked by itself in the path.
    const pushed = await pushToken(client.credentials, { username: unique("pushed"), account: account.name });
    expect(pushed.status).toBe(200);
    secrets.add(pushed.json.access_token);
    const { bearer } = await bearerFor(client, admin.username);
    secrets.add(bearer);
    expect((await call("GET", "/api/user", { as: { bearer } })).status).toBe(200);
    await call("GET", "/api/user", { as: { bearer: "not-a-real-token-Secret-3318" } });
    secrets.add("not-a-real-token-Secret-3318");
    expect((await call("DELETE", `/api/trusted-access/tokens/${encodeURIComponent(bearer)}`)).status).toBe(204);

    // Bodies: a user's password; a connection's secret parameter, created and validated.
    const created = await call("POST", "/api/users", { as: as(admin), body: { name: unique("u"), password: "New-User-Pass-Secret-2207", groups: ["Users"] } });
    expect(created.status).toBe(201);
    secrets.add("New-User-Pass-Secret-2207");
    const parameters = [
      { key: "host", value: "127.0.0.1" },
      { key: "port", value: "1" },
      { key: "database", value: "db" },
      { key: "user", value: "someone" },
      { key: "password", value: "Connection-Secret-7719" },
      { key: "sslmode", value: "disable" },
    ];
    secrets.add("Connection-Secret-7719");
    await call("POST", "/api/connections", { as: as(admin), body: { name: unique("c"), connectionTypeId: "postgresql", allParameters: parameters } });
    await call("POST", "/api/connections/validate", { as: as(admin), body: { connectionTypeId: "postgresql", allParameters: parameters } });

    // Query strings that carry secrets (clients do this: ?access_token=, ?password=), and a malformed body around one.
    await call("GET", "/api/users?access_token=Query-Token-Secret-5521&password=Query-Pass-Secret-6630", { as: as(admin) });
    secrets.add("Query-Token-Secret-5521").add("Query-Pass-Secret-6630");
    await call("POST", "/api/users", { as: as(admin), rawBody: '{"name":"x","password":"Malformed-Body-Secret-8812"', headers: { "Content-Type": "application/json" } });
    secrets.add("Malformed-Body-Secret-8812");

    expect(requestLines().length).toBe(12);
    const log = output.join("\n");
    for (const secret of secrets) expect(log, `the log contains ${secret}`).not.toContain(secret);
    // The revocation's path names the token by `{token}`.
    expect(requestLines().find((line) => line.method === "DELETE")?.path).toBe("/api/trusted-access/tokens/{token}");
  });
});
