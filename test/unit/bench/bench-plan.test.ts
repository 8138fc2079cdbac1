import { describe, expect, it } from "vitest";
import { compilePlan, type Sample } from "../../../scripts/bench-plan.mjs";

/** Two recordings of a guarded update (`read`, then one batch), as EXPOSE_D1_STATEMENTS records them. */
function update(n: number, id: string, revisionRead: string, revisionNew: string, at: string): Sample {
  const name = `Calendar_BenchMark_${n}`;
  return {
    request: { path: "/api/calendars/cal-1?x=1", body: { name, type: "MONTH_SHIFT" } },
    trips: [
      { call: "raw", session: "first-primary", statements: [{ sql: "select id, revision from calendars where id = ?", params: ["cal-1"] }], rows: [[{ 0: "cal-1", 1: revisionRead }]] },
      {
        call: "batch",
        session: "first-primary",
        statements: [
          { sql: "insert into audit (id, at) values (?, ?)", params: [id, at] },
          {
            sql: "update calendars set name = ?, body = ?, revision = ? where id = ? and revision = ? and revision in (select value from json_each(?))",
            params: [name, `{"name":"${name}","id":"${id}"}`, revisionNew, "cal-1", revisionRead, `["${revisionRead}"]`],
          },
        ],
      },
    ],
  };
}

describe("bench floor plans (scripts/bench-plan.mjs)", () => {
  const a = update(1, "0b7f3d2e-1c4a-4f6b-9a2d-3e5f7a9c1b2d", "rev-a", "rev-b", "2026-11-25T01:00:00.000Z");
  const b = update(2, "5e1d9c8b-7a6f-4e3d-8c2b-1a0f9e8d7c6b", "rev-b", "rev-c", "2026-11-25T01:00:01.000Z");
  const plan = compilePlan(a, b);
  const [audit, write] = plan.trips[1]!.statements;

  it("keeps what both requests bound alike as constants", () => {
    expect(plan.varies).toBe(false);
    expect(plan.trips[0]!.statements[0]!.params).toEqual([{ c: "cal-1" }]);
    expect(write!.params[3]).toEqual({ c: "cal-1" });
  });

  it("opens the floor's D1 session where the service's started", () => {
    expect(plan.trips.map((trip) => trip.session)).toEqual(["first-primary", "first-primary"]);
  });

  it("takes a value the request read earlier from the floor's own read", () => {
    expect(write!.params[4]).toEqual({ read: [0, 0, 0, "1"] });
  });

  it("takes a word read earlier, inside text, from the floor's own read (a PATCH's If-Match list)", () => {
    expect(write!.params[5]).toEqual({ t: ['["', { read: [0, 0, 0, "1"] }, '"]'] });
  });

  it("takes the request's own values from the request, and makes ids, times and tokens anew", () => {
    expect(write!.params[0]).toEqual({ k: "Calendar_BenchMark_1" });
    expect(plan.tokens["Calendar_BenchMark_1"]).toEqual({ input: 'body:["name"]' });
    expect(audit!.params).toEqual([{ k: "0b7f3d2e-1c4a-4f6b-9a2d-3e5f7a9c1b2d" }, { k: "2026-11-25T01:00:00.000Z" }]);
    expect(plan.tokens["0b7f3d2e-1c4a-4f6b-9a2d-3e5f7a9c1b2d"]).toEqual({ uuid: true });
    expect(plan.tokens["2026-11-25T01:00:00.000Z"]).toEqual({ iso: true });
    expect(plan.tokens["rev-b"]).toEqual({ unique: "rev-b" });
  });

  it("substitutes words inside text, the same value everywhere in the request", () => {
    expect(write!.params[1]).toEqual({ t: ['{"name":"', { k: "Calendar_BenchMark_1" }, '","id":"', { k: "0b7f3d2e-1c4a-4f6b-9a2d-3e5f7a9c1b2d" }, '"}'] });
  });

  it("replays the first recording as it was when the two differ in shape", () => {
    const other = { ...b, trips: b.trips.slice(0, 1) };
    const replay = compilePlan(a, other);
    expect(replay.varies).toBe(true);
    expect(replay.trips[1]!.statements[0]!.params).toEqual([{ c: a.trips[1]!.statements[0]!.params[0] }, { c: "2026-11-25T01:00:00.000Z" }]);
  });
});
