import { beforeAll, describe, expect, it } from "vitest";
import { createCalendar, fiscalCalendar, monthShiftCalendar } from "./calendar-helpers";
import { as, call, createAccount, createGroup, createUser, SUPERVISOR, unique, type TestUser } from "./helpers";
import { createSource, derivedField, hierarchyField, nativeField } from "./source-helpers";

/**
 * POST /api/accounts/{accountId}/import (docs/export-import.md): a bundle exported from one
 * account, planned and applied into another; applied again, unchanged.
 */
let source: { id: string; name: string };
let admin: TestUser;
let group: { id: string; name: string };

const exportOf = async (id: string) => {
  const res = await call("GET", `/api/accounts/${id}/export`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const importInto = (id: string, bundle: unknown, query = "", who: TestUser | typeof SUPERVISOR = SUPERVISOR) =>
  call("POST", `/api/accounts/${id}/import${query}`, { as: "id" in who ? as(who) : who, body: bundle });
/** What an import into another account of this deployment keeps: not the name, nor users (never created), nor owners (then the importer). */
const withoutUsersAndName = (bundle: any) => ({ ...bundle, account: undefined, users: undefined, sources: bundle.sources.map(({ owner: _o, ...s }: any) => s) });

beforeAll(async () => {
  source = await createAccount(unique("ImportFrom"));
  admin = await createUser(source.id, { groups: ["Users", "Administrators"] });
  group = await createGroup(source.id, unique("Analysts"), ["ROLE_EDIT_FORMULAS"]);
  expect((await call("PUT", "/api/quota", { body: { accountId: source.id, quotas: [{ type: "SOURCE", limit: 50 }] } })).status).toBe(201);
  const retail = await createCalendar(admin, fiscalCalendar(unique("Retail 4-4-5")));
  await createCalendar(admin, monthShiftCalendar(unique("Shifted")));
  const s = await createSource(admin, {
    name: "Orders",
    fields: [nativeField("amount", { dataType: "NUMBER" }), nativeField("city", { dataType: "TEXT" }), nativeField("country", { dataType: "TEXT" })],
  });
  // A derived field on a stored calendar (named in the bundle, its id rewritten on import), and a hierarchy.
  for (const field of [derivedField("amount_x2", "amount * 2", {}, { calendarId: retail.id }), hierarchyField("geography", "city", "country")]) {
    const res = await call("POST", `/api/sources/${s.id}/fields`, { as: as(admin), body: field });
    expect(res.status, res.text).toBe(201);
  }
  expect((await call("PUT", `/api/sources/${s.id}/custom-metrics/revenue`, { as: as(admin), body: { expression: "sum(amount)" } })).status).toBe(201);
  const grants = [{ principalType: "GROUP", principalId: group.id, permission: "READ" }];
  expect((await call("PUT", `/api/sources/${s.id}/permissions`, { as: as(admin), body: { content: grants } })).status).toBe(200);
  const dataset = await call("POST", "/api/json-datasets", { as: as(admin), body: { name: "Flights", data: { records: [{ carrier: "LH", price: 120.5 }] } } });
  expect(dataset.status, dataset.text).toBe(201);
}, 120_000);

describe("whole-account import", () => {
  it("plans, applies atomically, re-applies unchanged, and round-trips through the export", async () => {
    const bundle = await exportOf(source.id);
    const target = await createAccount(unique("ImportTo"));
    const dry = await importInto(target.id, bundle, "?dryRun=true");
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.dryRun).toBe(true);
    const byType = (entries: any[], status: string) => entries.filter((e) => e.status === status).map((e) => `${e.type}:${e.name ?? ""}`).sort();
    expect(byType(dry.json.entries, "CAN_BE_CREATED")).toEqual(
      [`group:${group.name}`, "quota:", ...bundle.calendars.map((c: any) => `calendar:${c.name}`), "source:Orders", "jsonDataset:Flights"].sort(),
    );
    // The built-in groups exist in every account, as the bundle has them.
    expect(byType(dry.json.entries, "UNCHANGED")).toEqual(["group:Administrators", "group:Users"]);
    expect(await exportOf(target.id)).toMatchObject({ sources: [], jsonDatasets: [] });

    const done = await importInto(target.id, bundle);
    expect(done.status, done.text).toBe(200);
    expect(byType(done.json.entries, "CREATED")).toEqual(byType(dry.json.entries, "CAN_BE_CREATED"));
    expect(withoutUsersAndName(await exportOf(target.id))).toEqual(withoutUsersAndName(bundle));

    const again = await importInto(target.id, bundle);
    expect(again.status, again.text).toBe(200);
    expect(again.json.entries.every((e: any) => e.status === "UNCHANGED")).toBe(true);
    const events = await call("GET", `/api/audit-events?accountId=${target.id}`);
    expect(events.status).toBe(200);
  });

  it("writes a derived field's calendar as the target's and its references, so the target's endpoints see them used", async () => {
    const bundle = await exportOf(source.id);
    const derived = bundle.sources[0].fields.find((f: any) => f.name === "amount_x2");
    expect(derived.origin.derivedOrigin).toMatchObject({ calendarName: expect.stringMatching(/^Retail 4-4-5/) });
    const target = await createAccount(unique("ImportTo"));
    const done = await importInto(target.id, bundle);
    expect(done.status, done.text).toBe(200);
    const targetAdmin = await createUser(target.id, { groups: ["Users", "Administrators"] });
    const calendarsOfTarget = (await call("GET", "/api/calendars", { as: as(targetAdmin) })).json;
    const retail = (calendarsOfTarget.content ?? calendarsOfTarget).find((k: any) => k.name === derived.origin.derivedOrigin.calendarName);
    const sourceId = done.json.entries.find((e: any) => e.type === "source").id ?? (await call("GET", "/api/sources", { as: as(targetAdmin) })).json.content[0].id;
    const field = await call("GET", `/api/sources/${sourceId}/fields/amount_x2`, { as: as(targetAdmin) });
    expect(field.json.origin.derivedOrigin.calendarId).toBe(retail.id);
    // Its references were written: what it uses cannot be deleted, nor the calendar.
    expect((await call("DELETE", `/api/sources/${sourceId}/fields/amount`, { as: as(targetAdmin) })).status).toBe(400);
    expect((await call("DELETE", `/api/sources/${sourceId}/fields/city`, { as: as(targetAdmin) })).status).toBe(400);
    expect((await call("DELETE", `/api/calendars/${retail.id}`, { as: as(targetAdmin) })).status).toBe(400);
    // A derived field naming a calendar neither side has is a conflict, nothing written.
    const broken = structuredClone(bundle);
    broken.calendars = [];
    const other = await createAccount(unique("ImportTo"));
    const refused = await importInto(other.id, broken);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.errorCode).toBe("IMPORT_CONFLICT");
    expect(refused.text).toContain("calendars neither the bundle nor the account has");
  }, 60_000);

  it("answers an update with the members that change, and prunes what the bundle lacks", async () => {
    const target = await createAccount(unique("ImportUpd"));
    const bundle = await exportOf(source.id);
    expect((await importInto(target.id, bundle)).status).toBe(200);
    const changed = structuredClone(bundle);
    changed.groups.find((g: any) => g.name === group.name).privileges = ["ROLE_EDIT_FORMULAS", "ROLE_CREATE_SOURCES"].sort();
    changed.jsonDatasets = [];
    const dry = await importInto(target.id, changed, "?dryRun=true&prune=true");
    expect(dry.status, dry.text).toBe(200);
    const update = dry.json.entries.find((e: any) => e.type === "group" && e.name === group.name);
    expect(update).toMatchObject({ status: "CAN_BE_UPDATED", changes: [{ member: "privileges", before: ["ROLE_EDIT_FORMULAS"], after: changed.groups.find((g: any) => g.name === group.name).privileges }] });
    expect(dry.json.entries.find((e: any) => e.type === "jsonDataset")).toEqual({ type: "jsonDataset", name: "Flights", status: "CAN_BE_DELETED" });
    const done = await importInto(target.id, changed, "?prune=true");
    expect(done.status, done.text).toBe(200);
    expect((await exportOf(target.id)).jsonDatasets).toEqual([]);
  });

  it("refuses a bundle with a conflict (409, nothing written), and a wrong formatVersion or unknown member (400)", async () => {
    const target = await createAccount(unique("ImportConf"));
    const bundle = await exportOf(source.id);
    bundle.groups = bundle.groups.filter((g: any) => g.name !== group.name);
    const dry = await importInto(target.id, bundle, "?dryRun=true");
    expect(dry.status).toBe(200);
    expect(dry.json.entries.find((e: any) => e.type === "source")).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining(group.name)] });
    const refused = await importInto(target.id, bundle);
    expect(refused.status).toBe(409);
    expect(refused.json.errorCode).toBe("IMPORT_CONFLICT");
    expect((await exportOf(target.id)).jsonDatasets).toEqual([]);
    expect((await importInto(target.id, { ...bundle, formatVersion: 2 })).status).toBe(400);
    const unknown = await importInto(target.id, { ...bundle, extra: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("extra");
  });

  it("fails the batch as a whole when a name is taken concurrently, and two simultaneous imports write one plan", async () => {
    const bundle = await exportOf(source.id);
    const target = await createAccount(unique("ImportRace"));
    const [a, b] = await Promise.all([importInto(target.id, bundle), importInto(target.id, bundle)]);
    expect([a.status, b.status]).toContain(200);
    for (const r of [a, b]) expect([200, 409]).toContain(r.status);
    expect(withoutUsersAndName(await exportOf(target.id))).toEqual(withoutUsersAndName(bundle));
  });

  it("is the supervisor's or an administrator's of the account; another account's id is a 404", async () => {
    const bundle = await exportOf(source.id);
    const other = await createAccount(unique("ImportOther"));
    expect((await importInto(other.id, bundle, "?dryRun=true", admin)).status).toBe(404);
    const plain = await createUser(source.id);
    expect((await importInto(source.id, bundle, "?dryRun=true", plain)).status).toBe(403);
    const own = await importInto(source.id, bundle, "?dryRun=true", admin);
    expect(own.status, own.text).toBe(200);
    expect(own.json.entries.every((e: any) => e.status === "UNCHANGED")).toBe(true);
  });

  it("takes bundles up to MAX_IMPORT_BYTES (16 MiB), past a dataset write's cap, and refuses more with 413", async () => {
    const target = await createAccount(unique("ImportBig"));
    // Seven datasets of 1 MB: more than MAX_DATASET_BYTES + MAX_BODY_BYTES (6 MiB), each within a dataset's own limit.
    const big = (n: number) => ({ name: `Big ${n}`, data: { text: "x".repeat(1_000_000) } });
    const bundle = { ...(await exportOf(target.id)), jsonDatasets: Array.from({ length: 7 }, (_, n) => big(n)) };
    const dry = await importInto(target.id, bundle, "?dryRun=true");
    expect(dry.status, dry.text.slice(0, 300)).toBe(200);
    expect(dry.json.entries.filter((e: any) => e.type === "jsonDataset" && e.status === "CAN_BE_CREATED")).toHaveLength(7);
    const tooBig = await importInto(target.id, { ...bundle, jsonDatasets: Array.from({ length: 17 }, (_, n) => big(n)) }, "?dryRun=true");
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.errorCode).toBe("PAYLOAD_TOO_LARGE");
  }, 60_000);
});
