import { beforeAll, describe, expect, it } from "vitest";
import { representationDigest } from "../../src/middleware/conditional-get";
import { READER_PASSWORD } from "../global-setup/fixture-data.mjs";
import { createCalendar, fiscalCalendar, monthShiftCalendar } from "./calendar-helpers";
import { connectionBody, createConnection, storedConnectionRow } from "./connection-helpers";
import { makeFolder, folders, setAcl, toGroup, toUser } from "./folder-helpers";
import { as, call, createAccount, createGroup, createUser, expectError, PASSWORD, SUPERVISOR, unique, type TestUser } from "./helpers";
import { createOrdersSource, createView, viewBody } from "./materialized-view-helpers";
import { derivedField } from "./source-helpers";

/**
 * GET /api/accounts/{accountId}/export (docs/export-import.md): an account with at least one
 * object of every kind, made through the API, exported.
 */
let account: { id: string; name: string };
let admin: TestUser;
let plain: TestUser;
let otherAdmin: TestUser;
let group: { id: string; name: string };
/** Every id the account's objects were given: none may appear in the bundle. */
const ids: string[] = [];
const DATASET_TEXT = '{"records":[{"carrier":"LH","price":120.50,"id":12345678901234567890}]}';
const exportPath = () => `/api/accounts/${account.id}/export`;

beforeAll(async () => {
  account = await createAccount(unique("Export"));
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  plain = await createUser(account.id, { password: "plain-users-own-password" });
  otherAdmin = await createUser((await createAccount()).id, { groups: ["Administrators"] });
  group = await createGroup(account.id, unique("Analysts"), ["ROLE_EDIT_FORMULAS"]);
  expect((await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 50 }] } })).status).toBe(201);
  const connection = await createConnection(admin, connectionBody(unique("Warehouse")));
  const calendar = await createCalendar(admin, fiscalCalendar(unique("Retail 4-4-5")));
  const other = await createCalendar(admin, monthShiftCalendar(unique("Shifted")));
  const source = await createOrdersSource(admin, { connectionId: connection.id, fields: [derivedField("amount_fy", "amount * 2", {}, { calendarId: calendar.id })] });
  expect((await call("PUT", `/api/sources/${source.id}/custom-metrics/revenue`, { as: as(admin), body: { expression: "sum(amount)" } })).status).toBe(201);
  const grants = [
    { principalType: "GROUP", principalId: group.id, permission: "READ" },
    { principalType: "USER", principalId: plain.id, permission: "WRITE" },
  ];
  expect((await call("PUT", `/api/sources/${source.id}/permissions`, { as: as(admin), body: { content: grants } })).status).toBe(200);
  expect((await call("PUT", `/api/sources/${source.id}/security`, { as: as(admin), body: { fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } } })).status).toBeLessThan(300);
  const dataset = await call("POST", "/api/json-datasets", { as: as(admin), rawBody: `{"name":"Flights","data":${DATASET_TEXT}}`, headers: { "Content-Type": "application/json" } });
  expect(dataset.status, dataset.text).toBe(201);
  const root = await makeFolder(admin, unique("Sales"));
  const child = await makeFolder(admin, "Europe", root.id);
  await setAcl(admin, root.id, [toUser(admin, "READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"), toGroup(group, "READ")]);
  expect((await folders("PUT", `/api/folders/${child.id}/items/DASHBOARD/dash-item-1`, admin, { name: "Revenue board" })).status).toBe(201);
  const view = await createView(admin, viewBody(source.id, {}, { storageSettings: { targetStorage: { connectionId: connection.id, schemas: ["public"], collection: "revenue" } } }));
  ids.push(account.id, admin.id, plain.id, group.id, connection.id, calendar.id, other.id, source.id, dataset.json.id, root.id, child.id, view.id);
}, 120_000);

const exportAs = (who: TestUser | typeof SUPERVISOR) => call("GET", exportPath(), { as: "id" in who ? as(who) : who });

describe("whole-account export", () => {
  it("holds every object, by name, with no id, secret or password hash; twice the same bytes", async () => {
    const first = await exportAs(SUPERVISOR);
    expect(first.status, first.text).toBe(200);
    const bundle = first.json;
    expect(bundle.formatVersion).toBe(1);
    expect(bundle.account).toEqual({ name: account.name });
    expect(bundle.groups.map((g: any) => g.name)).toEqual(expect.arrayContaining(["Administrators", "Users", group.name]));
    expect(bundle.users.find((u: any) => u.name === admin.username).groups).toEqual(["Administrators", "Users"]);
    expect(bundle.quota).toEqual({ quotas: [{ type: "SOURCE", limit: 50 }] });
    const [connection] = bundle.connections;
    expect(connection.connectionType).toBeTypeOf("string");
    expect(connection.allParameters.find((p: any) => p.key === "password")).toEqual({ key: "password", systemAccess: false });
    expect(bundle.calendars).toHaveLength(2);
    const [source] = bundle.sources;
    expect(source.connection).toBe(connection.name);
    expect(source.owner).toBe(admin.username);
    expect(source.security).toEqual({ fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } });
    expect(source.permissions).toEqual([
      { principalType: "GROUP", principalName: group.name, permission: "READ" },
      { principalType: "USER", principalName: plain.username, permission: "WRITE" },
    ]);
    const derived = source.fields.find((f: any) => f.name === "amount_fy");
    expect(derived.origin.derivedOrigin.calendarName).toMatch(/^Retail 4-4-5/);
    expect(source.customMetrics.map((m: any) => m.name)).toEqual(expect.arrayContaining(["Volume", "revenue"]));
    // The dataset's data is the text sent, numbers as written.
    expect(first.text).toContain(`"data":${DATASET_TEXT}`);
    const paths = bundle.folders.map((f: any) => f.path);
    const root = bundle.folders.find((f: any) => f.path.length === 1 && f.folderType !== "PRIVATE");
    expect(paths).toContainEqual([root.path[0], "Europe"]);
    expect(root.permissions).toEqual([
      { principalType: "GROUP", principalName: group.name, permissions: ["READ"] },
      { principalType: "USER", principalName: admin.username, permissions: ["ADMINISTER", "CREATE", "DELETE", "READ", "WRITE"] },
    ]);
    expect(bundle.folders.find((f: any) => f.path[1] === "Europe").items).toEqual([{ itemType: "DASHBOARD", itemId: "dash-item-1", name: "Revenue board" }]);
    const [view] = bundle.materializedViews;
    expect(view.source).toBe(source.name);
    expect(view.storageSettings.targetStorage).toEqual({ connectionName: connection.name, schemas: ["public"], collection: "revenue" });

    for (const id of ids) expect(first.text, `id ${id} in the bundle`).not.toContain(id);
    // The connection's secret, in clear or as stored (sealed), is nowhere in it.
    const stored = await storedConnectionRow(account.id, ids[4]!);
    const sealed = (JSON.parse(String(stored!.parameters)) as { sealed?: string }[]).flatMap((p) => (p.sealed ? [p.sealed] : []));
    expect(sealed.length).toBeGreaterThan(0);
    for (const secret of [READER_PASSWORD, ...sealed]) expect(first.text).not.toContain(secret);
    for (const secret of [PASSWORD, "plain-users-own-password", "passwordHash", "password_hash", "passwordSalt"]) expect(first.text).not.toContain(secret);

    const second = await exportAs(SUPERVISOR);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("ETag")).toBe(first.headers.get("ETag"));
    // Digested from the text the handler wrote (not read back from the body): the tag still names the bytes received.
    expect(first.headers.get("ETag")).toBe(`"${await representationDigest(new TextEncoder().encode(first.text), first.headers.get("Content-Type")!)}"`);
    expect((await call("GET", exportPath(), { headers: { "If-None-Match": first.headers.get("ETag")! } })).status).toBe(304);
  });

  it("a change (a group renamed) changes the bundle", async () => {
    const before = await exportAs(admin);
    const renamed = unique("Renamed");
    expect((await call("PATCH", `/api/groups/${group.id}`, { as: as(admin), body: { name: renamed }, headers: { "Content-Type": "application/merge-patch+json" } })).status).toBe(200);
    const after = await exportAs(admin);
    expect(after.text).not.toBe(before.text);
    expect(after.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
    expect(after.json.groups.map((g: any) => g.name)).toContain(renamed);
    expect(after.json.sources[0].permissions[0].principalName).toBe(renamed);
  });

  it("the supervisor and the account's administrators only: a plain user 403, another account's admin 404", async () => {
    expect((await exportAs(admin)).status).toBe(200);
    expectError(await exportAs(plain), 403, "FORBIDDEN");
    expectError(await exportAs(otherAdmin), 404, "NOT_FOUND");
    expectError(await call("GET", "/api/accounts/no-such-account/export"), 404, "NOT_FOUND");
  });

  it("reads in one round trip", async () => {
    await exportAs(admin);
    expect(Number((await exportAs(admin)).headers.get("X-D1-Round-Trips"))).toBe(1);
  });
});
