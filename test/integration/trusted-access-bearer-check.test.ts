import { beforeAll, describe, expect, it } from "vitest";
import { call, createAccount, createUser, expectUnauthenticated, type TestUser } from "./helpers";
import { fiscalCalendar } from "./calendar-helpers";
import { countEverywhere, runEverywhere, shardsAsked } from "./every-database";
import { bearerFor, createClient, expireToken, roundTrips, type TestClient } from "./trusted-access-helpers";

/**
 * A bearer token this isolate has verified once is trusted for who it is, and checked on every
 * request by a condition that rides on the request's first D1 round trip (src/db/round-trips.ts):
 * inside the read, as the first statement of a write's batch, or alone when the request makes no
 * D1 call. Whichever way, a revoked, expired or disabled token is refused by the next request and
 * a refused write leaves nothing.
 */
let account: { id: string; name: string };
let admin: TestUser;
let client: TestClient;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  client = await createClient();
});

/** A token whose user this isolate has already verified (its first request made the token's own round trip). */
async function knownToken() {
  const token = await bearerFor(client, admin.username);
  const first = await call("GET", "/api/users", { as: { bearer: token.bearer } });
  expect(first.status).toBe(200);
  expect(roundTrips(first)).toBe(2 + shardsAsked());
  return token;
}
const revoke = (tokenId: string) => call("DELETE", `/api/trusted-access/tokens/${tokenId}`);
const calendarCount = () => countEverywhere("SELECT count(*) AS n FROM calendars WHERE account_id = ?", account.id);

describe("a bearer token this isolate knows", () => {
  it("reads in the read's own round trip, and is refused there once revoked", async () => {
    const { bearer, tokenId } = await knownToken();
    const read = await call("GET", "/api/users", { as: { bearer } });
    expect(read.status).toBe(200);
    expect(read.json.content.length).toBeGreaterThan(0);
    expect(roundTrips(read)).toBe(1);
    expect((await revoke(tokenId)).status).toBe(204);
    expectUnauthenticated(await call("GET", "/api/users", { as: { bearer } }), "/api/users", "Bearer");
  });

  it("a read that finds nothing asks the check alone (two round trips), and tells a revoked token (401) from a missing object (404)", async () => {
    const { bearer, tokenId } = await knownToken();
    const missing = `/api/calendars/${crypto.randomUUID()}`;
    const notFound = await call("GET", missing, { as: { bearer } });
    expect(notFound.status).toBe(404);
    expect(roundTrips(notFound)).toBe(2);
    await revoke(tokenId);
    expectUnauthenticated(await call("GET", missing, { as: { bearer } }), missing, "Bearer");
  });

  it("writes with the check as the first statement of the write's batch; revoked, the batch fails whole and nothing is written", async () => {
    const { bearer, tokenId } = await knownToken();
    const created = await call("POST", "/api/calendars", { as: { bearer }, body: fiscalCalendar(`cal-${crypto.randomUUID()}`) });
    expect(created.status, created.text).toBe(201);
    expect(roundTrips(created)).toBe(1);
    const before = await calendarCount();
    await revoke(tokenId);
    const refused = await call("POST", "/api/calendars", { as: { bearer }, body: fiscalCalendar(`cal-${crypto.randomUUID()}`) });
    expectUnauthenticated(refused, "/api/calendars", "Bearer");
    expect(await calendarCount()).toBe(before);
  });

  it("a request that makes no D1 call asks the check alone before answering", async () => {
    const { bearer, tokenId } = await knownToken();
    const path = "/api/calendars/default/periods/at?date=2027-01-01";
    const answered = await call("GET", path, { as: { bearer } });
    expect(answered.status).toBe(200);
    expect(roundTrips(answered)).toBe(1);
    await revoke(tokenId);
    expectUnauthenticated(await call("GET", path, { as: { bearer } }), "/api/calendars/default/periods/at", "Bearer");
  });

  it("an expired token, or one of a disabled account, is refused the same way", async () => {
    const expiring = await knownToken();
    await expireToken(expiring.tokenId);
    expectUnauthenticated(await call("GET", "/api/calendars", { as: { bearer: expiring.bearer } }), "/api/calendars", "Bearer");

    const other = await createAccount();
    const user = await createUser(other.id, { groups: ["Users", "Administrators"] });
    const { bearer } = await bearerFor(client, user.username);
    expect((await call("GET", "/api/calendars", { as: { bearer } })).status).toBe(200);
    // Disabled behind the service's back, as another isolate would: this isolate's caches are not told.
    // (The directory's row and its shard's copy, wherever they are.)
    await runEverywhere("UPDATE accounts SET disabled = 1 WHERE id = ?", other.id);
    expectUnauthenticated(await call("GET", "/api/calendars", { as: { bearer } }), "/api/calendars", "Bearer");
  });

  it("a change of the user's groups in this isolate applies to its next request", async () => {
    const user = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const { bearer } = await bearerFor(client, user.username);
    expect((await call("GET", `/api/quota/${account.id}`, { as: { bearer } })).status).not.toBe(403);
    const demoted = await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, groups: ["Users"] } });
    expect(demoted.status, demoted.text).toBe(200);
    expect((await call("GET", `/api/quota/${account.id}`, { as: { bearer } })).status).toBe(403);
  });

  it("revoked while requests are in flight: each write either happened whole before the revocation or not at all, and every request after it is refused", async () => {
    const { bearer, tokenId } = await knownToken();
    const before = await calendarCount();
    const writes = Array.from({ length: 12 }, (_, i) => call("POST", "/api/calendars", { as: { bearer }, body: fiscalCalendar(`race-${i}-${crypto.randomUUID()}`) }));
    const revoked = revoke(tokenId);
    const statuses = (await Promise.all(writes)).map((res) => res.status);
    expect((await revoked).status).toBe(204);
    for (const status of statuses) expect([201, 401]).toContain(status);
    expect(await calendarCount()).toBe(before + statuses.filter((s) => s === 201).length);
    const after = await Promise.all(Array.from({ length: 6 }, () => call("GET", "/api/calendars", { as: { bearer } })));
    for (const res of after) expect(res.status).toBe(401);
  });
});
