import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, databases, dbSnapshot, expectError, rowsOfAccount, type TestUser } from "./helpers";
import { calendarPath, createCalendar, fiscalCalendar, monthShiftCalendar, roundTrips } from "./calendar-helpers";
import { createSource, derivedField, fieldPath, fieldsPath, nativeField, sourcePath, STANDARD_FIELDS, type SourceJson } from "./source-helpers";

/**
 * Derived fields and calendars: `origin.derivedOrigin.calendarId` names a calendar of the
 * source's account (or `default`), and a calendar a derived field uses cannot be deleted, even
 * when the delete races the field's creation.
 */
let account: { id: string };
let admin: TestUser;
let calendarAdmin: TestUser;
let otherAdmin: TestUser;
let source: SourceJson;
let names = 0;

beforeAll(async () => {
  account = await createAccount();
  const other = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  calendarAdmin = await createUser(account.id, { roles: ["ROLE_ADMINISTER_CALENDARS"] });
  otherAdmin = await createUser(other.id, { groups: ["Users", "Administrators"] });
  source = await createSource(admin, { fields: STANDARD_FIELDS });
});

const fresh = (prefix: string) => `${prefix}_${(names++).toString(36)}`;
const newCalendar = async (user = admin) => (await createCalendar(user, monthShiftCalendar(fresh("Calendar"), 6))).id;
const withCalendar = (name: string, calendarId: string | undefined) => derivedField(name, "price * 2", {}, calendarId === undefined ? {} : { calendarId });
const postField = (body: unknown, sourceId = source.id) => call("POST", fieldsPath(sourceId), { as: as(admin), body });
const putField = (name: string, body: unknown, sourceId = source.id) => call("PUT", fieldPath(sourceId, name), { as: as(admin), body });
const deleteCalendar = (id: string, user = admin) => call("DELETE", calendarPath(id), { as: as(user) });
const CALENDAR_MEMBER = "body.origin.derivedOrigin.calendarId";

async function itemId(sourceId: string, name: string): Promise<string> {
  const row = await (await databaseOf(admin.accountId)).prepare("SELECT id FROM source_items WHERE source_id = ? AND name = ?").bind(sourceId, name).first<{ id: string }>();
  return row!.id;
}

/** Derived fields whose calendarId names no stored calendar of their account, on any database (must never exist). */
async function danglingCalendarIds(): Promise<unknown[]> {
  const dangling: unknown[] = [];
  for (const [, database] of databases()) {
    const rows = await database.prepare(
      `SELECT i.name, json_extract(i.body, '$.origin.derivedOrigin.calendarId') AS calendar_id FROM source_items i
       WHERE json_extract(i.body, '$.origin.derivedOrigin.calendarId') IS NOT NULL
         AND json_extract(i.body, '$.origin.derivedOrigin.calendarId') <> 'default'
         AND NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = json_extract(i.body, '$.origin.derivedOrigin.calendarId') AND c.account_id = i.account_id)`,
    ).all();
    dangling.push(...rows.results);
  }
  return dangling;
}

describe("a derived field names a calendar of its source's account", () => {
  it("a stored calendar or `default`: 201, kept in the origin; writing it costs two round trips", async () => {
    const calendarId = await newCalendar();
    const created = await postField(withCalendar("fiscal_price", calendarId));
    expect(created.status, created.text).toBe(201);
    expect(created.json.origin.derivedOrigin).toEqual({ expression: "price * 2", calendarId, referencedFieldNames: ["price"] });
    expect((await call("GET", fieldPath(source.id, "fiscal_price"), { as: as(admin) })).json).toEqual(created.json);
    expect(roundTrips(created)).toBe(2);

    const builtIn = await postField(withCalendar("gregorian_price", "default"));
    expect(builtIn.status, builtIn.text).toBe(201);
    expect(builtIn.json.origin.derivedOrigin.calendarId).toBe("default");
  });

  it("another account's calendar and a missing one: the same 400 naming the member, nothing stored (POST and PUT)", async () => {
    const theirs = (await createCalendar(otherAdmin, fiscalCalendar(fresh("Theirs")))).id;
    await postField(nativeField("cost", { name: "cost_native" }, { originalType: "DECIMAL" }));
    const before = await dbSnapshot();
    for (const send of [(id: string) => postField(withCalendar("planted", id)), (id: string) => putField("cost_native", withCalendar("cost_native", id))]) {
      const other = expectError(await send(theirs), 400, "VALIDATION_FAILED", [CALENDAR_MEMBER]);
      const missing = expectError(await send(crypto.randomUUID()), 400, "VALIDATION_FAILED", [CALENDAR_MEMBER]);
      expect(other.message).toBe(missing.message);
      expect(other.problems).toEqual(missing.problems);
      expectError(await send(""), 400, "VALIDATION_FAILED", [CALENDAR_MEMBER]);
    }
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("a calendar in use cannot be deleted", () => {
  it("400 whose Problem lists the derived field with its source; once the field lets go (PUT without it), 204", async () => {
    const calendarId = await newCalendar();
    const calendarName = (await call("GET", calendarPath(calendarId), { as: as(admin) })).json.name;
    expect((await postField(withCalendar("uses_it", calendarId))).status).toBe(201);

    const before = await dbSnapshot();
    const refused = await deleteCalendar(calendarId);
    const body = expectError(refused, 400, "VALIDATION_FAILED", [calendarName]);
    expect(body.problems[0].dependencies).toEqual({
      [calendarName]: {
        hasOtherUsages: false,
        accessible: [{ id: await itemId(source.id, "uses_it"), name: "uses_it", type: "DERIVED_FIELD", parent: { id: source.id, name: source.name, type: "SOURCE" } }],
      },
    });
    expect(body.message).toContain(calendarName);
    expect(body.problems[0].message).toContain(`DERIVED_FIELD 'uses_it' of SOURCE '${source.name}'`);
    expect(roundTrips(refused)).toBe(1);
    expect(await dbSnapshot()).toEqual(before);

    // Moving the field to another calendar frees the first and holds the second.
    const second = await newCalendar();
    expect((await putField("uses_it", withCalendar("uses_it", second))).status).toBe(200);
    expectError(await deleteCalendar(second), 400, "VALIDATION_FAILED");
    expect((await deleteCalendar(calendarId)).status).toBe(204);
    expect((await putField("uses_it", withCalendar("uses_it", undefined))).status).toBe(200);
    expect((await deleteCalendar(second)).status).toBe(204);
  });

  it("deleting the field, a retyping PUT, or deleting the source lets the calendar go", async () => {
    const sourceOfItsOwn = await createSource(admin, { fields: STANDARD_FIELDS });
    const [a, b, c] = [await newCalendar(), await newCalendar(), await newCalendar()];
    expect((await postField(withCalendar("by_a", a), sourceOfItsOwn.id)).status).toBe(201);
    expect((await postField(withCalendar("by_b", b), sourceOfItsOwn.id)).status).toBe(201);
    expect((await postField(withCalendar("by_c", c), sourceOfItsOwn.id)).status).toBe(201);

    expect((await call("DELETE", fieldPath(sourceOfItsOwn.id, "by_a"), { as: as(admin) })).status).toBe(204);
    expect((await deleteCalendar(a)).status).toBe(204);
    expect((await putField("by_b", nativeField("price", { name: "by_b" }, { originalType: "DECIMAL" }), sourceOfItsOwn.id)).status).toBe(200);
    expect((await deleteCalendar(b)).status).toBe(204);
    expectError(await deleteCalendar(c), 400, "VALIDATION_FAILED");
    expect((await call("DELETE", sourcePath(sourceOfItsOwn.id), { as: as(admin) })).status).toBe(204);
    expect((await deleteCalendar(c)).status).toBe(204);
  });

  it("users on sources the caller may not READ are counted (hasOtherUsages), not named", async () => {
    const calendarId = await newCalendar(calendarAdmin);
    expect((await postField(withCalendar("hidden_user", calendarId))).status).toBe(201);
    const body = expectError(await deleteCalendar(calendarId, calendarAdmin), 400, "VALIDATION_FAILED");
    const [usage] = Object.values(body.problems[0].dependencies) as { hasOtherUsages: boolean; accessible: unknown[] }[];
    expect(usage).toEqual({ hasOtherUsages: true, accessible: [] });
    expect(JSON.stringify(body)).not.toContain("hidden_user");
    expect(JSON.stringify(body)).not.toContain(source.name);
  });

  it("a delete racing derived fields that take the calendar up: the delete wins and every field is refused, or it is refused; no field ever points at a deleted calendar", async () => {
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 16; round++) {
      const calendarId = await newCalendar();
      // Up to three fields at once; odd rounds turn existing native fields into derived ones (PUT), even rounds create them.
      const fieldNames = Array.from({ length: 1 + (round % 3) }, () => fresh("racer"));
      const byPut = round % 2 === 1;
      if (byPut) for (const name of fieldNames) expect((await postField(nativeField("qty", { name }, { originalType: "INT" }))).status).toBe(201);
      const writes = () => fieldNames.map((name) => (byPut ? putField(name, withCalendar(name, calendarId)) : postField(withCalendar(name, calendarId))));
      // Which request reaches D1 first varies: half the rounds send the delete first; the others send it a moment
      // after the fields (the length of one unrelated request), so that it may read before a field's write and delete after it.
      const [deletion, ...fields] = round % 4 < 2 ? await Promise.all([deleteCalendar(calendarId), ...writes()]) : await (async () => {
        const sent = writes();
        await call("GET", "/api/health", { as: null });
        return [await deleteCalendar(calendarId), ...(await Promise.all(sent))];
      })();
      const where = `round ${round}: delete ${deletion.status} ${deletion.text.slice(0, 200)} / fields ${fields.map((f) => f.status).join(",")}`;
      if (deletion.status === 204) {
        for (const field of fields) expectError(field, 400, "VALIDATION_FAILED", [CALENDAR_MEMBER]);
      } else {
        expectError(deletion, 400, "VALIDATION_FAILED");
        expect(fields.some((f) => f.status === 200 || f.status === 201), where).toBe(true);
        expect((await call("GET", calendarPath(calendarId), { as: as(admin) })).status, where).toBe(200);
      }
      const outcome = deletion.status === 204 ? "delete first" : "a field first";
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      expect(await danglingCalendarIds(), where).toEqual([]);
    }
    console.log(`[calendar-references] race outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  });
});

describe("deleting an account", () => {
  it("deletes its calendars and their references with everything else", async () => {
    const doomed = await createAccount();
    const owner = await createUser(doomed.id, { groups: ["Users", "Administrators"] });
    const doomedSource = await createSource(owner, { fields: STANDARD_FIELDS });
    const calendarId = (await createCalendar(owner, fiscalCalendar("Doomed"))).id;
    expect((await call("POST", fieldsPath(doomedSource.id), { as: as(owner), body: withCalendar("doomed_field", calendarId) })).status).toBe(201);
    const owned = await rowsOfAccount(doomed.id);
    expect(owned.calendars).toBe(1);
    expect(owned.calendar_references).toBe(1);
    expect((await call("DELETE", `/api/accounts/${doomed.id}`)).status).toBe(204);
    for (const [table, count] of Object.entries(await rowsOfAccount(doomed.id))) expect(count, table).toBe(0);
  });
});
