import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, expectError, type TestUser } from "./helpers";
import { calendarPath, calendarsPath, FISCAL_445_SETTINGS, fiscalCalendar, monthShiftCalendar, roundTrips } from "./calendar-helpers";
import { folders, makeFolder, roundTrips as folderTrips, type FolderNode } from "./folder-helpers";
import { createSource, derivedField, fieldsPath, STANDARD_FIELDS } from "./source-helpers";

// The calendar writes and a folder's PATCH are compiled once per isolate (src/db/compiled.ts):
// requests of four accounts, fired at once, each with its own values, each write its own row (read
// straight from D1) and answer its own, in the round trips they took before.
interface Tenant {
  accountId: string;
  admin: TestUser; // ROLE_ADMIN: reads every source of its account
  calendarAdmin: TestUser; // ROLE_ADMINISTER_CALENDARS only: reads no source
}
let tenants: Tenant[];

beforeAll(async () => {
  tenants = await Promise.all(
    [0, 1, 2, 3].map(async (): Promise<Tenant> => {
      const accountId = (await createAccount()).id;
      const [admin, calendarAdmin] = await Promise.all([
        createUser(accountId, { groups: ["Users", "Administrators"] }),
        createUser(accountId, { roles: ["ROLE_ADMINISTER_CALENDARS"] }),
      ]);
      return { accountId, admin, calendarAdmin };
    }),
  );
  // Warm every credential (a cold sign-in reads the user: a round trip of its own).
  for (const t of tenants) for (const user of [t.admin, t.calendarAdmin]) expect((await call("GET", "/api/user", { as: as(user) })).status).toBe(200);
});

/** A fiscal calendar's settings, different in each account. */
const settingsOf = (i: number) => ({ ...FISCAL_445_SETTINGS, yearEndIsoMonth: ["MARCH", "JUNE", "SEPTEMBER", "DECEMBER"][i], leapWeekInMonth: [3, 6, 9, 12][i] });

/** A calendar as stored on its account's database. */
const storedCalendar = async (accountId: string, id: string) =>
  (await databaseOf(accountId))
    .prepare("SELECT account_id, name, type, month_shift, fiscal445, typeof(fiscal445) AS fiscal445_type, revision, created_by_user_id, last_modified_by_user_id FROM calendars WHERE id = ?")
    .bind(id)
    .first<{ fiscal445: string | null }>()
    // The settings as JSON (their members in any order); a MONTH_SHIFT calendar's are NULL, not the text 'null'.
    .then((row) => row && { ...row, fiscal445: row.fiscal445 === null ? null : JSON.parse(row.fiscal445) });

/** What storedCalendar answers for a calendar of `body` written by `creator` and last by `modifier`. */
const expectedRow = (t: Tenant, body: { name: string; monthShift?: number; fiscal445?: object }, etag: string, creator: TestUser, modifier = creator) => ({
  account_id: t.accountId,
  name: body.name,
  type: body.monthShift === undefined ? "FISCAL_445" : "MONTH_SHIFT",
  month_shift: body.monthShift ?? null,
  fiscal445: body.fiscal445 ?? null,
  fiscal445_type: body.fiscal445 === undefined ? "null" : "text",
  revision: JSON.parse(etag),
  created_by_user_id: creator.id,
  last_modified_by_user_id: modifier.id,
});

describe("calendar writes, compiled once per isolate", () => {
  it("create, replace, patch and delete interleaved calendars of four accounts, each with its own values", async () => {
    // Each account creates a MONTH_SHIFT calendar (its admin) and a FISCAL_445 one (its calendar administrator), all at once.
    const monthBodies = tenants.map((_, i) => monthShiftCalendar(`Month ${i}`, i + 1));
    const fiscalBodies = tenants.map((_, i) => fiscalCalendar(`Fiscal ${i}`, settingsOf(i)));
    const created = await Promise.all(
      tenants.flatMap((t, i) => [call("POST", calendarsPath, { as: as(t.admin), body: monthBodies[i] }), call("POST", calendarsPath, { as: as(t.calendarAdmin), body: fiscalBodies[i] })]),
    );
    const month = (i: number) => created[2 * i]!;
    const fiscal = (i: number) => created[2 * i + 1]!;
    for (const [i, t] of tenants.entries()) {
      for (const [res, body, creator] of [[month(i), monthBodies[i]!, t.admin], [fiscal(i), fiscalBodies[i]!, t.calendarAdmin]] as const) {
        expect(res.status, res.text).toBe(201);
        expect(roundTrips(res)).toBe(1);
        expect(res.json, `account ${i}`).toMatchObject({ ...body, auditable: { createdByUserId: creator.id } });
        expect(await storedCalendar(t.accountId, res.json.id), `account ${i}`).toEqual(expectedRow(t, body, res.headers.get("ETag")!, creator));
      }
    }
    // Another account's calendar is not found, to read or to write.
    const foreign = month(1).json.id;
    expectError(await call("GET", calendarPath(foreign), { as: as(tenants[0]!.admin) }), 404, "NOT_FOUND");
    expectError(await call("PUT", calendarPath(foreign), { as: as(tenants[0]!.admin), body: { ...monthShiftCalendar("Taken", 5), id: foreign } }), 404, "NOT_FOUND");
    expectError(await call("PATCH", calendarPath(foreign), { as: as(tenants[0]!.admin), body: { name: "Taken" } }), 404, "NOT_FOUND");
    expectError(await call("DELETE", calendarPath(foreign), { as: as(tenants[0]!.calendarAdmin) }), 404, "NOT_FOUND");

    // Each PUT changes its calendar's type (the fiscal settings become NULL, or are set), with If-Match in odd accounts.
    const replacements = tenants.flatMap((_, i) => [
      { id: month(i).json.id, body: fiscalCalendar(`Month ${i} now fiscal`, settingsOf(3 - i)), etag: month(i).headers.get("ETag")! },
      { id: fiscal(i).json.id, body: monthShiftCalendar(`Fiscal ${i} now shifted`, -(i + 1)), etag: fiscal(i).headers.get("ETag")! },
    ]);
    const replaced = await Promise.all(
      replacements.map(({ id, body, etag }, n) => {
        const t = tenants[n >> 1]!;
        return call("PUT", calendarPath(id), { as: as(n % 2 ? t.admin : t.calendarAdmin), body: { ...body, id }, headers: (n >> 1) % 2 ? { "If-Match": etag } : undefined });
      }),
    );
    for (const [n, res] of replaced.entries()) {
      const t = tenants[n >> 1]!;
      expect(res.status, res.text).toBe(200);
      expect(roundTrips(res)).toBe(2);
      expect(res.json, `calendar ${n}`).toMatchObject({ ...replacements[n]!.body, id: replacements[n]!.id });
      const creator = n % 2 ? t.calendarAdmin : t.admin;
      expect(await storedCalendar(t.accountId, replacements[n]!.id), `calendar ${n}`).toEqual(
        expectedRow(t, replacements[n]!.body, res.headers.get("ETag")!, creator, n % 2 ? t.admin : t.calendarAdmin),
      );
    }
    // A stale If-Match misses.
    expectError(await call("PUT", calendarPath(replacements[0]!.id), { as: as(tenants[0]!.admin), body: { ...replacements[0]!.body, id: replacements[0]!.id }, headers: { "If-Match": replacements[0]!.etag } }), 412, "PRECONDITION_FAILED");

    // Each PATCH merges its own members: a name, or the fiscal settings' leap week.
    const patches = tenants.flatMap((_, i) => [{ fiscal445: { leapWeekInMonth: [12, 9, 6, 3][i] } }, { name: `Shifted ${i}` }]);
    const patched = await Promise.all(patches.map((body, n) => call("PATCH", calendarPath(replacements[n]!.id), { as: as(tenants[n >> 1]!.admin), body })));
    for (const [n, res] of patched.entries()) {
      const i = n >> 1;
      const t = tenants[i]!;
      const expected =
        n % 2 ? { ...replacements[n]!.body, name: `Shifted ${i}` } : { ...replacements[n]!.body, fiscal445: { ...settingsOf(3 - i), leapWeekInMonth: [12, 9, 6, 3][i] } };
      expect(res.status, res.text).toBe(200);
      // The GET's read, the PUT's read and its write.
      expect(roundTrips(res)).toBe(3);
      expect(res.json, `calendar ${n}`).toMatchObject(expected);
      expect(await storedCalendar(t.accountId, replacements[n]!.id), `calendar ${n}`).toEqual(expectedRow(t, expected, res.headers.get("ETag")!, n % 2 ? t.calendarAdmin : t.admin, t.admin));
    }

    // Each account's first calendar is in use by a derived field of its own source: its DELETE lists
    // the field to the admin (even accounts), and only counts it to the calendar administrator, who
    // may not read the source (odd accounts). The second one goes, with If-Match in odd accounts.
    const sources = await Promise.all(tenants.map((t) => createSource(t.admin, { fields: STANDARD_FIELDS })));
    const fields = await Promise.all(
      tenants.map((t, i) => call("POST", fieldsPath(sources[i]!.id), { as: as(t.admin), body: derivedField(`uses_${i}`, "price * 2", {}, { calendarId: replacements[2 * i]!.id }) })),
    );
    fields.forEach((res) => expect(res.status, res.text).toBe(201));
    const deletes = await Promise.all(
      tenants.flatMap((t, i) => [
        call("DELETE", calendarPath(replacements[2 * i]!.id), { as: as(i % 2 ? t.calendarAdmin : t.admin) }),
        call("DELETE", calendarPath(replacements[2 * i + 1]!.id), { as: as(t.calendarAdmin), headers: i % 2 ? { "If-Match": patched[2 * i + 1]!.headers.get("ETag")! } : undefined }),
      ]),
    );
    for (const [i, t] of tenants.entries()) {
      const [inUse, gone] = [deletes[2 * i]!, deletes[2 * i + 1]!];
      const body = expectError(inUse, 400, "VALIDATION_FAILED");
      expect(roundTrips(inUse)).toBe(1);
      const fieldId = await (await databaseOf(t.accountId)).prepare("SELECT id FROM source_items WHERE source_id = ? AND name = ?").bind(sources[i]!.id, `uses_${i}`).first("id");
      const accessible = [{ id: fieldId, name: `uses_${i}`, type: "DERIVED_FIELD", parent: { id: sources[i]!.id, name: sources[i]!.name, type: "SOURCE" } }];
      expect(Object.values(body.problems[0].dependencies), `account ${i}`).toEqual([i % 2 ? { hasOtherUsages: true, accessible: [] } : { hasOtherUsages: false, accessible }]);
      expect(gone.status, gone.text).toBe(204);
      expect(roundTrips(gone)).toBe(2);
      expect(await storedCalendar(t.accountId, replacements[2 * i]!.id), `account ${i}`).not.toBeNull();
      expect(await storedCalendar(t.accountId, replacements[2 * i + 1]!.id), `account ${i}`).toBeNull();
    }
    // A stale If-Match misses; another account's caller cannot delete the one left.
    expectError(await call("DELETE", calendarPath(replacements[0]!.id), { as: as(tenants[0]!.admin), headers: { "If-Match": replacements[0]!.etag } }), 412, "PRECONDITION_FAILED");
    expectError(await call("DELETE", calendarPath(replacements[0]!.id), { as: as(tenants[1]!.admin) }), 404, "NOT_FOUND");
  });
});

describe("a calendar's count limit, compiled once per isolate", () => {
  it("each create counts its own account's calendars: a full account refuses one, the others' creates at once do not", async () => {
    const crowded = await createAccount();
    const admin = await createUser(crowded.id, { groups: ["Users", "Administrators"] });
    expect((await call("GET", "/api/user", { as: as(admin) })).status).toBe(200);
    // 999 calendars written as SQL: one more fits.
    const now = new Date().toISOString();
    const db = await databaseOf(crowded.id);
    const insert = db.prepare(
      "INSERT INTO calendars (id, account_id, name, type, month_shift, created_by_user_name, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) VALUES (?, ?, ?, 'MONTH_SHIFT', 1, 'setup', 'setup', ?, 'setup', ?)",
    );
    await db.batch(Array.from({ length: 999 }, (_, i) => insert.bind(crypto.randomUUID(), crowded.id, `Bulk ${i}`, now, now)));
    const results = await Promise.all([
      ...[0, 1].map((k) => call("POST", calendarsPath, { as: as(admin), body: monthShiftCalendar(`Last ${k}`) })),
      ...tenants.map((t, i) => call("POST", calendarsPath, { as: as(t.admin), body: monthShiftCalendar(`Beside the crowd ${i}`) })),
    ]);
    expect(results.slice(0, 2).map((r) => r.status).sort()).toEqual([201, 409]);
    expectError(results.find((r) => r.status === 409)!, 409, "TOO_MANY_CALENDARS");
    for (const res of results.slice(2)) expect(res.status, res.text).toBe(201);
    expect(await db.prepare("SELECT count(*) AS n FROM calendars WHERE account_id = ?").bind(crowded.id).first("n")).toBe(1000);
  });
});

describe("a folder's PATCH, compiled once per isolate", () => {
  /** A folder as stored on its account's database. */
  const storedFolder = async (accountId: string, id: string) =>
    (await databaseOf(accountId))
      .prepare("SELECT account_id, parent_id, name, description, materialized_path, depth, inheritance_state, last_modified_by_user_id FROM folders WHERE id = ?")
      .bind(id)
      .first();

  it("renames, describes, moves and changes the inheritance of interleaved folders of four accounts, each its own", async () => {
    // Each account's tree: a root, children a, b (with a child b1) and c.
    const trees = await Promise.all(
      tenants.map(async (t, i) => {
        const root = await makeFolder(t.admin, `Root ${i}`);
        const [a, b, c] = await Promise.all(["a", "b", "c"].map((name) => makeFolder(t.admin, `${name} ${i}`, root.id, { description: `${name} of ${i}` })));
        const b1 = await makeFolder(t.admin, `b1 ${i}`, b!.id);
        return { root, a: a!, b: b!, c: c!, b1 };
      }),
    );
    // At once, in every account: a renamed and described anew (or its description cleared, in odd
    // accounts, with If-Match); b and its subtree moved under c (and renamed in odd accounts); c made
    // EXPLICIT (only its inheritance: no member sent). Each is another template of the update.
    const asked = tenants.flatMap((t, i) => {
      const { a, b, c } = trees[i]!;
      return [
        { t, id: a.id, body: i % 2 ? { description: null } : { folder_name: `a ${i} renamed`, description: `new a of ${i}` }, ifMatch: i % 2 === 1 },
        { t, id: b.id, body: i % 2 ? { parent_id: c.id, folder_name: `b ${i} moved` } : { parent_id: c.id }, ifMatch: false },
        { t, id: c.id, body: { inheritance_state: "EXPLICIT" }, ifMatch: false },
      ];
    });
    const etags = await Promise.all(asked.map(async ({ t, id, ifMatch }) => (ifMatch ? (await folders("GET", `/api/folders/${id}`, t.admin)).headers.get("ETag")! : undefined)));
    const patched = await Promise.all(
      asked.map(({ t, id, body }, n) => folders("PATCH", `/api/folders/${id}`, t.admin, body, etags[n] ? { "If-Match": etags[n] } : {})),
    );
    for (const [n, res] of patched.entries()) {
      const { id } = asked[n]!;
      expect(res.status, `${n}: ${res.text}`).toBe(200);
      expect(folderTrips(res)).toBe(2);
      expect(res.json.id).toBe(id);
    }
    for (const [i, t] of tenants.entries()) {
      const { root, a, b, c, b1 } = trees[i]!;
      const common = { account_id: t.accountId, last_modified_by_user_id: t.admin.id };
      expect(await storedFolder(t.accountId, a.id), `account ${i}`).toEqual({
        ...common,
        parent_id: root.id,
        name: i % 2 ? `a ${i}` : `a ${i} renamed`,
        description: i % 2 ? null : `new a of ${i}`,
        materialized_path: `/${root.id}/${a.id}/`,
        depth: 1,
        inheritance_state: "INHERIT",
      });
      expect(await storedFolder(t.accountId, b.id), `account ${i}`).toEqual({
        ...common,
        parent_id: c.id,
        name: i % 2 ? `b ${i} moved` : `b ${i}`,
        description: `b of ${i}`,
        materialized_path: `/${root.id}/${c.id}/${b.id}/`,
        depth: 2,
        inheritance_state: "INHERIT",
      });
      // The subtree moved with b; b1 itself was not written by the PATCH.
      expect(await storedFolder(t.accountId, b1.id), `account ${i}`).toMatchObject({ parent_id: b.id, materialized_path: `/${root.id}/${c.id}/${b.id}/${b1.id}/`, depth: 3 });
      expect(await storedFolder(t.accountId, c.id), `account ${i}`).toEqual({
        ...common,
        parent_id: root.id,
        name: `c ${i}`,
        description: `c of ${i}`,
        materialized_path: `/${root.id}/${c.id}/`,
        depth: 1,
        inheritance_state: "EXPLICIT",
      });
      // The answers are the rows written.
      const answer = (id: string) => patched[asked.findIndex((q) => q.id === id)]!.json as FolderNode;
      expect(answer(b.id)).toMatchObject({ parent_id: c.id, materialized_path: `/${root.id}/${c.id}/${b.id}/`, depth: 2 });
      expect(answer(a.id)).toMatchObject({ name: i % 2 ? `a ${i}` : `a ${i} renamed`, parent_id: root.id });
    }
    // Another account's folder is not found, to change or to move into; a stale If-Match misses.
    const [first, second] = [trees[0]!, trees[1]!];
    expectError(await folders("PATCH", `/api/folders/${second.a.id}`, tenants[0]!.admin, { folder_name: "Taken" }), 404, "NOT_FOUND");
    expectError(await folders("PATCH", `/api/folders/${first.a.id}`, tenants[0]!.admin, { parent_id: second.c.id }), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    const stale = etags[asked.findIndex((q) => q.id === second.a.id)]!;
    expectError(await folders("PATCH", `/api/folders/${second.a.id}`, tenants[1]!.admin, { folder_name: "Late" }, { "If-Match": stale }), 412, "PRECONDITION_FAILED");
  });
});
