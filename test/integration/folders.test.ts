import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import { allPages, folders, makeFolder, PREVIEW, roundTrips, setAcl, toGroup, toUser, type FolderNode } from "./folder-helpers";

/**
 * The library folders: creation, the tree (E2), inherited permissions and the pruning rule,
 * listings and their cursors, items, the expanded state, the preview header, and the D1 round
 * trips of each route. Moves, depth and concurrency are in folders-moves.test.ts.
 */
let admin: TestUser; // account admin: folder administrator by ROLE_ADMIN
let alice: TestUser; // ROLE_CREATE_FOLDERS
let bob: TestUser; // no privilege
let carol: TestUser; // no privilege, member of Analysts
let permissioner: TestUser; // ROLE_PERMISSION_FOLDERS
let keeper: TestUser; // ROLE_ADMINISTER_FOLDERS
let stranger: TestUser; // admin of another account
let analysts: { id: string };
let accountId: string;

const ALL = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"];
const ALL_AND_OWNER = [...ALL, "OWNER"];

beforeAll(async () => {
  accountId = (await createAccount()).id;
  analysts = await createGroup(accountId, unique("Analysts"));
  const analystsName = (await call("GET", `/api/groups/${analysts.id}`)).json.name;
  admin = await createUser(accountId, { groups: ["Users", "Administrators"] });
  alice = await createUser(accountId, { roles: ["ROLE_CREATE_FOLDERS"] });
  bob = await createUser(accountId);
  carol = await createUser(accountId, { groups: ["Users", analystsName] });
  permissioner = await createUser(accountId, { roles: ["ROLE_PERMISSION_FOLDERS"] });
  keeper = await createUser(accountId, { roles: ["ROLE_ADMINISTER_FOLDERS"] });
  stranger = await createUser((await createAccount()).id, { groups: ["Users", "Administrators"] });
  // Warm every credential (a tree read also makes each user's private root).
  for (const user of [admin, alice, bob, carol, permissioner, keeper, stranger]) expect((await folders("GET", "/api/folders/tree", user)).status).toBe(200);
});

const get = (who: TestUser, id: string) => folders("GET", `/api/folders/${id}`, who);
const tree = async (who: TestUser, query = "") => {
  const res = await folders("GET", `/api/folders/tree${query}`, who);
  expect(res.status, res.text).toBe(200);
  return res.json as FolderNode[];
};
const childIds = async (who: TestUser, id: string) => (await allPages(who, `/api/folders/${id}/children`)).map((f) => f.id as string);

describe("the preview header", () => {
  it("is a required header parameter of every folder operation in the document", async () => {
    const doc = (await call("GET", "/api/openapi.json", { as: null })).json;
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith("/api/folders"))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, op })));
    expect(operations.length).toBe(13);
    for (const { key, op } of operations) {
      expect(op["x-stability"], key).toBe("preview");
      expect(op.parameters, key).toContainEqual(expect.objectContaining({ name: "X-Enable-Preview", in: "header", required: true }));
      expect(op.responses["400"]["x-error-codes"], key).toContain("PREVIEW_NOT_ENABLED");
    }
    // Routes that are not preview do not ask for it.
    expect(doc.paths["/api/groups"].get.parameters.map((p: { name: string }) => p.name)).not.toContain("X-Enable-Preview");
  });

  it("without X-Enable-Preview: true, every folder route answers 400 PREVIEW_NOT_ENABLED, marked experimental, and changes nothing", async () => {
    const root = await makeFolder(alice, "Preview root");
    const child = await makeFolder(alice, "Preview child", root.id);
    expect((await folders("PUT", `/api/folders/${child.id}/items/DASHBOARD/preview-item`, alice, { name: "Item" })).status).toBe(201);
    const requests: [string, string, unknown?][] = [
      ["GET", "/api/folders/tree"],
      ["PUT", "/api/folders/tree-state", { folder_ids: [root.id] }],
      ["POST", "/api/folders", { folder_name: "Nope", parent_id: root.id }],
      ["GET", `/api/folders/${child.id}`],
      ["PATCH", `/api/folders/${child.id}`, { folder_name: "Renamed" }],
      ["DELETE", `/api/folders/${child.id}`],
      ["GET", `/api/folders/${root.id}/children`],
      ["GET", `/api/folders/${child.id}/contents`],
      ["GET", `/api/folders/${child.id}/path`],
      ["GET", `/api/folders/${child.id}/permissions`],
      ["PUT", `/api/folders/${child.id}/permissions`, { content: [] }],
      ["PUT", `/api/folders/${child.id}/items/DASHBOARD/other-item`, { name: "Other" }],
      ["DELETE", `/api/folders/${child.id}/items/DASHBOARD/preview-item`],
    ];
    const before = await dbSnapshot();
    for (const [method, path, body] of requests) {
      for (const value of [undefined, "false", "yes", "", "true, true"]) {
        const headers: Record<string, string> = value === undefined ? {} : { "X-Enable-Preview": value };
        const res = await call(method, path, { as: as(alice), body, headers });
        expectError(res, 400, "PREVIEW_NOT_ENABLED");
        expect(res.headers.get("X-API-Stability"), `${method} ${path}`).toBe("experimental");
      }
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("takes true in any letter case and answers X-API-Stability: experimental", async () => {
    for (const value of ["true", "TRUE", "True", " true "]) {
      const res = await call("GET", "/api/folders/tree", { as: as(alice), headers: { "X-Enable-Preview": value } });
      expect(res.status, value).toBe(200);
      expect(res.headers.get("X-API-Stability")).toBe("experimental");
    }
  });
});

describe("creating and reading folders", () => {
  it("a root starts a project: 201 with Location and ETag, every FolderNode member, read back the same", async () => {
    const res = await folders("POST", "/api/folders", alice, { folder_name: "Sales", description: "Sales dashboards", content_type: "DASHBOARDS" });
    expect(res.status, res.text).toBe(201);
    const root = res.json as FolderNode;
    expect(res.headers.get("Location")).toBe(`/api/folders/${root.id}`);
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]+\.[0-9a-f]+"$/);
    expect(root).toMatchObject({
      name: "Sales",
      description: "Sales dashboards",
      parent_id: null,
      materialized_path: `/${root.id}/`,
      depth: 0,
      child_count: 0,
      item_count: 0,
      folder_type: "CUSTOM",
      content_type: "DASHBOARDS",
      visibility: "CUSTOM",
      inheritance_state: "INHERIT",
      project_type: "LIBRARY_CUSTOM",
      permission_inherited: false,
      permissions: ALL_AND_OWNER,
      expanded: false,
      createdByUserID: alice.id,
    });
    expect(root.project_id).not.toBe(root.id);
    const read = await get(alice, root.id);
    expect(read.json).toEqual(root);
    expect(read.headers.get("ETag")).toBe(res.headers.get("ETag"));
    const other = await makeFolder(alice, "Marketing");
    expect(other.project_id).not.toBe(root.project_id);
  });

  it("a child takes its parent's project, library and place: path, depth, inherited permissions", async () => {
    const root = await makeFolder(alice, "Regions");
    const child = await makeFolder(alice, "Europe", root.id);
    const grandchild = await makeFolder(alice, "France", child.id, { folder_type: "DASHBOARDS" });
    expect(child).toMatchObject({ parent_id: root.id, project_id: root.project_id, content_type: "DASHBOARDS", depth: 1, permission_inherited: true });
    expect(grandchild).toMatchObject({ materialized_path: `/${root.id}/${child.id}/${grandchild.id}/`, depth: 2, folder_type: "DASHBOARDS" });
    expect((await get(alice, root.id)).json.child_count).toBe(1);
  });

  it("refuses what it cannot make, with the documented 4xx, and changes nothing", async () => {
    const root = await makeFolder(alice, "Guarded");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const theirs = await makeFolder(stranger, "Theirs");
    const before = await dbSnapshot();
    const post = (who: TestUser, body: object) => folders("POST", "/api/folders", who, body);
    expectError(await post(bob, { folder_name: "Mine", content_type: "DASHBOARDS" }), 403, "FORBIDDEN");
    expectError(await post(alice, { folder_name: "No library" }), 400, "VALIDATION_FAILED", ["body.content_type"]);
    expectError(await post(alice, { folder_name: "x".repeat(101), content_type: "DASHBOARDS" }), 400, "VALIDATION_FAILED", ["body.folder_name"]);
    expectError(await post(alice, { folder_name: "two\nlines", content_type: "DASHBOARDS" }), 400, "VALIDATION_FAILED", ["body.folder_name"]);
    expectError(await post(alice, { folder_name: "", content_type: "DASHBOARDS" }), 400, "VALIDATION_FAILED", ["body.folder_name"]);
    expectError(await post(alice, { folder_name: "Mine", content_type: "DASHBOARDS", folder_type: "PRIVATE" }), 400, "VALIDATION_FAILED", ["body.folder_type"]);
    expectError(await post(alice, { folder_name: "Mine", content_type: "DASHBOARDS", folder_type: "REPORTS" }), 400, "VALIDATION_FAILED", ["body.folder_type"]);
    expectError(await post(alice, { folder_name: "Mine", content_type: "VISUALS" }), 400, "VALIDATION_FAILED", ["body.content_type"]);
    expectError(await post(alice, { folder_name: "Mine", parent_id: root.id, content_type: "REPORTS" }), 400, "VALIDATION_FAILED", ["body.content_type"]);
    // A parent bob may read but not create in; one that does not exist; another account's: the same 400 for the last two.
    expectError(await post(bob, { folder_name: "Mine", parent_id: root.id }), 403, "FORBIDDEN");
    const unknown = expectError(await post(alice, { folder_name: "Mine", parent_id: crypto.randomUUID() }), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    const foreign = expectError(await post(alice, { folder_name: "Mine", parent_id: theirs.id }), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    expect(foreign.message).toBe(unknown.message);
    expect(JSON.stringify(foreign)).not.toContain("Theirs");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("the tree (E2) as two users", () => {
  it("shows each user its readable roots of one library, its own private root first", async () => {
    const dave = await createUser(accountId, { roles: ["ROLE_CREATE_FOLDERS"] });
    const erin = await createUser(accountId);
    const daves = await makeFolder(dave, "Dave's reports", undefined, { content_type: "REPORTS" });
    const shared = await makeFolder(dave, "Dave's dashboards");

    const davesTree = await tree(dave);
    expect(davesTree.map((f) => f.name)).toEqual(["Private", "Dave's dashboards"]);
    expect(davesTree[0]).toMatchObject({ folder_type: "PRIVATE", visibility: "PRIVATE", project_type: "PERSONAL", permissions: ALL_AND_OWNER, depth: 0 });
    expect((await tree(dave, "?content_type=REPORTS")).map((f) => f.id)).toEqual([(await tree(dave, "?content_type=REPORTS"))[0]!.id, daves.id]);
    expect((await tree(erin)).map((f) => f.name)).toEqual(["Private"]);

    await setAcl(dave, shared.id, [toUser(dave, ...ALL), toUser(erin, "READ")]);
    const erinsTree = await tree(erin);
    expect(erinsTree.map((f) => f.id)).toContain(shared.id);
    expect(erinsTree.find((f) => f.id === shared.id)).toMatchObject({ permissions: ["READ"], permission_inherited: false });
    expect(erinsTree.map((f) => f.id)).not.toContain(davesTree[0]!.id);
  });

  it("defaults to the DASHBOARDS library and refuses any other content_type", async () => {
    expect(await tree(alice)).toEqual(await tree(alice, "?content_type=DASHBOARDS"));
    expectError(await folders("GET", "/api/folders/tree?content_type=VISUALS", alice), 400, "VALIDATION_FAILED", ["query.content_type"]);
  });

  it("makes a user's private root once, even when its first reads race, and shows it to nobody else", async () => {
    const newcomer = await createUser(accountId);
    await call("GET", "/api/sources", { as: as(newcomer) }); // warm the credential: the reads race on the database
    const trees = await Promise.all(Array.from({ length: 10 }, () => folders("GET", "/api/folders/tree?content_type=REPORTS", newcomer)));
    const roots = new Set(trees.map((t) => (t.json as FolderNode[]).find((f) => f.folder_type === "PRIVATE")!.id));
    expect(roots.size).toBe(1);
    const [privateRoot] = roots;
    for (const other of [admin, keeper, alice]) expectError(await get(other, privateRoot!), 404, "NOT_FOUND");
    expect(await tree(admin, "?content_type=REPORTS")).not.toContainEqual(expect.objectContaining({ id: privateRoot }));
    // Its owner works in it like anywhere else, and cannot share it.
    const inside = await makeFolder(newcomer, "Drafts", privateRoot!);
    expect(inside).toMatchObject({ visibility: "PRIVATE", project_type: "PERSONAL", permissions: ALL_AND_OWNER });
    expectError(await get(admin, inside.id), 404, "NOT_FOUND");
    expectError(await folders("PUT", `/api/folders/${privateRoot}/permissions`, newcomer, { content: [toUser(admin, "READ")] }), 400, "VALIDATION_FAILED", ["body.content"]);
  });
});

describe("inherited permissions", () => {
  it("an INHERIT folder takes the nearest EXPLICIT ancestor's ACL; permission_inherited says so", async () => {
    const root = await makeFolder(alice, "Finance");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toGroup(analysts, "READ", "CREATE")]);
    const child = await makeFolder(alice, "Budgets", root.id);
    expect((await get(carol, root.id)).json).toMatchObject({ permissions: ["READ", "CREATE"], permission_inherited: false });
    expect((await get(carol, child.id)).json).toMatchObject({ permissions: ["READ", "CREATE"], permission_inherited: true });
    expectError(await get(bob, child.id), 404, "NOT_FOUND");

    const explicit = await makeFolder(alice, "Payroll", root.id, { inheritance_state: "EXPLICIT" });
    await setAcl(alice, explicit.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const below = await makeFolder(alice, "2026", explicit.id);
    expect((await get(bob, below.id)).json).toMatchObject({ permissions: ["READ"], permission_inherited: true });
    expectError(await get(carol, below.id), 404, "NOT_FOUND");
    expect((await get(keeper, below.id)).json.permissions).toEqual(ALL);
    expect((await get(admin, below.id)).json.permissions).toEqual(ALL);
  });

  it("an EXPLICIT folder made by someone else under a root starts with what it would inherit plus its creator: the root's creator keeps access", async () => {
    const root = await makeFolder(alice, "Shared space");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toGroup(analysts, "READ", "CREATE")]);
    const carols = await makeFolder(carol, "Carol's corner", root.id, { inheritance_state: "EXPLICIT" });
    expect(carols.permissions).toEqual(ALL_AND_OWNER);
    expect((await get(alice, carols.id)).json).toMatchObject({ permissions: ALL, permission_inherited: false });
    const acl = await folders("GET", `/api/folders/${carols.id}/permissions`, carol);
    expect(acl.status, acl.text).toBe(200);
    expect(acl.json).toEqual({
      content: [toUser(alice, ...ALL), toUser(carol, ...ALL), toGroup(analysts, "READ", "CREATE")].sort((a, b) =>
        a.principalType === b.principalType ? (a.principalId < b.principalId ? -1 : 1) : a.principalType === "USER" ? -1 : 1,
      ),
      permission_inherited: false,
    });
  });

  it("switching INHERIT -> EXPLICIT changes nobody's access; EXPLICIT -> INHERIT drops the folder's own ACL", async () => {
    const root = await makeFolder(alice, "Operations");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toGroup(analysts, "READ"), toUser(bob, "READ", "WRITE")]);
    const child = await makeFolder(alice, "Logistics", root.id);
    const view = async () => Promise.all([alice, bob, carol, keeper].map(async (u) => (await get(u, child.id)).json.permissions));
    const before = await view();

    const explicit = await folders("PATCH", `/api/folders/${child.id}`, permissioner, { inheritance_state: "EXPLICIT" });
    expectError(explicit, 404, "NOT_FOUND"); // permissioner may not READ it: the privilege reaches only folders it can see
    const made = await folders("PATCH", `/api/folders/${child.id}`, alice, { inheritance_state: "EXPLICIT" });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ inheritance_state: "EXPLICIT", permission_inherited: false, permissions: ALL_AND_OWNER });
    expect(await view()).toEqual(before);

    await setAcl(alice, child.id, [toUser(alice, ...ALL)]);
    expectError(await get(bob, child.id), 404, "NOT_FOUND");
    const back = await folders("PATCH", `/api/folders/${child.id}`, alice, { inheritance_state: "INHERIT" });
    expect(back.json).toMatchObject({ inheritance_state: "INHERIT", permission_inherited: true });
    expect(await view()).toEqual(before);
    expect((await folders("GET", `/api/folders/${child.id}/permissions`, alice)).json.permission_inherited).toBe(true);
  });

  it("reading and changing an ACL needs ADMINISTER or ROLE_PERMISSION_FOLDERS, on a folder the caller can see", async () => {
    const root = await makeFolder(alice, "Audit");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ", "WRITE"), toUser(permissioner, "READ")]);
    const before = await dbSnapshot();
    expectError(await folders("GET", `/api/folders/${root.id}/permissions`, bob), 403, "FORBIDDEN");
    expectError(await folders("PUT", `/api/folders/${root.id}/permissions`, bob, { content: [] }), 403, "FORBIDDEN");
    expectError(await folders("PATCH", `/api/folders/${root.id}`, bob, { inheritance_state: "EXPLICIT" }), 403, "FORBIDDEN");
    expectError(await folders("GET", `/api/folders/${root.id}/permissions`, carol), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
    expect((await folders("GET", `/api/folders/${root.id}/permissions`, permissioner)).status).toBe(200);
    const put = await folders("PUT", `/api/folders/${root.id}/permissions`, permissioner, { content: [toUser(alice, ...ALL), toUser(permissioner, "READ"), toGroup(analysts, "READ")] });
    expect(put.status, put.text).toBe(200);
    expect((await get(carol, root.id)).json.permissions).toEqual(["READ"]);
    expectError(await get(bob, root.id), 404, "NOT_FOUND");
  });

  it("an ACL names principals of the folder's account only, one entry each: a 400 naming the entry, nothing changed", async () => {
    const root = await makeFolder(alice, "Strict");
    const before = await dbSnapshot();
    const put = (content: unknown[]) => folders("PUT", `/api/folders/${root.id}/permissions`, alice, { content });
    expectError(await put([toUser(bob, "READ"), toUser({ id: crypto.randomUUID() }, "READ")]), 400, "VALIDATION_FAILED", ["body.content[1].principalId"]);
    expectError(await put([toUser(stranger, "READ")]), 400, "VALIDATION_FAILED", ["body.content[0].principalId"]);
    expectError(await put([toGroup(analysts, "READ"), toUser(analysts, "READ")]), 400, "VALIDATION_FAILED", ["body.content[1].principalId"]);
    expectError(await put([toUser(bob, "READ"), toUser(bob, "WRITE")]), 400, "VALIDATION_FAILED", ["body.content[1]"]);
    expectError(await put([toUser(bob, "OWNER")]), 400, "VALIDATION_FAILED", ["body.content[0].permissions[0]"]);
    expectError(await put([toUser(bob)]), 400, "VALIDATION_FAILED", ["body.content[0].permissions"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("PUT on an inheriting folder makes it EXPLICIT with exactly the ACL given", async () => {
    const root = await makeFolder(alice, "Parent");
    const child = await makeFolder(alice, "Own rules", root.id);
    const res = await folders("PUT", `/api/folders/${child.id}/permissions`, alice, { content: [toUser(bob, "READ", "READ", "WRITE")] });
    expect(res.json).toEqual({ content: [toUser(bob, "READ", "WRITE")], permission_inherited: false });
    expect((await get(alice, child.id)).json).toMatchObject({ inheritance_state: "EXPLICIT", permission_inherited: false, permissions: ALL_AND_OWNER });
    expect((await get(bob, child.id)).json.permissions).toEqual(["READ", "WRITE"]);
  });
});

describe("pruning: nobody sees a folder it may not READ", () => {
  it("children, contents, path and the folder itself hide unreadable folders; counts stay unfiltered totals", async () => {
    const root = await makeFolder(alice, "Library");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const open = await makeFolder(alice, "Open", root.id);
    const secret = await makeFolder(alice, "Secret", root.id, { inheritance_state: "EXPLICIT" });
    await setAcl(alice, secret.id, [toUser(alice, ...ALL)]);
    const leak = await makeFolder(alice, "Reachable below", secret.id, { inheritance_state: "EXPLICIT" });
    await setAcl(alice, leak.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);

    expect(await childIds(bob, root.id)).toEqual([open.id]);
    expect((await get(bob, root.id)).json.child_count).toBe(2);
    const foreign = await makeFolder(stranger, "Foreign");
    for (const suffix of ["", "/children", "/contents", "/path"]) {
      const hidden = expectError(await folders("GET", `/api/folders/${secret.id}${suffix}`, bob), 404, "NOT_FOUND");
      const missing = expectError(await folders("GET", `/api/folders/${crypto.randomUUID()}${suffix}`, bob), 404, "NOT_FOUND");
      const theirs = expectError(await folders("GET", `/api/folders/${foreign.id}${suffix}`, bob), 404, "NOT_FOUND");
      expect([hidden.message, theirs.message]).toEqual([missing.message, missing.message]);
    }
    const path = await folders("GET", `/api/folders/${leak.id}/path`, bob);
    expect(path.json).toMatchObject({ truncated: true });
    expect(path.json.content.map((f: FolderNode) => f.id)).toEqual([root.id, leak.id]);
    const full = await folders("GET", `/api/folders/${leak.id}/path`, alice);
    expect(full.json.content.map((f: FolderNode) => f.id)).toEqual([root.id, secret.id, leak.id]);
    expect(full.json.truncated).toBe(false);
  });

  it("a children listing shows exactly the children each user can GET", async () => {
    const root = await makeFolder(alice, "Mixed");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toGroup(analysts, "READ", "CREATE"), toUser(bob, "CREATE")]);
    const kids = [
      await makeFolder(alice, "a inherit", root.id),
      await makeFolder(alice, "b explicit closed", root.id, { inheritance_state: "EXPLICIT" }),
      await makeFolder(carol, "c by carol", root.id),
      await makeFolder(carol, "d carol explicit", root.id, { inheritance_state: "EXPLICIT" }),
    ];
    await setAcl(alice, kids[1]!.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    for (const user of [alice, bob, carol, keeper, permissioner]) {
      const gettable: string[] = [];
      for (const kid of kids) if ((await get(user, kid.id)).status === 200) gettable.push(kid.id);
      expect(await childIds(user, root.id).catch(() => "not readable"), user.username).toEqual(
        (await get(user, root.id)).status === 200 ? gettable : "not readable",
      );
    }
  });
});

describe("children and contents pages", () => {
  it("pages 120 children by name, page_size 50: 50, 50, 20, then no cursor", async () => {
    const root = await makeFolder(alice, "Big");
    const names = Array.from({ length: 120 }, (_, i) => `child ${String(i).padStart(3, "0")}`);
    for (const name of [...names].reverse()) await makeFolder(alice, name, root.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await folders("GET", `/api/folders/${root.id}/children${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`, alice);
      expect(res.status, res.text).toBe(200);
      sizes.push(res.json.content.length);
      seen.push(...res.json.content.map((f: FolderNode) => f.name));
      cursor = res.json.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen).toEqual(names);
    const small = await folders("GET", `/api/folders/${root.id}/children?page_size=200`, alice);
    expect(small.json.content).toHaveLength(120);
    expect(small.json.next_cursor).toBeNull();
  });

  it("refuses a cursor it did not issue for this folder, listing and caller, and a page_size out of range", async () => {
    const root = await makeFolder(alice, "Cursor tests");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const other = await makeFolder(alice, "Other folder");
    for (let i = 0; i < 3; i++) await makeFolder(alice, `kid ${i}`, root.id);
    for (let i = 0; i < 3; i++) expect((await folders("PUT", `/api/folders/${root.id}/items/DASHBOARD/cursor-item-${i}`, alice, { name: `item ${i}` })).status).toBe(201);
    const first = await folders("GET", `/api/folders/${root.id}/children?page_size=1`, alice);
    const cursor = first.json.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    // The second-to-last character changed (the last may carry only padding bits): to "B" if it is "A", else to "A".
    const altered = `${cursor.slice(0, -2)}${cursor.at(-2) === "A" ? "B" : "A"}${cursor.slice(-1)}`;
    expect(altered).not.toBe(cursor);
    const bad = [
      `/api/folders/${root.id}/children?cursor=${encodeURIComponent(altered)}`,
      `/api/folders/${root.id}/children?cursor=not-a-cursor`,
      `/api/folders/${other.id}/children?cursor=${encodeURIComponent(cursor)}`,
      `/api/folders/${root.id}/contents?cursor=${encodeURIComponent(cursor)}`,
    ];
    for (const path of bad) expectError(await folders("GET", path, alice), 400, "INVALID_CURSOR", ["query.cursor"]);
    expectError(await folders("GET", `/api/folders/${root.id}/children?cursor=${encodeURIComponent(cursor)}`, bob), 400, "INVALID_CURSOR");
    for (const size of ["0", "201", "abc", "1.5"]) {
      expectError(await folders("GET", `/api/folders/${root.id}/children?page_size=${size}`, alice), 400, "VALIDATION_FAILED", ["query.page_size"]);
    }
    expect((await folders("GET", `/api/folders/${root.id}/children?page_size=1&cursor=${encodeURIComponent(cursor)}`, alice)).status).toBe(200);
    const items = await allPages(alice, `/api/folders/${root.id}/contents`, 2);
    expect(items.map((i) => i.name)).toEqual(["item 0", "item 1", "item 2"]);
  });
});

describe("items filed in folders", () => {
  it("files a dashboard (201), renames or moves it (200), lists it with its name, takes it out (204)", async () => {
    const root = await makeFolder(alice, "Dashboards");
    const a = await makeFolder(alice, "A", root.id);
    const b = await makeFolder(alice, "B", root.id);
    const filed = await folders("PUT", `/api/folders/${a.id}/items/DASHBOARD/dash-1`, alice, { name: "Revenue" });
    expect(filed.status, filed.text).toBe(201);
    expect(filed.headers.get("Location")).toBe(`/api/folders/${a.id}/items/DASHBOARD/dash-1`);
    expect(filed.json).toMatchObject({ item_type: "DASHBOARD", item_id: "dash-1", name: "Revenue", folder_id: a.id, filed_by_user_id: alice.id });
    const renamed = await folders("PUT", `/api/folders/${a.id}/items/DASHBOARD/dash-1`, alice, { name: "Revenue 2026" });
    expect(renamed.status).toBe(200);
    expect((await get(alice, a.id)).json.item_count).toBe(1);

    const moved = await folders("PUT", `/api/folders/${b.id}/items/DASHBOARD/dash-1`, alice, { name: "Revenue 2026" });
    expect(moved.status).toBe(200);
    expect(moved.json.folder_id).toBe(b.id);
    expect([(await get(alice, a.id)).json.item_count, (await get(alice, b.id)).json.item_count]).toEqual([0, 1]);
    expect(await allPages(alice, `/api/folders/${b.id}/contents`)).toEqual([moved.json]);
    expect(await allPages(alice, `/api/folders/${a.id}/contents`)).toEqual([]);

    expectError(await folders("DELETE", `/api/folders/${a.id}/items/DASHBOARD/dash-1`, alice), 404, "NOT_FOUND");
    expect((await folders("DELETE", `/api/folders/${b.id}/items/DASHBOARD/dash-1`, alice)).status).toBe(204);
    expect(await allPages(alice, `/api/folders/${b.id}/contents`)).toEqual([]);
  });

  it("refuses an item of the other library, an unknown type, a malformed id, and callers without WRITE", async () => {
    const root = await makeFolder(alice, "Typed");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const reports = await makeFolder(alice, "Reports", undefined, { content_type: "REPORTS" });
    expect((await folders("PUT", `/api/folders/${reports.id}/items/REPORT/rep-1`, alice, { name: "Quarterly" })).status).toBe(201);
    const bobsPrivate = (await tree(bob, "?content_type=REPORTS")).find((f) => f.folder_type === "PRIVATE")!;
    const before = await dbSnapshot();
    const put = (who: TestUser, path: string, body: object = { name: "X" }) => folders("PUT", `/api/folders/${root.id}/items/${path}`, who, body);
    expectError(await put(alice, "REPORT/r-2"), 400, "VALIDATION_FAILED", ["path.itemType"]);
    expectError(await put(alice, "WIDGET/w-1"), 400, "VALIDATION_FAILED", ["path.itemType"]);
    expectError(await put(alice, "DASHBOARD/.hidden"), 400, "VALIDATION_FAILED", ["path.itemId"]);
    expectError(await put(alice, "DASHBOARD/d-1", { name: "" }), 400, "VALIDATION_FAILED", ["body.name"]);
    expectError(await put(bob, "DASHBOARD/d-1"), 403, "FORBIDDEN");
    expectError(await put(carol, "DASHBOARD/d-1"), 404, "NOT_FOUND");
    // Moving an item out of a folder the caller may not change (into bob's own private root).
    expectError(await folders("PUT", `/api/folders/${bobsPrivate.id}/items/REPORT/rep-1`, bob, { name: "Mine now" }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("the expanded state", () => {
  it("is per user, replaced as a whole, and shown in every FolderNode (never null)", async () => {
    const root = await makeFolder(alice, "Expandable");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const child = await makeFolder(alice, "Inner", root.id);
    const set = await folders("PUT", "/api/folders/tree-state", alice, { folder_ids: [root.id, child.id, root.id] });
    expect(set.status, set.text).toBe(200);
    expect(set.json.folder_ids.sort()).toEqual([root.id, child.id].sort());
    expect((await tree(alice)).find((f) => f.id === root.id)!.expanded).toBe(true);
    expect((await allPages(alice, `/api/folders/${root.id}/children`))[0].expanded).toBe(true);
    expect((await folders("GET", `/api/folders/${child.id}/path`, alice)).json.content.map((f: FolderNode) => f.expanded)).toEqual([true, true]);
    expect((await get(bob, root.id)).json.expanded).toBe(false);

    await folders("PUT", "/api/folders/tree-state", alice, { folder_ids: [child.id] });
    expect((await get(alice, root.id)).json.expanded).toBe(false);
    expect((await get(alice, child.id)).json.expanded).toBe(true);
  });

  it("refuses folders the caller may not READ, of its account or another: 400 naming each, nothing changed", async () => {
    const mine = await makeFolder(alice, "Visible");
    const closed = await makeFolder(alice, "Closed");
    const foreign = await makeFolder(stranger, "Foreign again");
    await setAcl(alice, mine.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const before = await dbSnapshot();
    const res = await folders("PUT", "/api/folders/tree-state", bob, { folder_ids: [mine.id, closed.id, foreign.id, "nope"] });
    expectError(res, 400, "VALIDATION_FAILED", ["body.folder_ids[1]", "body.folder_ids[2]", "body.folder_ids[3]"]);
    expect(res.text).not.toContain("Foreign again");
    expectError(await folders("PUT", "/api/folders/tree-state", bob, { folder_ids: Array.from({ length: 501 }, () => mine.id) }), 400, "VALIDATION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("ETags", () => {
  it("If-None-Match sees every change of the representation; If-Match compares the folder's own revision", async () => {
    const root = await makeFolder(alice, "Tagged");
    const first = await get(alice, root.id);
    const etag = first.headers.get("ETag")!;
    expect((await call("GET", `/api/folders/${root.id}`, { as: as(alice), headers: { ...PREVIEW, "If-None-Match": etag } })).status).toBe(304);
    await makeFolder(alice, "Makes child_count 1", root.id);
    const second = await get(alice, root.id);
    expect(second.headers.get("ETag")).not.toBe(etag);
    // A new child is no edit of the folder itself: the older tag still passes If-Match.
    const renamed = await folders("PATCH", `/api/folders/${root.id}`, alice, { folder_name: "Tagged 2" }, { "If-Match": etag });
    expect(renamed.status, renamed.text).toBe(200);
    expectError(await folders("PATCH", `/api/folders/${root.id}`, alice, { folder_name: "Tagged 3" }, { "If-Match": etag }), 412, "PRECONDITION_FAILED");
    expectError(await folders("DELETE", `/api/folders/${root.id}`, alice, undefined, { "If-Match": `W/${renamed.headers.get("ETag")}` }), 412, "PRECONDITION_FAILED");
    expectError(await folders("PUT", `/api/folders/${root.id}/permissions`, alice, { content: [] }, { "If-Match": etag }), 412, "PRECONDITION_FAILED");
    expect((await folders("PATCH", `/api/folders/${root.id}`, alice, { description: "ok" }, { "If-Match": renamed.headers.get("ETag")! })).status).toBe(200);
  });
});

describe("D1 round trips", () => {
  it("reads cost one round trip whatever the depth; writes at most two", async () => {
    let parent = await makeFolder(alice, "Deep 0");
    const chain = [parent];
    for (let depth = 1; depth <= 6; depth++) chain.push((parent = await makeFolder(alice, `Deep ${depth}`, parent.id)));
    const deepest = chain[6]!;
    await setAcl(alice, chain[3]!.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    await folders("PUT", `/api/folders/${deepest.id}/items/DASHBOARD/rt-item`, alice, { name: "Item" });
    const reads: [string, string][] = [
      ["tree", "/api/folders/tree"],
      ["folder at depth 6", `/api/folders/${deepest.id}`],
      ["children", `/api/folders/${chain[2]!.id}/children`],
      ["contents", `/api/folders/${deepest.id}/contents`],
      ["path", `/api/folders/${deepest.id}/path`],
      ["permissions", `/api/folders/${deepest.id}/permissions`],
    ];
    for (const [what, path] of reads) {
      for (const who of [alice, bob]) {
        const res = await folders("GET", path, who);
        if (res.status !== 200) continue; // bob may not read above chain[3] or the ACL
        expect(roundTrips(res), `${what} as ${who.username}`).toBe(1);
      }
    }
    expect(roundTrips(await folders("GET", `/api/folders/${deepest.id}`, bob))).toBe(1);
    expect(roundTrips(await folders("GET", `/api/folders/${chain[1]!.id}`, bob))).toBe(1); // a 404 costs the same

    const writes: [string, () => Promise<{ status: number; headers: Headers }>, number][] = [
      ["create a root", () => folders("POST", "/api/folders", alice, { folder_name: "RT root", content_type: "DASHBOARDS" }), 1],
      ["create a child", () => folders("POST", "/api/folders", alice, { folder_name: "RT child", parent_id: chain[5]!.id }), 2],
      ["rename", () => folders("PATCH", `/api/folders/${chain[4]!.id}`, alice, { folder_name: "Renamed" }), 2],
      ["move a subtree", () => folders("PATCH", `/api/folders/${chain[5]!.id}`, alice, { parent_id: chain[3]!.id }), 2],
      ["replace an ACL", () => folders("PUT", `/api/folders/${chain[4]!.id}/permissions`, alice, { content: [toUser(bob, "READ")] }), 2],
      ["file an item", () => folders("PUT", `/api/folders/${chain[4]!.id}/items/DASHBOARD/rt-2`, alice, { name: "Two" }), 2],
      ["take it out", () => folders("DELETE", `/api/folders/${chain[4]!.id}/items/DASHBOARD/rt-2`, alice), 2],
      ["set the expanded state", () => folders("PUT", "/api/folders/tree-state", alice, { folder_ids: chain.map((f) => f.id) }), 2],
      ["delete a folder", () => folders("DELETE", `/api/folders/${disposable.id}`, alice), 2],
    ];
    const disposable = await makeFolder(alice, "Disposable", chain[1]!.id);
    for (const [what, send, most] of writes) {
      const res = await send();
      expect(res.status, what).toBeLessThan(300);
      expect(roundTrips(res as never), what).toBe(most);
    }
  });
});
