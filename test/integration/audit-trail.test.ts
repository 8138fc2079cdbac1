import { describe, expect, it } from "vitest";
import { eventsOf } from "./audit-helpers";
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
