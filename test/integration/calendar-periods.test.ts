import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, type TestUser } from "./helpers";
import { calendarPath, createCalendar, fiscalCalendar, monthShiftCalendar, roundTrips } from "./calendar-helpers";

/**
 * The periods of a calendar: lists over a range, the periods at a date, the built-in calendar
 * under `default`, the 10,000-period cap, bad dates naming the query member, D1 round trips.
 * (The arithmetic itself is property-tested in test/unit/calendar/.)
 */
let user: TestUser;
let retail: string;
let shifted: string;

beforeAll(async () => {
  const account = await createAccount();
  const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  user = await createUser(account.id);
  // The worked example of docs/calendars.md: 4-4-5 quarters, the year ending on the last Saturday of December.
  retail = (await createCalendar(admin, fiscalCalendar("Retail 4-4-5"))).id;
  shifted = (await createCalendar(admin, monthShiftCalendar("April to March", 3))).id;
});

const periods = (calendarId: string, query: string) => call("GET", `${calendarPath(calendarId)}/periods?${query}`, { as: as(user) });
const at = (calendarId: string, date: string) => call("GET", `${calendarPath(calendarId)}/periods/at?date=${encodeURIComponent(date)}`, { as: as(user) });
const brief = (p: { name: string; start: string; end: string; weeks: number | null }) => `${p.name} ${p.start}..${p.end} ${p.weeks}`;

describe("listing periods", () => {
  it("the worked 4-4-5 example: FY2026 runs 2025-12-28..2026-12-26, months of 4, 4 and 5 weeks", async () => {
    const years = await periods(retail, "from=2026-01-01&to=2026-12-26&type=YEAR");
    expect(years.status, years.text).toBe(200);
    expect(years.headers.get("X-API-Stability")).toBe("experimental");
    expect(years.json).toEqual({
      content: [{ type: "YEAR", name: "FY2026", start: "2025-12-28", end: "2026-12-27", year: 2026, number: 1, weeks: 52 }],
    });
    const quarters = await periods(retail, "from=2026-01-01&to=2026-12-26&type=QUARTER");
    expect(quarters.json.content.map(brief)).toEqual([
      "FY2026 Q1 2025-12-28..2026-03-29 13",
      "FY2026 Q2 2026-03-29..2026-06-28 13",
      "FY2026 Q3 2026-06-28..2026-09-27 13",
      "FY2026 Q4 2026-09-27..2026-12-27 13",
    ]);
    const months = await periods(retail, "from=2026-01-01&to=2026-03-31&type=MONTH");
    expect(months.json.content.map(brief)).toEqual([
      "FY2026 M01 2025-12-28..2026-01-25 4",
      "FY2026 M02 2026-01-25..2026-02-22 4",
      "FY2026 M03 2026-02-22..2026-03-29 5",
      "FY2026 M04 2026-03-29..2026-04-26 4",
    ]);
  });

  it("a 53-week year gives its leap week to the month named by leapWeekInMonth (FY2028, month 12: 6 weeks)", async () => {
    const year = await periods(retail, "from=2028-06-01&to=2028-06-01&type=YEAR");
    expect(year.json.content.map(brief)).toEqual(["FY2028 2027-12-26..2028-12-31 53"]);
    const december = await periods(retail, "from=2028-12-01&to=2028-12-01&type=MONTH");
    expect(december.json.content.map(brief)).toEqual(["FY2028 M12 2028-11-19..2028-12-31 6"]);
    const lastWeek = await periods(retail, "from=2028-12-30&to=2028-12-30&type=WEEK");
    expect(lastWeek.json.content.map(brief)).toEqual(["FY2028 W53 2028-12-24..2028-12-31 1"]);
  });

  it("MONTH_SHIFT +3: the year starts on 1 April and is named after the year it ends in", async () => {
    const res = await periods(shifted, "from=2027-03-31&to=2027-04-01&type=QUARTER");
    expect(res.json.content.map((p: { name: string; start: string; end: string }) => `${p.name} ${p.start}..${p.end}`)).toEqual([
      "FY2027 Q4 2027-01-01..2027-04-01",
      "FY2028 Q1 2027-04-01..2027-07-01",
    ]);
    expect(res.json.content[0].weeks).toBeNull();
  });

  it("the built-in calendar answers under `default`, with no D1 round trip", async () => {
    await periods("default", "from=2027-01-01&to=2027-01-01&type=YEAR"); // warms the credential cache
    const res = await periods("default", "from=2027-01-01&to=2027-12-31&type=QUARTER");
    expect(res.json.content.map((p: { name: string }) => p.name)).toEqual(["2027 Q1", "2027 Q2", "2027 Q3", "2027 Q4"]);
    expect(roundTrips(res)).toBe(0);
    const weeks = await periods("default", "from=2026-12-28&to=2027-01-10&type=WEEK");
    expect(weeks.json.content.map(brief)).toEqual(["2026 W53 2026-12-28..2027-01-04 1", "2027 W01 2027-01-04..2027-01-11 1"]);
  });

  it("ten years of DAY periods (3,650) in one D1 round trip; ranges are inclusive and overlap-based", async () => {
    const res = await periods(retail, "from=2015-01-01&to=2024-12-28&type=DAY");
    expect(res.status).toBe(200);
    expect(res.json.content).toHaveLength(3650);
    expect(res.json.content[0]).toEqual({ type: "DAY", name: "2015-01-01", start: "2015-01-01", end: "2015-01-02", year: 2015, number: 5, weeks: null });
    expect(res.json.content.at(-1).start).toBe("2024-12-28");
    expect(roundTrips(res)).toBe(1);
    // A range inside one month still lists that month.
    const month = await periods(shifted, "from=2027-05-10&to=2027-05-11&type=MONTH");
    expect(month.json.content.map((p: { name: string }) => p.name)).toEqual(["FY2028 M02"]);
  });

  it("lists up to 10,000 periods; one more is 400 TOO_MANY_PERIODS with the count in the message", async () => {
    // 2000-01-01 + 9,999 days = 2027-05-18.
    const most = await periods("default", "from=2000-01-01&to=2027-05-18&type=DAY");
    expect(most.status).toBe(200);
    expect(most.json.content).toHaveLength(10_000);
    const before = await dbSnapshot();
    const tooMany = await periods(retail, "from=2000-01-01&to=2027-05-19&type=DAY");
    const body = expectError(tooMany, 400, "TOO_MANY_PERIODS", ["query.to"]);
    expect(body.message).toContain("10001 DAY periods");
    expect(body.message).toContain("10000");
    expect(tooMany.headers.get("X-API-Stability")).toBe("experimental");
    // The whole supported range of years is fine.
    const years = await periods(retail, "from=0003-01-01&to=9997-12-31&type=YEAR");
    expect(years.status).toBe(200);
    expect(years.json.content).toHaveLength(9996);
    expect(await dbSnapshot()).toEqual(before);
  });

  const BAD_QUERIES: [string, string, string[]][] = [
    ["from missing", "to=2027-01-01&type=DAY", ["query.from"]],
    ["to missing", "from=2027-01-01&type=DAY", ["query.to"]],
    ["type missing", "from=2027-01-01&to=2027-01-02", ["query.type"]],
    ["type unknown", "from=2027-01-01&to=2027-01-02&type=FORTNIGHT", ["query.type"]],
    ["type in lower case", "from=2027-01-01&to=2027-01-02&type=day", ["query.type"]],
    ["from not a date", "from=yesterday&to=2027-01-02&type=DAY", ["query.from"]],
    ["from with a time", "from=2027-01-01T00:00:00Z&to=2027-01-02&type=DAY", ["query.from"]],
    ["to without dashes", "from=2027-01-01&to=20270102&type=DAY", ["query.to"]],
    ["to on 30 February", "from=2027-01-01&to=2027-02-30&type=DAY", ["query.to"]],
    ["from in month 13", "from=2027-13-01&to=2027-12-31&type=DAY", ["query.from"]],
    ["from before the supported dates", "from=0001-06-01&to=2027-12-31&type=YEAR", ["query.from"]],
    ["to after the supported dates", "from=2027-01-01&to=9999-01-01&type=YEAR", ["query.to"]],
    ["reversed range", "from=2027-02-01&to=2027-01-31&type=DAY", ["query.to"]],
  ];

  it.each(BAD_QUERIES)("%s: 400 naming the member", async (_title, query, names) => {
    for (const id of [retail, "default"]) expectError(await periods(id, query), 400, "VALIDATION_FAILED", names);
  });

  it("an unknown calendar is 404", async () => {
    expectError(await periods(crypto.randomUUID(), "from=2027-01-01&to=2027-01-02&type=DAY"), 404, "NOT_FOUND");
  });
});

describe("the periods at a date", () => {
  it("answers the year, quarter, month and week containing the date, in one D1 round trip", async () => {
    await at(retail, "2026-03-15");
    const res = await at(retail, "2026-03-15");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
    expect(res.json).toEqual({
      date: "2026-03-15",
      year: { type: "YEAR", name: "FY2026", start: "2025-12-28", end: "2026-12-27", year: 2026, number: 1, weeks: 52 },
      quarter: { type: "QUARTER", name: "FY2026 Q1", start: "2025-12-28", end: "2026-03-29", year: 2026, number: 1, weeks: 13 },
      month: { type: "MONTH", name: "FY2026 M03", start: "2026-02-22", end: "2026-03-29", year: 2026, number: 3, weeks: 5 },
      week: { type: "WEEK", name: "FY2026 W12", start: "2026-03-15", end: "2026-03-22", year: 2026, number: 12, weeks: 1 },
    });
    expect(roundTrips(res)).toBe(1);
  });

  it("the built-in calendar: calendar years and ISO weeks, with no D1 round trip", async () => {
    const res = await at("default", "2027-01-01");
    expect(res.json.year.name).toBe("2027");
    expect(res.json.quarter.name).toBe("2027 Q1");
    expect(res.json.month.name).toBe("2027 M01");
    // 2027-01-01 is a Friday: ISO week 53 of 2026.
    expect(res.json.week).toMatchObject({ name: "2026 W53", year: 2026, number: 53, start: "2026-12-28" });
    expect(roundTrips(res)).toBe(0);
  });

  it.each([
    ["missing", "", ["query.date"]],
    ["not a date", "tomorrow", ["query.date"]],
    ["29 February of a common year", "2027-02-29", ["query.date"]],
    ["out of the supported dates", "9998-01-01", ["query.date"]],
  ])("a date %s is 400 naming query.date", async (_title, date, names) => {
    const path = `${calendarPath(retail)}/periods/at${date ? `?date=${date}` : ""}`;
    expectError(await call("GET", path, { as: as(user) }), 400, "VALIDATION_FAILED", names);
  });
});
