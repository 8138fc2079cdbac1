import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { refusedBy, WRITE_CONFLICT_GUARD } from "../../src/db/batch-guards";
import { createDatabase } from "../../src/db/client";
import { FOLDER_CYCLE_GUARD, FOLDER_TOO_DEEP_GUARD, moveStatements } from "../../src/db/folder-writes";
import { RoundTripCounter } from "../../src/db/round-trips";
import { RequestSession } from "../../src/db/session";
import { buildRequest, call, createAccount, createUser, databaseOf, databases, dbSnapshot, expectError, as, rowsOfAccount, type TestUser } from "./helpers";
import { allPages, folders, makeFolder, PREVIEW, setAcl, toUser, type FolderNode } from "./folder-helpers";

/**
 * Moves, the depth limit, deletes, and the invariants that must hold when writes race: the
 * materialized paths agree with the parents, no folder sits past the depth limit, no cycle forms,
 * child_count is exact. Every race fires its requests at once (Promise.all).
 */
let alice: TestUser; // ROLE_CREATE_FOLDERS
let bob: TestUser; // no privilege

const ALL = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"];

beforeAll(async () => {
  const accountId = (await createAccount()).id;
  alice = await createUser(accountId, { roles: ["ROLE_CREATE_FOLDERS"] });
  bob = await createUser(accountId);
  // Warm the credentials: the races below race on the database, not on password hashing.
  for (const user of [alice, bob]) expect((await folders("GET", "/api/folders/tree", user)).status).toBe(200);
});

const get = async (id: string, who = alice) => (await folders("GET", `/api/folders/${id}`, who)).json as FolderNode;
const move = (id: string, parentId: string, who = alice, headers: Record<string, string> = {}) =>
  folders("PATCH", `/api/folders/${id}`, who, { parent_id: parentId }, headers);

/** A chain root .. depth `deepest`, as a list indexed by depth. */
async function chain(name: string, deepest: number, under?: FolderNode): Promise<FolderNode[]> {
  const made: FolderNode[] = [];
  let parent = under;
  for (let depth = under ? under.depth + 1 : 0; depth <= deepest; depth++) made.push((parent = await makeFolder(alice, `${name} ${depth}`, parent?.id)));
  return made;
}

/** Reads every folder row of every database and checks the stored tree: paths and depths agree with the parents, projects are shared, nothing is too deep. */
async function expectConsistentTree(maxDepth = 6) {
  const rows: Record<string, any>[] = [];
  for (const [, database] of databases()) rows.push(...(await database.prepare("SELECT id, parent_id, materialized_path, depth, project_id FROM folders").all<Record<string, any>>()).results);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const problems: string[] = [];
  for (const r of rows) {
    const parent = r.parent_id === null ? undefined : byId.get(r.parent_id);
    const expectedPath = parent ? `${parent.materialized_path}${r.id}/` : `/${r.id}/`;
    if (r.materialized_path !== expectedPath) problems.push(`${r.id}: path ${r.materialized_path}, expected ${expectedPath}`);
    if (r.depth !== (parent ? parent.depth + 1 : 0)) problems.push(`${r.id}: depth ${r.depth}`);
    if (parent && parent.project_id !== r.project_id) problems.push(`${r.id}: project differs from its parent's`);
    if (r.depth > maxDepth) problems.push(`${r.id}: depth ${r.depth} past ${maxDepth}`);
  }
  expect(problems).toEqual([]);
}

describe("moves", () => {
  it("rewrite the path and depth of every folder of the moved subtree; the old and new parents' counts follow", async () => {
    const root = await makeFolder(alice, "Root");
    const [a, b, c] = await chain("A", 3, root);
    const d = await makeFolder(alice, "D", root.id);
    const res = await move(a!.id, d.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ parent_id: d.id, depth: 2, materialized_path: `/${root.id}/${d.id}/${a!.id}/` });
    expect(await get(b!.id)).toMatchObject({ depth: 3, materialized_path: `/${root.id}/${d.id}/${a!.id}/${b!.id}/` });
    expect(await get(c!.id)).toMatchObject({ depth: 4, materialized_path: `/${root.id}/${d.id}/${a!.id}/${b!.id}/${c!.id}/` });
    expect([(await get(root.id)).child_count, (await get(d.id)).child_count]).toEqual([1, 1]);
    expect((await allPages(alice, `/api/folders/${d.id}/children`)).map((f) => f.id)).toEqual([a!.id]);
    // Renaming an ancestor changes no path: paths are made of ids.
    expect((await folders("PATCH", `/api/folders/${root.id}`, alice, { folder_name: "Root renamed" })).status).toBe(200);
    expect((await get(c!.id)).materialized_path).toBe(`/${root.id}/${d.id}/${a!.id}/${b!.id}/${c!.id}/`);
    await expectConsistentTree();
  });

  it("refuse a cycle, another project, the depth limit, a root, an unknown parent: the documented 400s, nothing changed", async () => {
    const root = await makeFolder(alice, "Cycles");
    const [a, b, c] = await chain("Sub", 3, root);
    const deep = await chain("Deep", 4, root); // deep[3] sits at depth 4
    const otherRoot = await makeFolder(alice, "Other project");
    const before = await dbSnapshot();
    expectError(await move(a!.id, c!.id), 400, "FOLDER_CYCLE", ["body.parent_id"]);
    expectError(await move(a!.id, a!.id), 400, "FOLDER_CYCLE", ["body.parent_id"]);
    expectError(await move(a!.id, otherRoot.id), 400, "FOLDER_OTHER_PROJECT", ["body.parent_id"]);
    expectError(await move(root.id, b!.id), 400, "FOLDER_CYCLE", ["body.parent_id"]);
    expectError(await move(otherRoot.id, b!.id), 400, "FOLDER_OTHER_PROJECT", ["body.parent_id"]);
    // a's subtree is 2 levels tall: under depth 4 its deepest folder would sit at 7.
    expectError(await move(a!.id, deep[3]!.id), 400, "FOLDER_TOO_DEEP", ["body.parent_id"]);
    expectError(await move(a!.id, crypto.randomUUID()), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    expectError(await folders("PATCH", `/api/folders/${a!.id}`, alice, { parent_id: null }), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await move(c!.id, deep[3]!.id)).status).toBe(200); // a leaf fits: depth 5
  });

  it("need WRITE on the moved folder and CREATE on the new parent; permissions follow the folder", async () => {
    const root = await makeFolder(alice, "Moving rights");
    const writable = await makeFolder(alice, "Writable", root.id, { inheritance_state: "EXPLICIT" });
    const creatable = await makeFolder(alice, "Creatable", root.id, { inheritance_state: "EXPLICIT" });
    const readable = await makeFolder(alice, "Readable", root.id, { inheritance_state: "EXPLICIT" });
    await setAcl(alice, writable.id, [toUser(alice, ...ALL), toUser(bob, "READ", "WRITE")]);
    await setAcl(alice, creatable.id, [toUser(alice, ...ALL), toUser(bob, "READ", "CREATE")]);
    await setAcl(alice, readable.id, [toUser(alice, ...ALL), toUser(bob, "READ")]);
    const inWritable = await makeFolder(alice, "Movable", writable.id);
    const inReadable = await makeFolder(alice, "Stuck", readable.id);
    const before = await dbSnapshot();
    expectError(await move(inReadable.id, creatable.id, bob), 403, "FORBIDDEN");
    expectError(await move(inWritable.id, readable.id, bob), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
    const moved = await move(inWritable.id, creatable.id, bob);
    expect(moved.status, moved.text).toBe(200);
    // It inherits now from its new parent: bob holds READ and CREATE there, no more WRITE.
    expect(moved.json).toMatchObject({ permissions: ["READ", "CREATE"], permission_inherited: true });
    expect((await get(inWritable.id, bob)).permissions).toEqual(["READ", "CREATE"]);
  });

  it("with a stale If-Match: 412, nothing moved", async () => {
    const root = await makeFolder(alice, "Locked moves");
    const a = await makeFolder(alice, "A", root.id);
    const b = await makeFolder(alice, "B", root.id);
    const tag = (await folders("GET", `/api/folders/${a.id}`, alice)).headers.get("ETag")!;
    expect((await folders("PATCH", `/api/folders/${a.id}`, alice, { description: "changed" })).status).toBe(200);
    expectError(await move(a.id, b.id, alice, { "If-Match": tag }), 412, "PRECONDITION_FAILED");
    expect((await get(a.id)).parent_id).toBe(root.id);
  });
});

describe("the depth limit", () => {
  it("root = 0 and at most MAX_FOLDER_DEPTH (6) below it: a 7th level is 400 FOLDER_TOO_DEEP", async () => {
    const levels = await chain("Level", 6);
    expect(levels.map((f) => f.depth)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const before = await dbSnapshot();
    expectError(await folders("POST", "/api/folders", alice, { folder_name: "Too deep", parent_id: levels[6]!.id }), 400, "FOLDER_TOO_DEEP", ["body.parent_id"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("follows the MAX_FOLDER_DEPTH var", async () => {
    const app = await createApp();
    const bindings = { ...env, MAX_FOLDER_DEPTH: "2" };
    // Straight to an app with other vars: `call` uses the test bindings (the answers are the same routes, checked elsewhere).
    const send = async (body: object) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(buildRequest("POST", "/api/folders", { as: as(alice), headers: PREVIEW, body }), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return { status: response.status, json: (await response.json()) as any };
    };
    const root = await send({ folder_name: "Shallow", content_type: "DASHBOARDS" });
    const one = await send({ folder_name: "One", parent_id: root.json.id });
    const two = await send({ folder_name: "Two", parent_id: one.json.id });
    const three = await send({ folder_name: "Three", parent_id: two.json.id });
    expect([root.status, one.status, two.status, three.status]).toEqual([201, 201, 201, 400]);
    expect(three.json.errorCode).toBe("FOLDER_TOO_DEEP");
  });
});

describe("deleting", () => {
  it("is refused while a folder holds subfolders or items (409), needs DELETE, then 204 and gone", async () => {
    const root = await makeFolder(alice, "Deletions");
    await setAcl(alice, root.id, [toUser(alice, ...ALL), toUser(bob, "READ", "WRITE", "CREATE")]);
    const parent = await makeFolder(alice, "Parent", root.id);
    const child = await makeFolder(alice, "Child", parent.id);
    const holder = await makeFolder(alice, "Holder", root.id);
    expect((await folders("PUT", `/api/folders/${holder.id}/items/DASHBOARD/kept`, alice, { name: "Kept" })).status).toBe(201);
    const before = await dbSnapshot();
    expectError(await folders("DELETE", `/api/folders/${parent.id}`, alice), 409, "FOLDER_NOT_EMPTY");
    expectError(await folders("DELETE", `/api/folders/${holder.id}`, alice), 409, "FOLDER_NOT_EMPTY");
    expectError(await folders("DELETE", `/api/folders/${child.id}`, bob), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
    expect((await folders("DELETE", `/api/folders/${child.id}`, alice)).status).toBe(204);
    expectError(await folders("GET", `/api/folders/${child.id}`, alice), 404, "NOT_FOUND");
    expect((await folders("DELETE", `/api/folders/${parent.id}`, alice)).status).toBe(204);
    expect((await get(root.id)).child_count).toBe(1);
  });
});

describe("concurrent writes", () => {
  it("50 simultaneous creates under one parent: all made, child_count exact", async () => {
    const parent = await makeFolder(alice, "Busy parent");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => folders("POST", "/api/folders", alice, { folder_name: `racer ${String(i).padStart(2, "0")}`, parent_id: parent.id })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect((await get(parent.id)).child_count).toBe(50);
    const listed = await allPages(alice, `/api/folders/${parent.id}/children`, 20);
    expect(new Set(listed.map((f) => f.id)).size).toBe(50);
    expect(listed.map((f) => f.name)).toEqual(Array.from({ length: 50 }, (_, i) => `racer ${String(i).padStart(2, "0")}`));
    await expectConsistentTree();
  });

  it.each([1, 2, 3, 4, 5])("two simultaneous moves that together would make a cycle: one is refused (round %i)", async (round) => {
    const root = await makeFolder(alice, `Crossing ${round}`);
    const a = await makeFolder(alice, "A", root.id);
    const b = await makeFolder(alice, "B", root.id);
    const [aUnderB, bUnderA] = await Promise.all([move(a.id, b.id), move(b.id, a.id)]);
    expect([aUnderB.status, bUnderA.status].sort()).toEqual([200, 400]);
    expect([aUnderB, bUnderA].find((r) => r.status === 400)!.json.errorCode).toBe("FOLDER_CYCLE");
    const [movedA, movedB] = [await get(a.id), await get(b.id)];
    expect([movedA.parent_id, movedB.parent_id].sort()).toEqual([root.id, aUnderB.status === 200 ? b.id : a.id].sort());
    await expectConsistentTree();
  });

  it.each([1, 2, 3])("a move deeper and a create below the moved folder, together past the limit: one is refused (round %i)", async (round) => {
    const levels = await chain(`Limit ${round}`, 5); // levels[5] at depth 5
    const mover = await makeFolder(alice, "Mover", levels[2]!.id); // depth 3, a leaf
    const [moved, created] = await Promise.all([
      move(mover.id, levels[5]!.id), // alone: a leaf at depth 6
      folders("POST", "/api/folders", alice, { folder_name: "New child", parent_id: mover.id }), // alone: depth 4
    ]);
    const refused = [moved, created].filter((r) => r.status >= 400);
    expect(refused).toHaveLength(1);
    expect([moved, created].filter((r) => r.status === 200 || r.status === 201)).toHaveLength(1);
    expect(refused[0]!.json.errorCode).toBe("FOLDER_TOO_DEEP");
    await expectConsistentTree();
  });

  it.each([1, 2, 3])("deleting a parent while a child is created under it leaves no orphan (round %i)", async (round) => {
    const root = await makeFolder(alice, `Orphans ${round}`);
    const parent = await makeFolder(alice, "Parent", root.id);
    const [deleted, created] = await Promise.all([
      folders("DELETE", `/api/folders/${parent.id}`, alice),
      folders("POST", "/api/folders", alice, { folder_name: "Late child", parent_id: parent.id }),
    ]);
    if (deleted.status === 204) expectError(created, 400, "VALIDATION_FAILED", ["body.parent_id"]);
    else {
      expectError(deleted, 409, "FOLDER_NOT_EMPTY");
      expect(created.status).toBe(201);
    }
    await expectConsistentTree();
  });
});

describe("the guards inside a write's own batch", () => {
  // The batches run on alice's account's database, as its requests do.
  let aliceDatabase: D1Database;
  beforeAll(async () => {
    aliceDatabase = await databaseOf(alice.accountId);
  });
  const db = () => createDatabase(new RequestSession(aliceDatabase, "first-primary"), new RoundTripCounter());

  it("a move batch built from a read taken before a crossing move is refused as a cycle when it runs", async () => {
    const root = await makeFolder(alice, "Stale cycle");
    const a = await makeFolder(alice, "A", root.id);
    const b = await makeFolder(alice, "B", root.id);
    const staleMoveOfB = moveStatements(db(), { accountId: alice.accountId, folderId: b.id, oldPath: b.materialized_path, oldDepth: b.depth, newParentId: a.id, maxDepth: 6 });
    expect((await move(a.id, b.id)).status).toBe(200);
    const refusal = await db().batch(staleMoveOfB).then(() => undefined, (err: unknown) => err);
    expect(refusedBy(refusal, FOLDER_CYCLE_GUARD)).toBe(true);
    await expectConsistentTree();
  });

  it("a move batch is refused as too deep when the subtree grew since the read, and as a conflict when the folder moved", async () => {
    const levels = await chain("Stale depth", 5);
    const mover = await makeFolder(alice, "Leaf", levels[1]!.id);
    const moveUnderDeepest = () => moveStatements(db(), { accountId: alice.accountId, folderId: mover.id, oldPath: mover.materialized_path, oldDepth: mover.depth, newParentId: levels[5]!.id, maxDepth: 6 });
    const stale = moveUnderDeepest();
    await makeFolder(alice, "Grown", mover.id); // the leaf is a subtree of height 1 now
    expect(refusedBy(await db().batch(stale).then(() => undefined, (err: unknown) => err), FOLDER_TOO_DEEP_GUARD)).toBe(true);
    const staleAgain = moveUnderDeepest();
    expect((await move(mover.id, levels[2]!.id)).status).toBe(200);
    expect(refusedBy(await db().batch(staleAgain).then(() => undefined, (err: unknown) => err), WRITE_CONFLICT_GUARD)).toBe(true);
    await expectConsistentTree();
  });
});

describe("deleting an account", () => {
  it("deletes its whole folder trees with their ACLs, items and expanded states, in one batch", async () => {
    const doomed = await createAccount();
    const owner = await createUser(doomed.id, { groups: ["Users", "Administrators"] });
    const root = await makeFolder(owner, "Doomed root");
    let parent = root;
    for (let depth = 1; depth <= 4; depth++) parent = await makeFolder(owner, `Level ${depth}`, parent.id, depth === 2 ? { inheritance_state: "EXPLICIT" } : {});
    expect((await folders("PUT", `/api/folders/${parent.id}/items/DASHBOARD/doomed-item`, owner, { name: "Item" })).status).toBe(201);
    expect((await folders("PUT", "/api/folders/tree-state", owner, { folder_ids: [root.id, parent.id] })).status).toBe(200);
    const owned = await rowsOfAccount(doomed.id);
    expect([owned.folders, owned.folder_acl, owned.folder_items, owned.folder_tree_state].every((n) => n! > 0)).toBe(true);
    expect((await call("DELETE", `/api/accounts/${doomed.id}`)).status).toBe(204);
    const after = await rowsOfAccount(doomed.id);
    expect([after.folders, after.folder_acl, after.folder_items, after.folder_tree_state]).toEqual([0, 0, 0, 0]);
  });
});

describe("another account's folders", () => {
  it("are 404 on every route and refused as a parent, exactly like unknown ids", async () => {
    const stranger = await createUser((await createAccount()).id, { groups: ["Users", "Administrators"] });
    const theirs = await makeFolder(stranger, "Not yours");
    const mine = await makeFolder(alice, "Mine");
    const before = await dbSnapshot();
    for (const [method, suffix, body] of [
      ["GET", ""],
      ["PATCH", "", { folder_name: "x" }],
      ["DELETE", ""],
      ["GET", "/children"],
      ["GET", "/contents"],
      ["GET", "/path"],
      ["GET", "/permissions"],
      ["PUT", "/permissions", { content: [] }],
      ["PUT", "/items/DASHBOARD/d1", { name: "x" }],
      ["DELETE", "/items/DASHBOARD/d1"],
    ] as [string, string, unknown?][]) {
      const res = await folders(method, `/api/folders/${theirs.id}${suffix}`, alice, body);
      const unknown = await folders(method, `/api/folders/${crypto.randomUUID()}${suffix}`, alice, body);
      expectError(res, 404, "NOT_FOUND");
      expect(res.json.message, `${method} ${suffix}`).toBe(unknown.json.message);
      expect(res.text).not.toContain("Not yours");
    }
    expectError(await move(mine.id, theirs.id), 400, "VALIDATION_FAILED", ["body.parent_id"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", `/api/folders/${theirs.id}`, { as: as(stranger), headers: PREVIEW })).status).toBe(200);
  });
});
