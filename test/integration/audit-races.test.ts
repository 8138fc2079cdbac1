import { describe, expect, it } from "vitest";
import { eventsOf } from "./audit-helpers";
import { calendarPath, calendarsPath, monthShiftCalendar } from "./calendar-helpers";
import { makeFolder } from "./folder-helpers";
import { as, call, createAccount, createUser, expectError, unique, withinOneThrottleWindow } from "./helpers";
import { createSource } from "./source-helpers";
import { allEverywhere } from "./every-database";

type StoredEvent = { id: string; action: string; targetId: string | null; requestId: string; changes: string | null };

/**
 * The stored events that `where` selects, on every database (an account's events live on its shard,
 * those outside any account in the directory: docs/sharding.md), in the order of their ids.
 */
async function storedEvents(where: string, ...params: unknown[]): Promise<StoredEvent[]> {
  const rows = (await allEverywhere(`SELECT id, action, target_id AS targetId, request_id AS requestId, changes FROM audit_events WHERE ${where}`, ...params)) as StoredEvent[];
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

describe("audit trail under concurrency: events exactly for the writes that committed", () => {
  it("20 simultaneous creates against a quota of 3: three sources, three source.create events, none for the refused", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    expect((await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 3 }] } })).status).toBeLessThan(300);
    // Warm the credential cache: the creates then race on the database, not on password hashing.
    expect((await call("GET", "/api/sources", { as: as(admin) })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call("POST", "/api/sources", { as: as(admin), body: { name: `audit-race-${i}` } })));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) {
      expectError(r, 409, "QUOTA_EXCEEDED");
      expect(await eventsOf(r)).toEqual([]);
    }
    const events = await storedEvents("account_id = ? AND action = 'source.create'", account.id);
    expect(events.map((e) => e.targetId).sort()).toEqual(created.map((r) => r.json.id).sort());
    expect(events.map((e) => e.requestId).sort()).toEqual(created.map((r) => r.headers.get("X-Request-Id")).sort());
  });

  it("10 simultaneous updates with the same If-Match: one wins, one calendar.update event", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const name = unique("cal");
    const made = await call("POST", calendarsPath, { as: as(admin), body: monthShiftCalendar(name, -3) });
    expect(made.status).toBe(201);
    const etag = made.headers.get("ETag")!;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call("PUT", calendarPath(made.json.id), { as: as(admin), body: { ...monthShiftCalendar(name, i + 1), id: made.json.id }, headers: { "If-Match": etag } }),
      ),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 412, "PRECONDITION_FAILED");
    const updates = await storedEvents("target_id = ? AND action = 'calendar.update'", made.json.id);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.requestId).toBe(won[0]!.headers.get("X-Request-Id"));
    expect(JSON.parse(updates[0]!.changes!)).toEqual([{ member: "monthShift", before: -3, after: won[0]!.json.monthShift }]);
  });
});

describe("audit trail of membership and ownership changes", () => {
  it("PUT /api/accounts/{id}/admins records one user.update per promoted or demoted user", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const leaving = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const joining = await createUser(account.id, { groups: ["Users"] });
    const res = await call("PUT", `/api/accounts/${account.id}/admins`, { as: as(admin), body: [{ id: admin.id }, { id: joining.id }] });
    expect(res.status, res.text).toBe(200);
    const events = await eventsOf(res);
    expect(events).toHaveLength(2);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "user.update", accountId: account.id, targetId: joining.id, changes: [{ member: "administrator", before: false, after: true }] }),
        expect.objectContaining({ action: "user.update", accountId: account.id, targetId: leaving.id, changes: [{ member: "administrator", before: true, after: false }] }),
      ]),
    );
    // The same list again changes nothing and records nothing.
    const again = await call("PUT", `/api/accounts/${account.id}/admins`, { as: as(admin), body: [{ id: admin.id }, { id: joining.id }] });
    expect(again.status).toBe(200);
    expect(await eventsOf(again)).toEqual([]);
  });

  it("DELETE /api/users/{id}?transferTo records one <type>.update of ownerUserId per moved object, then the user.delete", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const frank = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const heir = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const source = await createSource(frank);
    const folder = await makeFolder(frank, "Handed over");
    const res = await call("DELETE", `/api/users/${frank.id}?transferTo=${heir.id}`, { as: as(admin) });
    expect(res.status, res.text).toBe(204);
    const events = await eventsOf(res);
    const moved = { member: "ownerUserId", before: frank.id, after: heir.id };
    expect(events).toHaveLength(3);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "source.update", targetType: "source", targetId: source.id, changes: [moved] }),
        expect.objectContaining({ action: "folder.update", targetType: "folder", targetId: folder.id, changes: [moved] }),
        expect.objectContaining({ action: "user.delete", targetType: "user", targetId: frank.id }),
      ]),
    );
    // A refused delete (owns objects, no transferTo) records nothing.
    const owner = await createUser(account.id, { groups: ["Users", "Administrators"] });
    await createSource(owner);
    const refused = await call("DELETE", `/api/users/${owner.id}`, { as: as(admin) });
    expectError(refused, 409, "USER_OWNS_OBJECTS");
    expect(await eventsOf(refused)).toEqual([]);
  });
});

describe("audit trail of a login lock-out", () => {
  it("the first 429 of a throttle window records login.lock-out once; the failures before it and the 429s after it record nothing", async () => {
    const account = await createAccount();
    const victim = await createUser(account.id, { name: unique("locked"), groups: ["Users"] });
    const wrong = { username: victim.username, password: "not the password" };
    const from = { "CF-Connecting-IP": "198.51.100.188" };
    await withinOneThrottleWindow();
    for (let i = 0; i < 10; i++) {
      const failed = await call("GET", "/api/users", { as: wrong, headers: from });
      expect(failed.status).toBe(401);
      expect(await eventsOf(failed)).toEqual([]);
    }
    const first = await call("GET", "/api/users", { as: wrong, headers: from });
    expectError(first, 429, "TOO_MANY_LOGIN_ATTEMPTS");
    for (let i = 0; i < 3; i++) expectError(await call("GET", "/api/users", { as: wrong, headers: from }), 429, "TOO_MANY_LOGIN_ATTEMPTS");
    const lockOuts = await storedEvents("action = 'login.lock-out' AND target_name = ?", victim.username);
    expect(lockOuts).toHaveLength(1);
    expect(lockOuts[0]!.requestId).toBe(first.headers.get("X-Request-Id"));
  }, 45_000);
});
