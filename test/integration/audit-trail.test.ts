import { describe, expect, it } from "vitest";
import { eventsOf } from "./audit-helpers";
import { allEverywhere, countEverywhere, runEverywhere } from "./every-database";
import { calendarPath, calendarsPath, monthShiftCalendar, roundTrips } from "./calendar-helpers";
import { as, call, createAccount, createUser, unique } from "./helpers";

describe("audit trail: events ride in the write's batch", () => {
  it("records a calendar's create, update and delete with the right actor, target and changes, at no extra round trip", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Administrators"] });
    const name = unique("cal");
    const created = await call("POST", calendarsPath, { as: as(admin), body: monthShiftCalendar(name, -3) });
    expect(created.status).toBe(201);
    const id = created.json.id;
    const [create] = await eventsOf(created);
    expect(create).toMatchObject({ accountId: account.id, action: "calendar.create", actorType: "USER", actorId: admin.id, actorName: admin.username, actorAuthentication: "BASIC", targetType: "calendar", targetId: id, targetName: name });

    const updated = await call("PUT", calendarPath(id), { as: as(admin), body: { ...monthShiftCalendar(name, 2), id } });
    expect(updated.status, updated.text).toBe(200);
    expect(roundTrips(updated)).toBe(2);
    const events = await eventsOf(updated);
    expect(events).toHaveLength(1);
    expect(events[0]!.changes).toEqual([{ member: "monthShift", before: -3, after: 2 }]);

    // A lost If-Match changes nothing, so it records nothing.
    const stale = await call("PUT", calendarPath(id), { as: as(admin), body: { ...monthShiftCalendar(name, 4), id }, headers: { "If-Match": created.headers.get("ETag")! } });
    expect(stale.status).toBe(412);
    expect(await eventsOf(stale)).toEqual([]);

    const deleted = await call("DELETE", calendarPath(id), { as: as(admin) });
    expect(deleted.status).toBe(204);
    expect(await eventsOf(deleted)).toMatchObject([{ action: "calendar.delete", targetId: id }]);
  });
});

describe("audit trail: reading, export, retention, secrets", () => {
  it("lists an account's events to its administrators, filtered, and hides another account's", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Administrators"] });
    const other = await createAccount();
    const cal = await call("POST", calendarsPath, { as: as(admin), body: monthShiftCalendar(unique("cal")) });
    const page = await call("GET", "/api/audit-events?action=calendar.*&maxResults=200", { as: as(admin) });
    expect(page.status, page.text).toBe(200);
    expect(page.json.content.map((e: any) => e.target.id)).toEqual([cal.json.id]);
    expect(roundTrips(page)).toBe(1);
    const mine = await call("GET", `/api/audit-events?accountId=${other.id}`, { as: as(admin) });
    expect(mine.status).toBe(403);
    const theirs = await call("GET", `/api/audit-events?accountId=${other.id}&maxResults=1`);
    const hidden = await call("GET", `/api/audit-events/${theirs.json.content[0].id}`, { as: as(admin) });
    expect(hidden.status).toBe(404);
    const stream = await call("GET", "/api/audit-events?action=calendar.create", { as: as(admin), headers: { Accept: "application/x-ndjson" } });
    expect(stream.status).toBe(200);
    const lines = stream.text.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toMatchObject([{ class_uid: 6003, activity_id: 1, api: { operation: "calendar.create" } }]);
  });

  it("the scheduled handler prunes events past AUDIT_RETENTION_DAYS", async () => {
    const { env } = await import("cloudflare:workers");
    const { createScheduledController } = await import("cloudflare:test");
    const worker = (await import("../../src/index")).default;
    const old = "00000000010000000000000000";
    // On every database (over several, each is pruned: docs/sharding.md).
    await runEverywhere("INSERT INTO audit_events (id, time, actor_type, actor_name, actor_authentication, action, target_type, request_id) VALUES (?, '1970-01-01T00:00:00Z', 'SUPERVISOR', 's', 'BASIC', 'account.create', 'account', 'r')", old);
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "17 * * * *" }), env as never);
    expect(await countEverywhere("SELECT count(*) AS n FROM audit_events WHERE id = ?", old)).toBe(0);
  });

  it("stores no secret: passwords and client secrets never appear in any event", async () => {
    const account = await createAccount();
    const password = `pw-${unique("secret")}`;
    const user = await createUser(account.id, { password });
    const newPassword = `pw-${unique("secret2")}`;
    const put = await call("PUT", `/api/users/${user.id}`, { body: { id: user.id, name: user.username, password: newPassword, groups: ["Users"], roles: [] } });
    expect(put.status, put.text).toBe(200);
    const client = await call("POST", "/api/trusted-access/clients", { body: { client_name: unique("client"), access_token_validity_seconds: 3600 } });
    const rotated = await call("POST", `/api/trusted-access/clients/${client.json.client_id}/secret`, { body: { grace_period_seconds: 0, client_secret_expires_at: 0 } });
    const results = await allEverywhere("SELECT * FROM audit_events");
    const stored = JSON.stringify(results);
    for (const secret of [password, newPassword, client.json.client_secret, rotated.json?.client_secret].filter(Boolean)) expect(stored).not.toContain(secret);
    expect((await eventsOf(put))[0]!.changes).toContainEqual({ member: "password", changed: true });
  });
});
