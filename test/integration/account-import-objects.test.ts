import { beforeAll, describe, expect, it } from "vitest";
import { READER_PASSWORD } from "../global-setup/fixture-data.mjs";
import { connectionBody, createConnection, postgresParameters } from "./connection-helpers";
import { folders, makeFolder, setAcl, toGroup } from "./folder-helpers";
import { as, call, createAccount, createGroup, createUser, dbSnapshot, expectError, SUPERVISOR, unique, type TestUser } from "./helpers";
import { createOrdersSource, createView, viewBody } from "./materialized-view-helpers";

/**
 * POST /api/accounts/{accountId}/import of connections, folders and materialized views
 * (docs/export-import.md): secrets kept or carried sealed, the folder tree with its ACLs and
 * items, views on the source and connection of the bundle; re-applied, unchanged.
 */
const PASSPHRASE = "correct horse battery staple";
let a: { id: string; name: string };
let admin: TestUser;
let editors: { id: string; name: string };
let warehouse: { id: string; name: string };

const exportOf = async (id: string, headers: Record<string, string> = {}) => {
  const res = await call("GET", `/api/accounts/${id}/export`, { headers });
  expect(res.status, res.text).toBe(200);
  return res;
};
const importInto = (id: string, bundle: unknown, query = "", headers: Record<string, string> = {}) => call("POST", `/api/accounts/${id}/import${query}`, { as: SUPERVISOR, body: bundle, headers });
/** What an import into another account keeps: not the name, nor users (never created), nor owners (the supervisor imports: none). */
const comparable = (bundle: any) => ({
  ...bundle,
  account: undefined,
  users: undefined,
  sources: bundle.sources.map(({ owner: _o, ...s }: any) => s),
  folders: bundle.folders.map(({ owner: _o, ...f }: any) => f),
});
/** A new account with an administrator: it stands for the bundle's owners when the supervisor imports (a folder needs an owning user). */
async function target(prefix: string) {
  const account = await createAccount(unique(prefix));
  return { ...account, admin: await createUser(account.id, { groups: ["Users", "Administrators"] }) };
}
const statusOf = (entries: any[], type: string, key: string) => entries.find((e) => e.type === type && (e.name ?? JSON.stringify(e.path)) === key)?.status;

beforeAll(async () => {
  a = await createAccount(unique("Objects"));
  admin = await createUser(a.id, { groups: ["Users", "Administrators"] });
  editors = await createGroup(a.id, unique("Editors"), []);
  const reports = await makeFolder(admin, "Reports");
  const team = await makeFolder(admin, "Team", reports.id, { inheritance_state: "EXPLICIT" });
  // Grants to groups only (the creator's own grants replaced): a grant to a user another account lacks is a CONFLICT there.
  await setAcl(admin, team.id, [toGroup(editors, "READ")]);
  await setAcl(admin, reports.id, [toGroup(editors, "READ", "WRITE")]);
  expect((await folders("PUT", `/api/folders/${team.id}/items/DASHBOARD/dash-1`, admin, { name: "Sales" })).status).toBe(201);
  // The admin's private tree (made by reading the tree): its owner's alone, never exported.
  expect((await folders("GET", "/api/folders/tree?content_type=DASHBOARDS", admin)).status).toBe(200);
  warehouse = await createConnection(admin, connectionBody("Warehouse", { folderId: reports.id }));
  const orders = await createOrdersSource(admin, { connectionId: warehouse.id });
  await createView(admin, viewBody(orders.id, {}, { name: "Revenue per customer", storageSettings: { targetStorage: { connectionId: warehouse.id, collection: "revenue" } } }));
}, 120_000);

describe("whole-account import of connections, folders and materialized views", () => {
  it("never exports a secret without a passphrase: a new connection needing one is a CONFLICT, and the refused apply answers the whole plan", async () => {
    const exported = await exportOf(a.id);
    expect(exported.text).not.toContain(READER_PASSWORD);
    expect(exported.json.secretsSealing).toBeUndefined();
    expect(exported.json.connections[0]).toMatchObject({ name: "Warehouse", connectionType: "PostgreSQL", folder: ["Reports"] });
    expect(exported.json.connections[0].allParameters.find((p: any) => p.key === "password")).toEqual({ key: "password", systemAccess: false });
    // Folders by path with their own ACL and items; the private tree left out.
    expect(exported.json.folders.map((f: any) => f.path)).toEqual([["Reports"], ["Reports", "Team"]]);
    expect(exported.json.folders[0].permissions).toEqual([{ principalType: "GROUP", principalName: editors.name, permissions: ["READ", "WRITE"] }]);
    expect(exported.json.folders[0].permissions).toContainEqual({ principalType: "GROUP", principalName: editors.name, permissions: ["READ", "WRITE"] });
    expect(exported.json.folders[1].items).toEqual([{ itemType: "DASHBOARD", itemId: "dash-1", name: "Sales" }]);
    expect(exported.json.materializedViews[0]).toMatchObject({ name: "Revenue per customer", source: expect.any(String), storageSettings: { targetStorage: { connectionName: "Warehouse", collection: "revenue" } } });

    const b = await createAccount(unique("ObjectsTo"));
    const dry = await importInto(b.id, exported.json, "?dryRun=true");
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.entries.find((e: any) => e.type === "connection")).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining("'password' needs a value")] });
    const before = await dbSnapshot();
    const refused = await importInto(b.id, exported.json);
    expectError(refused, 409, "IMPORT_CONFLICT");
    expect(refused.json.plan).toEqual(dry.json);
    expect(await dbSnapshot()).toEqual(before);

    // With the connection made in B by name (its own password), the import keeps B's secret and the rest goes in.
    const bAdmin = await createUser(b.id, { groups: ["Users", "Administrators"] });
    const own = await createConnection(bAdmin, connectionBody("Warehouse"));
    const done = await importInto(b.id, exported.json);
    expect(done.status, done.text).toBe(200);
    expect(done.json.entries.find((e: any) => e.type === "connection")).toMatchObject({ status: "UPDATED", changes: [{ member: "folder", after: ["Reports"] }] });
    const tested = await call("POST", `/api/connections/${own.id}/test`, { as: as(bAdmin) });
    expect(tested.json.connected, tested.text).toBe(true);
    expect(comparable((await exportOf(b.id)).json)).toEqual(comparable(exported.json));
  }, 60_000);

  it("with X-Export-Passphrase, carries secrets sealed: the imported connection connects, re-applying is UNCHANGED, a wrong passphrase is a 400", async () => {
    const exported = await exportOf(a.id, { "X-Export-Passphrase": PASSPHRASE });
    expect(exported.text).not.toContain(READER_PASSWORD);
    expect(exported.json.secretsSealing).toMatchObject({ kdf: "PBKDF2-HMAC-SHA-256", cipher: "AES-256-GCM" });
    const password = exported.json.connections[0].allParameters.find((p: any) => p.key === "password");
    expect(password).toEqual({ key: "password", sealedValue: expect.any(String), systemAccess: false });
    expect((await exportOf(a.id, { "X-Export-Passphrase": PASSPHRASE })).text).toBe(exported.text);

    const b = await target("SealedTo");
    const bAdmin = b.admin;
    const before = await dbSnapshot();
    expectError(await importInto(b.id, exported.json, "", { "X-Export-Passphrase": "another long passphrase" }), 400, "INVALID_PASSPHRASE", ["body.connections[0].allParameters[4].sealedValue"]);
    expectError(await importInto(b.id, exported.json), 400, "INVALID_PASSPHRASE");
    expect(await dbSnapshot()).toEqual(before);

    const done = await importInto(b.id, exported.json, "", { "X-Export-Passphrase": PASSPHRASE });
    expect(done.status, done.text).toBe(200);
    expect(done.text).not.toContain(READER_PASSWORD);
    for (const [type, key] of [["connection", "Warehouse"], ["folder", '["Reports"]'], ["folder", '["Reports","Team"]'], ["materializedView", "Revenue per customer"]]) {
      expect(statusOf(done.json.entries, type!, key!), `${type} ${key}`).toBe("CREATED");
    }
    const connections = await call("GET", "/api/connections", { as: as(bAdmin) });
    const imported = connections.json.content.find((c: any) => c.name === "Warehouse");
    const tested = await call("POST", `/api/connections/${imported.id}/test`, { as: as(bAdmin) });
    expect(tested.json.connected, tested.text).toBe(true);
    // The tree as the folder endpoints see it: the child under its parent, in the parent's project, the item filed there.
    const tree = await folders("GET", "/api/folders/tree?content_type=DASHBOARDS", bAdmin);
    const root = tree.json.find((f: any) => f.name === "Reports");
    const children = await folders("GET", `/api/folders/${root.id}/children`, bAdmin);
    expect(children.json.content).toEqual([expect.objectContaining({ name: "Team", parent_id: root.id, depth: 1, project_id: root.project_id })]);
    const contents = await folders("GET", `/api/folders/${children.json.content[0].id}/contents`, bAdmin);
    expect(contents.json.content).toEqual([expect.objectContaining({ item_type: "DASHBOARD", item_id: "dash-1", name: "Sales" })]);
    const views = await call("GET", "/api/materialized-views", { as: as(bAdmin) });
    expect(views.json.content[0]).toMatchObject({ name: "Revenue per customer", storageSettings: { targetStorage: { connectionId: imported.id } }, definitionQuery: expect.stringContaining("sales") });

    const again = await importInto(b.id, exported.json, "", { "X-Export-Passphrase": PASSPHRASE });
    expect(again.status, again.text).toBe(200);
    expect(again.json.entries.filter((e: any) => e.status !== "UNCHANGED")).toEqual([]);
    expect(comparable((await exportOf(b.id)).json)).toEqual(comparable((await exportOf(a.id)).json));
    // A secret changed in B since: the sealed one differs, so the connection is updated (the member named, never a value), and connects again.
    const put = await call("PUT", `/api/connections/${imported.id}`, { as: as(bAdmin), body: connectionBody("Warehouse", { folderId: imported.folderId, allParameters: postgresParameters({ password: "not-the-password" }) }) });
    expect(put.status, put.text).toBe(200);
    expect((await call("POST", `/api/connections/${imported.id}/test`, { as: as(bAdmin) })).json.connected).toBe(false);
    const reseal = await importInto(b.id, exported.json, "?dryRun=true", { "X-Export-Passphrase": PASSPHRASE });
    expect(reseal.json.entries.filter((e: any) => e.status !== "UNCHANGED")).toEqual([{ type: "connection", name: "Warehouse", status: "CAN_BE_UPDATED", changes: [{ member: "allParameters.password" }] }]);
    expect((await importInto(b.id, exported.json, "", { "X-Export-Passphrase": PASSPHRASE })).status).toBe(200);
    expect((await call("POST", `/api/connections/${imported.id}/test`, { as: as(bAdmin) })).json.connected).toBe(true);
    const events = await call("GET", `/api/audit-events?accountId=${b.id}`);
    const actions = events.json.content.map((e: any) => e.action);
    for (const action of ["connection.create", "folder.create", "materialized-view.create"]) expect(actions).toContain(action);
    expect(events.text).not.toContain(READER_PASSWORD);
    expect(events.text).not.toContain(password.sealedValue);
  }, 60_000);

  it("updates and prunes connections, folders and views, and plans what cannot hold as a CONFLICT", async () => {
    const exported = (await exportOf(a.id, { "X-Export-Passphrase": PASSPHRASE })).json;
    const b = await target("PruneTo");
    const sealed = { "X-Export-Passphrase": PASSPHRASE };
    expect((await importInto(b.id, exported, "", sealed)).status).toBe(200);

    const changed = structuredClone(exported);
    changed.folders = changed.folders.filter((f: any) => f.path.length === 1);
    changed.folders[0].description = "All reports";
    // More items than one INSERT takes (13 rows under D1's 100 bound parameters).
    changed.folders[0].items = Array.from({ length: 30 }, (_, i) => ({ itemType: "DASHBOARD", itemId: `d-${String(i).padStart(2, "0")}`, name: `Dashboard ${String(i).padStart(2, "0")}` }));
    changed.materializedViews = [];
    const dry = await importInto(b.id, changed, "?dryRun=true&prune=true", sealed);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.entries.find((e: any) => e.type === "folder" && e.path.length === 1)).toMatchObject({ status: "CAN_BE_UPDATED", changes: [{ member: "description", after: "All reports" }, { member: "items" }] });
    expect(statusOf(dry.json.entries, "folder", '["Reports","Team"]')).toBe("CAN_BE_DELETED");
    expect(statusOf(dry.json.entries, "materializedView", "Revenue per customer")).toBe("CAN_BE_DELETED");
    const done = await importInto(b.id, changed, "?prune=true", sealed);
    expect(done.status, done.text).toBe(200);
    const after = (await exportOf(b.id)).json;
    expect(after.folders.map((f: any) => f.path)).toEqual([["Reports"]]);
    expect(after.folders[0].items).toEqual(changed.folders[0].items);
    expect(after.materializedViews).toEqual([]);
    expect((await importInto(b.id, changed, "?prune=true", sealed)).json.entries.filter((e: any) => e.status !== "UNCHANGED")).toEqual([]);

    // What cannot hold: an ACL naming a user B lacks, a folder past the depth limit, a view on a source neither side has, a connection deleted while a source uses it.
    const bad = structuredClone(exported);
    bad.folders[0].permissions.push({ principalType: "USER", principalName: "nobody-here", permissions: ["READ"] });
    // Depth 7 (a root is 0; 6 at most by default), under a chain the bundle holds.
    for (let depth = 1; depth <= 7; depth++) bad.folders.push({ ...bad.folders[1], path: ["Reports", ...["1", "2", "3", "4", "5", "6", "7"].slice(0, depth)], items: [] });
    bad.materializedViews[0].source = "No such source";
    const conflicts = await importInto(b.id, bad, "?dryRun=true", sealed);
    expect(conflicts.status, conflicts.text).toBe(200);
    expect(conflicts.json.entries.find((e: any) => e.type === "folder" && e.path.length === 1).conflicts).toEqual([expect.stringContaining("nobody-here")]);
    expect(conflicts.json.entries.find((e: any) => e.type === "folder" && e.path.length === 8).conflicts).toEqual([expect.stringContaining("levels below its root")]);
    expect(conflicts.json.entries.find((e: any) => e.type === "folder" && e.path.length === 7).status).toBe("CAN_BE_CREATED");
    expect(conflicts.json.entries.find((e: any) => e.type === "materializedView").conflicts).toEqual([expect.stringContaining("No such source")]);
    const noConnection = { ...structuredClone(exported), connections: [] };
    const inUse = await importInto(b.id, noConnection, "?dryRun=true&prune=true");
    expect(inUse.json.entries.find((e: any) => e.type === "connection")).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining("would still use it")] });
    // Two folders of one path in a bundle: a 400 naming the second.
    const twice = structuredClone(exported);
    twice.folders.push(twice.folders[0]);
    expectError(await importInto(b.id, twice, "?dryRun=true", sealed), 400, "VALIDATION_FAILED", [`body.folders[${twice.folders.length - 1}]`]);
  }, 60_000);

  it("two simultaneous imports into one account make one tree, one connection and one view", async () => {
    const exported = (await exportOf(a.id, { "X-Export-Passphrase": PASSPHRASE })).json;
    const b = await target("RaceTo");
    const answers = await Promise.all([1, 2, 3].map(() => importInto(b.id, exported, "", { "X-Export-Passphrase": PASSPHRASE })));
    for (const res of answers) expect([200, 409], res.text).toContain(res.status);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const after = (await exportOf(b.id)).json;
    expect(after.folders.map((f: any) => f.path)).toEqual([["Reports"], ["Reports", "Team"]]);
    expect(after.connections.map((c: any) => c.name)).toEqual(["Warehouse"]);
    expect(after.materializedViews.map((v: any) => v.name)).toEqual(["Revenue per customer"]);
    // Folders alone (no unique index holds a path: the batch's guard does).
    const c = await target("RaceFolders");
    const onlyFolders = { ...exported, connections: [], sources: [], materializedViews: [] };
    // The groups first, so that the racing imports write folders alone.
    expect((await importInto(c.id, { ...onlyFolders, folders: [] })).status).toBe(200);
    const raced = await Promise.all([1, 2, 3, 4].map(() => importInto(c.id, onlyFolders)));
    for (const res of raced) expect([200, 409], res.text).toContain(res.status);
    expect((await exportOf(c.id)).json.folders.map((f: any) => f.path)).toEqual([["Reports"], ["Reports", "Team"]]);
  }, 60_000);
});
