import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, createGroup, createUser, expectError, type TestUser } from "./helpers";
import { allPages, folders, roundTrips, setAcl, toGroup, toUser, type FolderNode } from "./folder-helpers";

// The folder routes' statements are compiled once per isolate (src/db/folder-access.ts,
// folder-writes.ts): requests of four accounts, interleaved, each with its own caller, groups,
// names and ACLs, each read and write their own rows only, in the round trips they always took.
interface Tenant {
  admin: TestUser; // ROLE_ADMIN: a folder administrator
  reader: TestUser; // no privilege: reads through the ACL (its group's entry in even accounts, its own in odd ones)
  group: { id: string };
  library: "DASHBOARDS" | "REPORTS";
  itemType: "DASHBOARD" | "REPORT";
}

const ALL = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"];
let tenants: Tenant[];

beforeAll(async () => {
  tenants = await Promise.all(
    [0, 1, 2, 3].map(async (i): Promise<Tenant> => {
      const accountId = (await createAccount()).id;
      const group = await createGroup(accountId, `Readers ${i}`);
      const [admin, reader] = await Promise.all([createUser(accountId, { groups: ["Users", "Administrators"] }), createUser(accountId, { groups: ["Users", group.name] })]);
      const library = i % 2 ? "REPORTS" : "DASHBOARDS";
      return { admin, reader, group, library, itemType: library === "REPORTS" ? "REPORT" : "DASHBOARD" };
    }),
  );
  // Warm every credential (a tree read also makes each user's private root).
  for (const t of tenants) for (const user of [t.admin, t.reader]) expect((await folders("GET", "/api/folders/tree", user)).status).toBe(200);
});

/** The readers' grant on account i's root: its group's in even accounts, its own in odd ones. */
const readerGrant = (t: Tenant, i: number) => (i % 2 ? toUser(t.reader, "READ") : toGroup(t.group, "READ"));

/** Each account's root (an ACL naming its reader), i + 2 children (the first EXPLICIT) and a grandchild under the first. */
async function makeTrees() {
  const roots = await Promise.all(
    tenants.map((t, i) => folders("POST", "/api/folders", t.admin, { folder_name: `Root ${i}`, description: `About ${i}`, content_type: t.library })),
  );
  roots.forEach((res, i) => {
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: `Root ${i}`, description: `About ${i}`, content_type: tenants[i]!.library, depth: 0, parent_id: null });
    expect(res.json.materialized_path).toBe(`/${res.json.id}/`);
    expect(roundTrips(res)).toBe(1);
  });
  const acls = await Promise.all(
    tenants.map((t, i) => folders("PUT", `/api/folders/${roots[i]!.json.id}/permissions`, t.admin, { content: [toUser(t.admin, ...ALL), readerGrant(t, i)] })),
  );
  acls.forEach((res, i) => {
    expect(res.status, res.text).toBe(200);
    expect(res.json.content).toContainEqual({ ...readerGrant(tenants[i]!, i), permissions: ["READ"] });
    expect(roundTrips(res)).toBe(2);
  });
  const asked = tenants.flatMap((t, i) => Array.from({ length: i + 2 }, (_, k) => ({ t, i, k })));
  const made = await Promise.all(
    asked.map(({ t, i, k }) =>
      folders("POST", "/api/folders", t.admin, { folder_name: `Child ${i}.${k}`, parent_id: roots[i]!.json.id, inheritance_state: k === 0 ? "EXPLICIT" : "INHERIT" }),
    ),
  );
  made.forEach((res, n) => {
    const { i, k } = asked[n]!;
    const root = roots[i]!.json as FolderNode;
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: `Child ${i}.${k}`, parent_id: root.id, project_id: root.project_id, content_type: root.content_type, depth: 1 });
    expect(res.json.materialized_path).toBe(`${root.materialized_path}${res.json.id}/`);
    expect(roundTrips(res)).toBe(2);
  });
  const children = tenants.map((_, i) => made.filter((_, n) => asked[n]!.i === i).map((res) => res.json as FolderNode));
  const grandchildren = await Promise.all(tenants.map((t, i) => folders("POST", "/api/folders", t.admin, { folder_name: `Grandchild ${i}`, parent_id: children[i]![0]!.id })));
  grandchildren.forEach((res, i) => expect(res.json).toMatchObject({ name: `Grandchild ${i}`, depth: 2, parent_id: children[i]![0]!.id }));
  return { roots: roots.map((res) => res.json as FolderNode), children, grandchildren: grandchildren.map((res) => res.json as FolderNode) };
}

describe("the folder routes, compiled once per isolate", () => {
  it("create, read, list, path and permissions: each of four accounts' interleaved requests gets its own folders", async () => {
    const { roots, children, grandchildren } = await makeTrees();
    // The EXPLICIT child copied its root's ACL (its reader's grant included), each in its own account.
    const acls = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${grandchildren[i]!.id}/permissions`, t.admin)));
    acls.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.permission_inherited).toBe(true);
      expect(res.json.content).toHaveLength(2);
      expect(res.json.content).toContainEqual({ principalType: "USER", principalId: tenants[i]!.admin.id, permissions: ALL });
      expect(res.json.content).toContainEqual({ ...readerGrant(tenants[i]!, i), permissions: ["READ"] });
      expect(roundTrips(res)).toBe(1);
    });
    // The readers read through their own grant; another account's folder is not found.
    const got = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${grandchildren[i]!.id}`, t.reader)));
    got.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ id: grandchildren[i]!.id, name: `Grandchild ${i}`, permissions: ["READ"] });
      expect(roundTrips(res)).toBe(1);
    });
    const foreign = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${grandchildren[(i + 1) % 4]!.id}`, t.reader)));
    foreign.forEach((res) => expectError(res, 404, "NOT_FOUND"));
    // Children one per page: every page after the first starts after its own position.
    const listed = await Promise.all(tenants.map((t, i) => allPages(t.reader, `/api/folders/${roots[i]!.id}/children`, 1)));
    listed.forEach((content, i) => {
      expect(content.map((f) => f.name)).toEqual(children[i]!.map((f) => f.name));
      expect(content.map((f) => f.child_count)).toEqual(children[i]!.map((_, k) => (k === 0 ? 1 : 0)));
    });
    // Each account's tree of its own library.
    const trees = await Promise.all(tenants.map((t) => folders("GET", `/api/folders/tree?content_type=${t.library}`, t.reader)));
    trees.forEach((res, i) => {
      expect(res.json.map((f: FolderNode) => f.folder_type === "PRIVATE" || f.name)).toEqual([true, `Root ${i}`]);
      expect(res.json.every((f: FolderNode) => f.content_type === tenants[i]!.library)).toBe(true);
      expect(roundTrips(res)).toBe(1);
    });
    const paths = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${grandchildren[i]!.id}/path`, t.reader)));
    paths.forEach((res, i) => {
      expect(res.json.content.map((f: FolderNode) => f.name)).toEqual([`Root ${i}`, `Child ${i}.0`, `Grandchild ${i}`]);
      expect(roundTrips(res)).toBe(1);
    });
  });

  it("items, expanded folders and deletes: each account's interleaved writes land on its own rows", async () => {
    const { roots, children } = await makeTrees();
    // Account i files i + 1 items in its second child, its own ids.
    const asked = tenants.flatMap((t, i) => Array.from({ length: i + 1 }, (_, k) => ({ t, i, k })));
    const filed = await Promise.all(
      asked.map(({ t, i, k }) => folders("PUT", `/api/folders/${children[i]![1]!.id}/items/${t.itemType}/item-${i}-${k}`, t.admin, { name: `Item ${i}.${k}` })),
    );
    filed.forEach((res, n) => {
      const { t, i, k } = asked[n]!;
      expect(res.status, res.text).toBe(201);
      expect(res.json).toMatchObject({ item_type: t.itemType, item_id: `item-${i}-${k}`, name: `Item ${i}.${k}`, folder_id: children[i]![1]!.id, filed_by_user_id: t.admin.id });
      expect(roundTrips(res)).toBe(2);
    });
    const contents = await Promise.all(tenants.map((t, i) => allPages(t.reader, `/api/folders/${children[i]![1]!.id}/contents`, 1)));
    contents.forEach((items, i) => expect(items.map((item) => item.name)).toEqual(Array.from({ length: i + 1 }, (_, k) => `Item ${i}.${k}`)));
    // Item 0 moves to the first child (renamed), then leaves it.
    const moved = await Promise.all(tenants.map((t, i) => folders("PUT", `/api/folders/${children[i]![0]!.id}/items/${t.itemType}/item-${i}-0`, t.admin, { name: `Moved ${i}` })));
    moved.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ folder_id: children[i]![0]!.id, name: `Moved ${i}` });
    });
    const left = await Promise.all(tenants.map((t, i) => allPages(t.admin, `/api/folders/${children[i]![1]!.id}/contents`)));
    left.forEach((items, i) => expect(items.map((item) => item.item_id)).toEqual(Array.from({ length: i }, (_, k) => `item-${i}-${k + 1}`)));
    const takenOut = await Promise.all(tenants.map((t, i) => folders("DELETE", `/api/folders/${children[i]![0]!.id}/items/${t.itemType}/item-${i}-0`, t.admin)));
    takenOut.forEach((res) => expect(res.status, res.text).toBe(204));
    const emptied = await Promise.all(tenants.map((t, i) => allPages(t.admin, `/api/folders/${children[i]![0]!.id}/contents`)));
    emptied.forEach((items) => expect(items).toEqual([]));

    // Account i's reader expands every folder of its tree, then only its root and its first i children;
    // naming another account's folder is refused.
    const all = await Promise.all(tenants.map((t, i) => folders("PUT", "/api/folders/tree-state", t.reader, { folder_ids: [roots[i]!.id, ...children[i]!.map((f) => f.id)] })));
    all.forEach((res) => expect(res.status, res.text).toBe(200));
    const expandedIds = (i: number) => [roots[i]!.id, ...children[i]!.slice(0, i).map((f) => f.id)];
    const expanded = await Promise.all(tenants.map((t, i) => folders("PUT", "/api/folders/tree-state", t.reader, { folder_ids: expandedIds(i) })));
    expanded.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.folder_ids).toEqual(expandedIds(i));
      expect(roundTrips(res)).toBe(2);
    });
    const refused = await Promise.all(tenants.map((t, i) => folders("PUT", "/api/folders/tree-state", t.reader, { folder_ids: [roots[i]!.id, roots[(i + 1) % 4]!.id] })));
    refused.forEach((res) => expectError(res, 400, "VALIDATION_FAILED", ["body.folder_ids[1]"]));
    const flags = await Promise.all(tenants.map((t, i) => allPages(t.reader, `/api/folders/${roots[i]!.id}/children`)));
    flags.forEach((content, i) => expect(content.map((f) => f.expanded)).toEqual(children[i]!.map((_, k) => k < i)));
    // The admin's flags are its own (none).
    const adminFlags = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${roots[i]!.id}`, t.admin)));
    adminFlags.forEach((res) => expect(res.json.expanded).toBe(false));

    // Each account deletes its last child (with If-Match in odd accounts); a stale If-Match is refused.
    const last = (i: number) => children[i]![children[i]!.length - 1]!;
    const etags = await Promise.all(tenants.map((t, i) => folders("GET", `/api/folders/${last(i).id}`, t.admin)));
    const deleted = await Promise.all(
      tenants.map((t, i) => folders("DELETE", `/api/folders/${last(i).id}`, t.admin, undefined, i % 2 ? { "If-Match": etags[i]!.headers.get("ETag")! } : {})),
    );
    deleted.forEach((res) => {
      expect(res.status, res.text).toBe(204);
      expect(roundTrips(res)).toBe(2);
    });
    const remaining = await Promise.all(tenants.map((t, i) => allPages(t.admin, `/api/folders/${roots[i]!.id}/children`)));
    remaining.forEach((content, i) => expect(content.map((f) => f.id)).toEqual(children[i]!.slice(0, -1).map((f) => f.id)));
    const before = (await folders("GET", `/api/folders/${children[1]![0]!.id}`, tenants[1]!.admin)).headers.get("ETag")!;
    await setAcl(tenants[1]!.admin, children[1]![0]!.id, [toUser(tenants[1]!.admin, ...ALL)]);
    expectError(await folders("DELETE", `/api/folders/${children[1]![0]!.id}`, tenants[1]!.admin, undefined, { "If-Match": before }), 412, "PRECONDITION_FAILED");
  });
});
