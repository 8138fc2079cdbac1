import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, dbSnapshot, expectError, prng, type CallResult, type TestUser } from "./helpers";
import { calendarPath, calendarsPath, createCalendar, FISCAL_445_SETTINGS, fiscalCalendar, monthShiftCalendar, roundTrips } from "./calendar-helpers";

/**
 * Calendars (experimental): create, read, list, replace, delete; who may do what; every bad
 * member a 400 naming it with nothing stored; one name per account even under concurrency; the
 * per-account limit; another account's calendars do not exist; D1 round trips.
 */
let account: { id: string; name: string };
let other: { id: string; name: string };
let calendarAdmin: TestUser;
let reader: TestUser;
let accountAdmin: TestUser;
let otherAdmin: TestUser;

const CALENDAR_MEMBERS = ["auditable", "id", "monthShift", "name", "type"];
const AUDITABLE_MEMBERS = ["createdByUserId", "createdByUserName", "createdDate", "lastModifiedByUserId", "lastModifiedDate"];

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount();
  calendarAdmin = await createUser(account.id, { roles: ["ROLE_ADMINISTER_CALENDARS"] });
  reader = await createUser(account.id);
  accountAdmin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  otherAdmin = await createUser(other.id, { groups: ["Users", "Administrators"] });
});

const post = (body: unknown, user = calendarAdmin) => call("POST", calendarsPath, { as: as(user), body });
const put = (id: string, body: unknown, headers: Record<string, string> = {}, user = calendarAdmin) => call("PUT", calendarPath(id), { as: as(user), body, headers });
const remove = (id: string, headers: Record<string, string> = {}, user = calendarAdmin) => call("DELETE", calendarPath(id), { as: as(user), headers });
const get = (id: string, user = reader) => call("GET", calendarPath(id), { as: as(user) });
const list = (user = reader) => call("GET", calendarsPath, { as: as(user) });

let names = 0;
const freshName = (prefix = "Calendar") => `${prefix} ${(names++).toString().padStart(3, "0")}`;

describe("calendars: create, read, list, replace, delete", () => {
  it("creates (201, Location, ETag, auditable with the creator's name), reads it back, lists it by name", async () => {
    const name = freshName("Fiscal minus three");
    const created = await post(monthShiftCalendar(name, -3));
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(CALENDAR_MEMBERS);
    expect(Object.keys(created.json.auditable).sort()).toEqual(AUDITABLE_MEMBERS);
    expect(created.json).toMatchObject({
      type: "MONTH_SHIFT",
      name,
      monthShift: -3,
      auditable: { createdByUserId: calendarAdmin.id, createdByUserName: calendarAdmin.username, lastModifiedByUserId: calendarAdmin.id },
    });
    expect(created.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.headers.get("Location")).toBe(`/api/calendars/${created.json.id}`);
    expect(created.headers.get("X-API-Stability")).toBe("experimental");
    const etag = created.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const one = await get(created.json.id);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(created.json);
    expect(one.headers.get("ETag")).toBe(etag);
    expect(one.headers.get("X-API-Stability")).toBe("experimental");

    const listed = await list();
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.json)).toEqual(["content"]);
    expect(listed.json.content).toContainEqual(created.json);
    const listedNames = listed.json.content.map((c: { name: string }) => c.name);
    expect(listedNames).toEqual([...listedNames].sort());
  });

  it("replaces a calendar (200): another type swaps its member, the creator stays, the ETag changes; then deletes it (204, then 404)", async () => {
    const created = await createCalendar(calendarAdmin, monthShiftCalendar(freshName(), 4));
    const etag = (await get(created.id)).headers.get("ETag")!;
    const renamed = freshName("Retail");
    const replaced = await put(created.id, { id: created.id, ...fiscalCalendar(renamed) }, { "If-Match": etag }, accountAdmin);
    expect(replaced.status, replaced.text).toBe(200);
    expect(Object.keys(replaced.json).sort()).toEqual(["auditable", "fiscal445", "id", "name", "type"]);
    expect(replaced.json).toMatchObject({
      id: created.id,
      type: "FISCAL_445",
      name: renamed,
      fiscal445: FISCAL_445_SETTINGS,
      auditable: { createdByUserId: calendarAdmin.id, createdByUserName: calendarAdmin.username, createdDate: (created.auditable as { createdDate: string }).createdDate, lastModifiedByUserId: accountAdmin.id },
    });
    const newTag = replaced.headers.get("ETag")!;
    expect(newTag).not.toBe(etag);
    expect((await get(created.id)).json).toEqual(replaced.json);

    // Back to MONTH_SHIFT: fiscal445 goes away again.
    const back = await put(created.id, monthShiftCalendar(renamed, 11));
    expect(back.status).toBe(200);
    expect(back.json.monthShift).toBe(11);
    expect(back.json.fiscal445).toBeUndefined();

    expect((await remove(created.id)).status).toBe(204);
    expectError(await get(created.id), 404, "NOT_FOUND");
    expectError(await remove(created.id), 404, "NOT_FOUND");
    expect((await list()).json.content.map((c: { id: string }) => c.id)).not.toContain(created.id);
  });

  it("ignores read-only members sent (auditable) and answers a new id on create", async () => {
    const body = { ...monthShiftCalendar(freshName()), id: "chosen-by-client", auditable: { createdByUserName: "mallory" } };
    const created = await post(body);
    expect(created.status, created.text).toBe(201);
    expect(created.json.id).not.toBe("chosen-by-client");
    expect(created.json.auditable.createdByUserName).toBe(calendarAdmin.username);
  });

  it("refuses names with edge whitespace (never trimmed away), and keeps names case-sensitive", async () => {
    const base = freshName("Untrimmed");
    expectError(await post(monthShiftCalendar(`  ${base}  `)), 400, "VALIDATION_FAILED", ["body.name"]);
    expect((await post(monthShiftCalendar(base))).status).toBe(201);
    expect((await post(monthShiftCalendar(base.toUpperCase()))).status).toBe(201);
  });
});

describe("optimistic locking", () => {
  it("a stale If-Match is 412 on PUT and DELETE and changes nothing; a W/ tag never matches", async () => {
    const created = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const stale = (await get(created.id)).headers.get("ETag")!;
    expect((await put(created.id, monthShiftCalendar(created.name, 2))).status).toBe(200);
    const before = await dbSnapshot();
    expectError(await put(created.id, monthShiftCalendar(created.name, 5), { "If-Match": stale }), 412, "PRECONDITION_FAILED");
    expectError(await remove(created.id, { "If-Match": stale }), 412, "PRECONDITION_FAILED");
    const current = (await get(created.id)).headers.get("ETag")!;
    expectError(await remove(created.id, { "If-Match": `W/${current}` }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    expect((await remove(created.id, { "If-Match": current })).status).toBe(204);
  });

  it("of two concurrent replaces with the same If-Match, exactly one wins", async () => {
    const created = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const etag = (await get(created.id)).headers.get("ETag")!;
    const results = await Promise.all([1, 2, 3, 4].map((shift) => put(created.id, monthShiftCalendar(created.name, shift), { "If-Match": etag })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await get(created.id)).json.monthShift).toBe(winner.json.monthShift);
  });
});

describe("who may do what", () => {
  it("any user of the account reads; writing needs ROLE_ADMINISTER_CALENDARS (or ROLE_ADMIN)", async () => {
    const created = await createCalendar(accountAdmin, monthShiftCalendar(freshName()));
    expect((await get(created.id, reader)).status).toBe(200);
    expect((await list(reader)).status).toBe(200);
    const before = await dbSnapshot();
    expectError(await post(monthShiftCalendar(freshName()), reader), 403, "FORBIDDEN");
    expectError(await put(created.id, monthShiftCalendar(created.name, 1), {}, reader), 403, "FORBIDDEN");
    expectError(await remove(created.id, {}, reader), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("the supervisor belongs to no account: 403 on every calendar route, reads included", async () => {
    const created = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const before = await dbSnapshot();
    const attempts: CallResult[] = [
      await call("GET", calendarsPath),
      await call("GET", calendarPath(created.id)),
      await call("GET", `${calendarPath(created.id)}/periods?from=2027-01-01&to=2027-12-31&type=MONTH`),
      await call("GET", "/api/calendars/default/periods/at?date=2027-01-01"),
      await call("POST", calendarsPath, { body: monthShiftCalendar(freshName()) }),
      await call("PUT", calendarPath(created.id), { body: monthShiftCalendar(created.name, 1) }),
      await call("DELETE", calendarPath(created.id)),
    ];
    for (const res of attempts) {
      expectError(res, 403, "FORBIDDEN");
      expect(res.headers.get("X-API-Stability")).toBe("experimental");
    }
    expect(attempts[0]!.json.message).toMatch(/supervisor/);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("without credentials: 401, still marked experimental", async () => {
    const res = await call("GET", calendarsPath, { as: null });
    expect(res.status).toBe(401);
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
  });
});

describe("bad input: a 400 naming each invalid member, nothing stored", () => {
  const VALID_MONTH_SHIFT = { type: "MONTH_SHIFT", name: "Valid name", monthShift: 3 };
  const VALID_FISCAL = { type: "FISCAL_445", name: "Valid name", fiscal445: FISCAL_445_SETTINGS };
  const fiscalWith = (member: Record<string, unknown>) => ({ ...VALID_FISCAL, fiscal445: { ...FISCAL_445_SETTINGS, ...member } });
  const { leapWeekInMonth: _dropped, ...fiscalWithoutLeapWeek } = FISCAL_445_SETTINGS;

  const CASES: [string, unknown, string[]][] = [
    ["body not an object", [VALID_MONTH_SHIFT], ["body"]],
    ["type missing", { name: "x", monthShift: 3 }, ["body.type"]],
    ["type unknown", { ...VALID_MONTH_SHIFT, type: "GREGORIAN" }, ["body.type"]],
    ["type in lower case", { ...VALID_MONTH_SHIFT, type: "month_shift" }, ["body.type"]],
    ["type not a string", { ...VALID_MONTH_SHIFT, type: 1 }, ["body.type"]],
    ["name missing", { type: "MONTH_SHIFT", monthShift: 3 }, ["body.name"]],
    ["name empty", { ...VALID_MONTH_SHIFT, name: "" }, ["body.name"]],
    ["name only spaces", { ...VALID_MONTH_SHIFT, name: "   " }, ["body.name"]],
    ["name over 255 characters", { ...VALID_MONTH_SHIFT, name: "n".repeat(256) }, ["body.name"]],
    ["name with a line break", { ...VALID_MONTH_SHIFT, name: "two\nlines" }, ["body.name"]],
    ["name with NUL", { ...VALID_MONTH_SHIFT, name: "nul\u0000" }, ["body.name"]],
    ["name not a string", { ...VALID_MONTH_SHIFT, name: 42 }, ["body.name"]],
    ["monthShift zero", { ...VALID_MONTH_SHIFT, monthShift: 0 }, ["body.monthShift"]],
    ["monthShift 12", { ...VALID_MONTH_SHIFT, monthShift: 12 }, ["body.monthShift"]],
    ["monthShift -12", { ...VALID_MONTH_SHIFT, monthShift: -12 }, ["body.monthShift"]],
    ["monthShift fractional", { ...VALID_MONTH_SHIFT, monthShift: 1.5 }, ["body.monthShift"]],
    ["monthShift a string", { ...VALID_MONTH_SHIFT, monthShift: "3" }, ["body.monthShift"]],
    ["monthShift null", { ...VALID_MONTH_SHIFT, monthShift: null }, ["body.monthShift"]],
    ["MONTH_SHIFT without monthShift", { type: "MONTH_SHIFT", name: "x" }, ["body.monthShift"]],
    ["MONTH_SHIFT with fiscal445", { ...VALID_MONTH_SHIFT, fiscal445: FISCAL_445_SETTINGS }, ["body.fiscal445"]],
    ["FISCAL_445 without fiscal445", { type: "FISCAL_445", name: "x" }, ["body.fiscal445"]],
    ["FISCAL_445 with monthShift", { ...VALID_FISCAL, monthShift: 3 }, ["body.monthShift"]],
    ["FISCAL_445 with a zero monthShift", { ...VALID_FISCAL, monthShift: 0 }, ["body.monthShift"]],
    ["fiscal445 not an object", { ...VALID_FISCAL, fiscal445: "4-4-5" }, ["body.fiscal445"]],
    ["fiscal445 missing a member", { ...VALID_FISCAL, fiscal445: fiscalWithoutLeapWeek }, ["body.fiscal445.leapWeekInMonth"]],
    ["yearEndWeekDay abbreviated", fiscalWith({ yearEndWeekDay: "SAT" }), ["body.fiscal445.yearEndWeekDay"]],
    ["yearEndsInLastWeek a string", fiscalWith({ yearEndsInLastWeek: "true" }), ["body.fiscal445.yearEndsInLastWeek"]],
    ["yearEndIsoMonth a number", fiscalWith({ yearEndIsoMonth: 12 }), ["body.fiscal445.yearEndIsoMonth"]],
    ["quarterType unknown", fiscalWith({ quarterType: "QUARTER_355_WEEKS" }), ["body.fiscal445.quarterType"]],
    ["leapWeekInMonth 0", fiscalWith({ leapWeekInMonth: 0 }), ["body.fiscal445.leapWeekInMonth"]],
    ["leapWeekInMonth 13", fiscalWith({ leapWeekInMonth: 13 }), ["body.fiscal445.leapWeekInMonth"]],
    ["leapWeekInMonth fractional", fiscalWith({ leapWeekInMonth: 6.5 }), ["body.fiscal445.leapWeekInMonth"]],
    [
      "several members at once",
      { type: "FISCAL_445", name: "", fiscal445: { ...FISCAL_445_SETTINGS, quarterType: "x", leapWeekInMonth: 99 } },
      ["body.name", "body.fiscal445.quarterType", "body.fiscal445.leapWeekInMonth"],
    ],
  ];

  it.each(CASES)("%s (POST and PUT)", async (_title, body, problemNames) => {
    const existing = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const before = await dbSnapshot();
    expectError(await post(body), 400, "VALIDATION_FAILED", problemNames);
    expectError(await put(existing.id, body), 400, "VALIDATION_FAILED", problemNames);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("names the type's missing member and the other type's member, never dropping it silently", async () => {
    const res = await post({ type: "MONTH_SHIFT", name: "x", fiscal445: FISCAL_445_SETTINGS });
    const body = expectError(res, 400, "VALIDATION_FAILED", ["body.monthShift", "body.fiscal445"]);
    expect(body.problems.find((p: { name: string }) => p.name === "body.fiscal445").message).toMatch(/MONTH_SHIFT calendar has no fiscal445/);
  });

  it("a PUT whose body id names another calendar is 400 ID_MISMATCH", async () => {
    const existing = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const before = await dbSnapshot();
    expectError(await put(existing.id, { ...monthShiftCalendar(existing.name), id: crypto.randomUUID() }), 400, "ID_MISMATCH", ["body.id"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("path ids that name nothing are 404; an over-long one is 400", async () => {
    expectError(await get("no-such-calendar"), 404, "NOT_FOUND");
    expectError(await get("x".repeat(65)), 400, "VALIDATION_FAILED", ["path.calendarId"]);
  });

  it("random bodies never get a 5xx; every refusal is a documented 4xx", async () => {
    const random = prng(0xca1e_7da5);
    const pick = <T,>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const JUNK = [null, true, 0, -1, 1.5, "", "x", [], {}, [1], { a: 1 }, "💥", "\u0000", 1e308];
    const sometimes = (p: number, value: () => unknown, junk: () => unknown = () => pick(JUNK)) => (random() < p ? value() : junk());
    const fuzzBody = (i: number) => {
      const type = sometimes(0.9, () => pick(["MONTH_SHIFT", "FISCAL_445"]));
      const body: Record<string, unknown> = { type, name: sometimes(0.8, () => `Fuzz ${i % 40}`, () => pick(["n".repeat(256), "a\tb", ...JUNK])) };
      const monthShift = () => sometimes(0.8, () => pick([-11, -1, 1, 11]), () => pick([0, 12, -12, ...JUNK]));
      const fiscal445 = () => sometimes(0.8, () => FISCAL_445_SETTINGS, () => ({ ...FISCAL_445_SETTINGS, [pick(Object.keys(FISCAL_445_SETTINGS))]: pick(JUNK) }));
      if (random() < 0.9) body[type === "FISCAL_445" ? "fiscal445" : "monthShift"] = type === "FISCAL_445" ? fiscal445() : monthShift();
      if (random() < 0.1) body[type === "FISCAL_445" ? "monthShift" : "fiscal445"] = type === "FISCAL_445" ? monthShift() : fiscal445();
      // Read-only and unknown members, which are ignored; a non-string id is not.
      if (random() < 0.1) body.id = pick(JUNK);
      if (random() < 0.2) body.auditable = pick(JUNK);
      if (random() < 0.2) body.unexpected = pick(JUNK);
      return body;
    };
    const target = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const statuses = new Map<number, number>();
    for (let i = 0; i < 120; i++) {
      const body = fuzzBody(i);
      const usePut = random() < 0.5;
      const res = usePut ? await put(target.id, body) : await post(body);
      expect(res.status, `${usePut ? "PUT" : "POST"} ${JSON.stringify(body)} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
      if (res.status >= 400) expect([400, 409]).toContain(res.status);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    // Both the happy path and the refusals were exercised.
    expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(20);
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0), JSON.stringify([...statuses])).toBeGreaterThan(3);
  });
});

describe("names are unique per account", () => {
  it("a taken name is 409 DUPLICATED on POST and on a renaming PUT; another account may use it", async () => {
    const name = freshName("Taken");
    await createCalendar(calendarAdmin, monthShiftCalendar(name));
    const second = await createCalendar(calendarAdmin, monthShiftCalendar(freshName()));
    const before = await dbSnapshot();
    expectError(await post(fiscalCalendar(name)), 409, "DUPLICATED", ["body.name"]);
    expectError(await put(second.id, monthShiftCalendar(name)), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await post(monthShiftCalendar(name), otherAdmin)).status).toBe(201);
  });

  it("ten simultaneous creates with one name: exactly one 201, nine 409, one row", async () => {
    const name = freshName("Race");
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(monthShiftCalendar(name, (i % 11) + 1))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.json.errorCode).toBe("DUPLICATED");
    const rows = await (await databaseOf(account.id)).prepare("SELECT count(*) AS n FROM calendars WHERE account_id = ? AND name = ?").bind(account.id, name).first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });
});

describe("at most 1,000 calendars per account", () => {
  it("holds under concurrency: with 997 stored, five simultaneous creates make exactly three", async () => {
    const crowded = await createAccount();
    const admin = await createUser(crowded.id, { groups: ["Users", "Administrators"] });
    // 997 calendars written as SQL: the limit, not the setup, is under test.
    const now = new Date().toISOString();
    const db = await databaseOf(crowded.id);
    const insert = db.prepare(
      "INSERT INTO calendars (id, account_id, name, type, month_shift, created_by_user_name, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) VALUES (?, ?, ?, 'MONTH_SHIFT', 1, 'setup', 'setup', ?, 'setup', ?)",
    );
    await db.batch(Array.from({ length: 997 }, (_, i) => insert.bind(crypto.randomUUID(), crowded.id, `Bulk ${i}`, now, now)));

    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => post(monthShiftCalendar(`Late ${i}`), admin)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expectError(r, 409, "TOO_MANY_CALENDARS");
    const count = await db.prepare("SELECT count(*) AS n FROM calendars WHERE account_id = ?").bind(crowded.id).first<{ n: number }>();
    expect(count!.n).toBe(1000);

    // Full: a create is refused, a replace is not; after a delete, a create fits again.
    const list = await call("GET", calendarsPath, { as: as(admin) });
    expect(list.json.content).toHaveLength(1000);
    expectError(await post(monthShiftCalendar("One too many"), admin), 409, "TOO_MANY_CALENDARS");
    const first = list.json.content[0];
    expect((await put(first.id, monthShiftCalendar(first.name, 2), {}, admin)).status).toBe(200);
    expect((await remove(first.id, {}, admin)).status).toBe(204);
    expect((await post(monthShiftCalendar("One too many"), admin)).status).toBe(201);
  });
});

describe("another account's calendars do not exist for the caller", () => {
  it("GET, PUT, DELETE, periods and periods/at answer 404 exactly as for an unknown id; the list does not show them", async () => {
    const theirs = await createCalendar(otherAdmin, monthShiftCalendar(freshName("Theirs")));
    const before = await dbSnapshot();
    const routes: [string, (id: string) => string, unknown?][] = [
      ["GET", (id) => calendarPath(id)],
      ["PUT", (id) => calendarPath(id), monthShiftCalendar(freshName(), 2)],
      ["DELETE", (id) => calendarPath(id)],
      ["GET", (id) => `${calendarPath(id)}/periods?from=2027-01-01&to=2027-12-31&type=QUARTER`],
      ["GET", (id) => `${calendarPath(id)}/periods/at?date=2027-06-01`],
    ];
    for (const [method, path, body] of routes) {
      const theirAnswer = await call(method, path(theirs.id), { as: as(accountAdmin), body });
      const unknown = await call(method, path(crypto.randomUUID()), { as: as(accountAdmin), body });
      expectError(theirAnswer, 404, "NOT_FOUND");
      expectError(unknown, 404, "NOT_FOUND");
      expect(theirAnswer.json.message).toBe(unknown.json.message);
      expect(theirAnswer.json.problems).toEqual(unknown.json.problems);
      expect(theirAnswer.text).not.toContain(theirs.name);
    }
    expect(await dbSnapshot()).toEqual(before);
    const mine = await list(accountAdmin);
    expect(mine.text).not.toContain(theirs.id);
    expect((await get(theirs.id, otherAdmin)).status).toBe(200);
  });

  it("the built-in calendar is no stored calendar: GET, PUT and DELETE of `default` are 404, and the list does not show it", async () => {
    expectError(await get("default"), 404, "NOT_FOUND");
    expectError(await put("default", monthShiftCalendar(freshName())), 404, "NOT_FOUND");
    expectError(await remove("default"), 404, "NOT_FOUND");
    expect((await list()).json.content.map((c: { id: string }) => c.id)).not.toContain("default");
  });
});

describe("D1 round trips", () => {
  it("E8 and E9 (50 calendars) cost one round trip; create one; replace and delete two", async () => {
    const busy = await createAccount();
    const admin = await createUser(busy.id, { groups: ["Users", "Administrators"] });
    let last: { id: string; name: string } | undefined;
    for (let i = 0; i < 50; i++) last = await createCalendar(admin, i % 2 ? fiscalCalendar(`Busy ${i}`) : monthShiftCalendar(`Busy ${i}`, (i % 11) + 1));
    const listed = await call("GET", calendarsPath, { as: as(admin) });
    expect(listed.json.content).toHaveLength(50);
    expect(roundTrips(listed)).toBe(1);
    const one = await call("GET", calendarPath(last!.id), { as: as(admin) });
    expect(roundTrips(one)).toBe(1);
    const missing = await call("GET", calendarPath("nope"), { as: as(admin) });
    expect(missing.status).toBe(404);
    expect(roundTrips(missing)).toBe(1);

    const created = await call("POST", calendarsPath, { as: as(admin), body: monthShiftCalendar("Counted") });
    expect(roundTrips(created)).toBe(1);
    const replaced = await call("PUT", calendarPath(created.json.id), { as: as(admin), body: monthShiftCalendar("Counted", 7) });
    expect(roundTrips(replaced)).toBe(2);
    const deleted = await call("DELETE", calendarPath(created.json.id), { as: as(admin) });
    expect(roundTrips(deleted)).toBe(2);
  });
});
