import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_PBKDF2_ITERATIONS_PER_CALL, hashPassword, pbkdf2, sha256Hex } from "../../src/domain/passwords";
import {
  as,
  basic,
  call,
  createAccount,
  createUser,
  databaseOf,
  expectError,
  expectUnauthenticated,
  ROUTING_TRIPS,
  SUPERVISOR,
  unique,
  withinOneThrottleWindow,
  type TestUser,
} from "./helpers";
import { nameAsked } from "./every-database";
import { bearerFor, createClient, expireToken } from "./trusted-access-helpers";

let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

describe("authentication: Basic", () => {
  it("without Authorization: 401 ServletErrorMessage with a Basic challenge", async () => {
    const res = await call("GET", "/api/accounts", { as: null });
    expectUnauthenticated(res, "/api/accounts");
  });

  it.each([
    ["a bare scheme", "Basic"],
    ["non-base64", "Basic !!!not-base64!!!"],
    ["no colon", `Basic ${btoa("no-colon-here")}`],
    ["an empty username", `Basic ${btoa(":password")}`],
    ["invalid UTF-8", `Basic ${btoa(String.fromCharCode(0xff, 0xfe, 0x3a, 0x41))}`],
    ["an unknown scheme", "Digest username=x"],
    ["garbage", "x"],
  ])("with a malformed header (%s): 401", async (_label, header) => {
    const res = await call("GET", "/api/accounts", { as: null, headers: { Authorization: header } });
    expectUnauthenticated(res, "/api/accounts");
  });

  it("with a wrong password: 401", async () => {
    expectUnauthenticated(await call("GET", "/api/users", { as: { username: admin.username, password: "wrong password" } }), "/api/users");
    expectUnauthenticated(await call("GET", "/api/accounts", { as: { username: SUPERVISOR.username, password: "wrong" } }), "/api/accounts");
  });

  it("with an unknown user: 401", async () => {
    expectUnauthenticated(await call("GET", "/api/users", { as: { username: unique("ghost"), password: "whatever1" } }), "/api/users");
  });

  it("with the right password: in", async () => {
    expect((await call("GET", "/api/users", { as: as(admin) })).status).toBe(200);
    expect((await call("GET", "/api/users", { as: as(admin), headers: { Authorization: basic(admin.username, admin.password).replace("Basic", "basic") } })).status).toBe(200);
  });

  it("the public routes need no credentials", async () => {
    expect((await call("GET", "/api/health", { as: null })).status).toBe(200);
    expect((await call("GET", "/api/openapi.json", { as: null })).status).toBe(200);
  });
});

describe("authentication: Bearer", () => {
  it("an unknown token: 401 with a Bearer challenge", async () => {
    const res = await call("GET", "/api/users", { as: { bearer: "unknown-token-0123456789abcdef" } });
    expectUnauthenticated(res, "/api/users", "Bearer");
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    expectUnauthenticated(await call("GET", "/api/users", { as: { bearer: "short" } }), "/api/users", "Bearer");
  });

  it("an issued token authenticates its user until it expires", async () => {
    const client = await createClient();
    const { bearer, tokenId } = await bearerFor(client, admin.username);
    const expired = await bearerFor(client, admin.username);
    await expireToken(expired.tokenId);

    const ok = await call("GET", "/api/users", { as: { bearer } });
    expect(ok.status).toBe(200);
    for (const user of ok.json.content) expect(user.accountId).toBe(account.id);
    expectUnauthenticated(await call("GET", "/api/users", { as: { bearer: expired.bearer } }), "/api/users", "Bearer");
    // Only the digest is stored (with the user, on its account's database).
    const stored = await (await databaseOf(account.id)).prepare("SELECT token_hash FROM access_tokens WHERE token_id = ?").bind(tokenId).first<{ token_hash: string }>();
    expect(stored!.token_hash).toBe(await sha256Hex(bearer));
  });
});

describe("authentication: login throttle, per client address", () => {
  const from = (address: string) => ({ "CF-Connecting-IP": address });

  it("10 failures for a name from one address make that address wait (429 with Retry-After), even with the right password", async () => {
    const victim = await createUser(account.id, { name: unique("throttled"), groups: ["Users", "Administrators"] });
    await withinOneThrottleWindow();
    const wrong = { username: victim.username, password: "not the password" };
    for (let i = 0; i < 10; i++) {
      expectUnauthenticated(await call("GET", "/api/users", { as: wrong, headers: from("198.51.100.7") }), "/api/users");
    }
    const limited = await call("GET", "/api/users", { as: wrong, headers: from("198.51.100.7") });
    expectError(limited, 429, "TOO_MANY_LOGIN_ATTEMPTS");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectError(await call("GET", "/api/users", { as: as(victim), headers: from("198.51.100.7") }), 429, "TOO_MANY_LOGIN_ATTEMPTS");

    // A stranger's failures never lock the owner out: the right password from another address signs in.
    expect((await call("GET", "/api/users", { as: as(victim), headers: from("203.0.113.20") })).status).toBe(200);
    // Nor other names from the throttled address.
    expect((await call("GET", "/api/users", { as: as(admin), headers: from("198.51.100.7") })).status).toBe(200);
  }, 45_000);

  it("the supervisor cannot be locked out from somewhere else", async () => {
    await withinOneThrottleWindow();
    const wrong = { username: SUPERVISOR.username, password: "guess" };
    for (let i = 0; i < 11; i++) await call("GET", "/api/accounts", { as: wrong, headers: from("192.0.2.66") });
    expectError(await call("GET", "/api/accounts", { headers: from("192.0.2.66") }), 429, "TOO_MANY_LOGIN_ATTEMPTS");
    expect((await call("GET", "/api/accounts", { headers: from("192.0.2.67") })).status).toBe(200);
  }, 45_000);

  it("spraying one password over many names is throttled per address after 30 failures", async () => {
    await withinOneThrottleWindow();
    const address = from("2001:db8:aaaa:1::5");
    for (let i = 0; i < 30; i++) {
      expectUnauthenticated(await call("GET", "/api/users", { as: { username: `spray-${i}`, password: "Winter2026!" }, headers: address }), "/api/users");
    }
    expectError(await call("GET", "/api/users", { as: { username: "spray-30", password: "Winter2026!" }, headers: address }), 429, "TOO_MANY_LOGIN_ATTEMPTS");
    // The whole /64 is one subscriber: another address in it waits too; the rest of the world does not.
    expectError(await call("GET", "/api/users", { as: as(admin), headers: from("2001:db8:aaaa:1:ffff::9") }), 429, "TOO_MANY_LOGIN_ATTEMPTS");
    expect((await call("GET", "/api/users", { as: as(admin), headers: from("2001:db8:aaaa:2::5") })).status).toBe(200);
  }, 45_000);
});

describe("passwords: PBKDF2", () => {
  it("stores at most 100,000 iterations per derivation", async () => {
    const user = await createUser(account.id);
    const row = await (await databaseOf(account.id)).prepare("SELECT password_algorithm, password_iterations FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ password_algorithm: string; password_iterations: number }>();
    expect(row!.password_algorithm).toBe("PBKDF2-SHA256");
    expect(row!.password_iterations).toBeGreaterThan(0);
    expect(row!.password_iterations).toBeLessThanOrEqual(100_000);
    expect(MAX_PBKDF2_ITERATIONS_PER_CALL).toBeLessThanOrEqual(100_000);
  });

  it("refuses to derive with more than 100,000 iterations in one call", async () => {
    const salt = new Uint8Array(16);
    await expect(pbkdf2("password", salt, 100_001)).rejects.toThrow(RangeError);
    await expect(pbkdf2("password", salt, 0)).rejects.toThrow(RangeError);
    await expect(hashPassword("password", 100_001)).rejects.toThrow(RangeError);
    expect((await pbkdf2("password", salt, 100_000)).length).toBe(32);
  });

  it("the database refuses a stored iteration count above 100,000", async () => {
    // On the account's own database, where its users live: the CHECK, not a missing account, refuses it.
    const insert = (await databaseOf(account.id)).prepare(
      `INSERT INTO users (id, account_id, name, password_algorithm, password_iterations, password_salt, password_hash,
         created_by_user_id, created_date, last_modified_by_user_id, last_modified_date)
       VALUES (?, ?, ?, 'PBKDF2-SHA256', 100001, 'c2FsdA==', 'aGFzaA==', 'test', 'now', 'test', 'now')`,
    ).bind(crypto.randomUUID(), account.id, unique("too-many"));
    await expect(insert.run()).rejects.toThrow(/CHECK constraint failed/);
  });
});

describe("credential cache and D1 round trips", () => {
  /** The X-D1-Round-Trips count of a request through the real Worker. */
  const roundTrips = (res: { headers: Headers }) => {
    const header = res.headers.get("X-D1-Round-Trips");
    expect(header, "X-D1-Round-Trips").toMatch(/^\d+$/);
    return Number(header);
  };

  it("the test bindings expose X-D1-Round-Trips", () => {
    expect(env.EXPOSE_D1_ROUND_TRIPS).toBe("true");
  });

  it("the supervisor's E10 costs exactly one round trip (over several databases, plus the directory's read of the name)", async () => {
    const path = `/api/accounts/name/${encodeURIComponent(account.name)}`;
    // Over several databases the first request may place the account (one directory read, as every
    // account this isolate has not placed lately: shards/round-trips.test.ts); the second is warm.
    expect((await call("GET", path)).status).toBe(200);
    const res = await call("GET", path);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1 + ROUTING_TRIPS.accountByName);
  });

  it("a user's second request costs no D1 query for authentication; a password change costs one again", async () => {
    const user = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const path = `/api/users/${user.id}`;
    const first = await call("GET", path, { as: as(user) });
    expect(first.status).toBe(200);
    const second = await call("GET", path, { as: as(user) });
    expect(second.status).toBe(200);
    // The handler reads the user once; the first request also loaded the credentials (over several
    // databases, after asking the directory whose the name is: a cold sign-in, docs/sharding.md).
    expect(roundTrips(second)).toBe(1);
    expect(roundTrips(first)).toBe(2 + nameAsked());

    // A wrong password is never answered from the cache.
    const wrong = await call("GET", path, { as: { username: user.username, password: "wrong password" } });
    expect(wrong.status).toBe(401);
    expect(roundTrips(wrong)).toBe(1 + nameAsked());

    const changed = await call("PUT", path, {
      as: as(user),
      body: { name: user.username, groups: ["Users", "Administrators"], password: "the next password" },
    });
    expect(changed.status).toBe(200);
    expectUnauthenticated(await call("GET", path, { as: as(user) }), path);
    const fresh = await call("GET", path, { as: { username: user.username, password: "the next password" } });
    expect(fresh.status).toBe(200);
    expect(roundTrips(fresh)).toBe(2 + nameAsked());
    expect(roundTrips(await call("GET", path, { as: { username: user.username, password: "the next password" } }))).toBe(1);
  });
});
