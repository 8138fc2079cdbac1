import { describe, expect, it } from "vitest";
import {
  aclAfterInheritanceChange,
  aclForNewFolder,
  folderCallerOf,
  mayChangeFolderAcl,
  mayCreateRootFolders,
  mayDoOnFolder,
  mayReadFolder,
  resolveChain,
  resolveChildren,
  resolveFromChain,
  isPrivateFolder,
  type AclEntry,
  type FolderAccessFacts,
  type FolderCaller,
  type FolderPermission,
} from "../../../src/domain/folders";
import type { Privilege } from "../../../src/domain/privileges";

const ALL = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"];
const ALL_AND_OWNER = [...ALL, "OWNER"];

const alice: FolderCaller = { userId: "alice", groupIds: ["analysts"], isFolderAdmin: false };
const bob: FolderCaller = { userId: "bob", groupIds: [], isFolderAdmin: false };
const folderAdmin: FolderCaller = { userId: "admin", groupIds: [], isFolderAdmin: true };

const toUser = (userId: string, ...permissions: FolderPermission[]): AclEntry[] =>
  permissions.map((permission) => ({ principalType: "USER", principalId: userId, permission }));
const toGroup = (groupId: string, ...permissions: FolderPermission[]): AclEntry[] =>
  permissions.map((permission) => ({ principalType: "GROUP", principalId: groupId, permission }));

function folder(id: string, facts: Partial<FolderAccessFacts> = {}): FolderAccessFacts {
  return { id, inheritanceState: "INHERIT", ownerId: "carol", isPrivate: false, acl: [], ...facts };
}

describe("ACL source", () => {
  it("a root's own ACL governs even when it says INHERIT, and it is never inherited", () => {
    const root = folder("root", { inheritanceState: "INHERIT", acl: toUser("alice", "READ") });
    expect(resolveFromChain([root], alice)).toMatchObject({ permissions: ["READ"], inherited: false, aclSourceId: "root" });
  });

  it("an INHERIT folder takes the nearest EXPLICIT ancestor's ACL, not its own nor a farther one", () => {
    const root = folder("root", { acl: toUser("alice", "READ", "WRITE", "DELETE") });
    const team = folder("team", { inheritanceState: "EXPLICIT", acl: toUser("alice", "READ", "CREATE") });
    const mid = folder("mid", { acl: toUser("alice", "ADMINISTER") }); // dormant while it inherits
    const leaf = folder("leaf");
    const resolved = resolveFromChain([root, team, mid, leaf], alice);
    expect(resolved).toMatchObject({ permissions: ["READ", "CREATE"], inherited: true, aclSourceId: "team" });
  });

  it("an INHERIT folder below a root with no EXPLICIT folder between takes the root's ACL", () => {
    const root = folder("root", { acl: toUser("alice", "WRITE") });
    expect(resolveFromChain([root, folder("a"), folder("b")], alice)).toMatchObject({ permissions: ["WRITE"], inherited: true, aclSourceId: "root" });
  });

  it("an EXPLICIT folder uses only its own ACL: what its ancestors grant does not reach it", () => {
    const root = folder("root", { acl: toUser("alice", "READ", "WRITE") });
    const closed = folder("closed", { inheritanceState: "EXPLICIT", acl: toUser("bob", "READ") });
    expect(resolveFromChain([root, closed], alice)).toMatchObject({ permissions: [], inherited: false, aclSourceId: "closed" });
    expect(resolveFromChain([root, closed], bob).permissions).toEqual(["READ"]);
  });
});

describe("who gets what", () => {
  it("unites the entries naming the user and its groups, and ignores entries naming others", () => {
    const root = folder("root", { acl: [...toUser("alice", "READ"), ...toGroup("analysts", "WRITE"), ...toGroup("others", "DELETE"), ...toUser("bob", "CREATE")] });
    expect(resolveFromChain([root], alice).permissions).toEqual(["READ", "WRITE"]);
  });

  it("tells users and groups apart even when their ids are equal", () => {
    const root = folder("root", { acl: toGroup("alice", "READ") });
    expect(resolveFromChain([root], alice).permissions).toEqual([]);
    expect(resolveFromChain([root], { ...bob, groupIds: ["alice"] }).permissions).toEqual(["READ"]);
  });

  it("lists permissions in the fixed order whatever the order of the entries", () => {
    const root = folder("root", { acl: [...toUser("alice", "ADMINISTER", "READ", "DELETE", "READ"), ...toGroup("analysts", "CREATE", "WRITE")] });
    expect(resolveFromChain([root], alice).permissions).toEqual(ALL);
  });

  it("gives folder administrators the five permissions everywhere, without OWNER", () => {
    const root = folder("root", { acl: toUser("bob", "READ") });
    const closed = folder("closed", { inheritanceState: "EXPLICIT" });
    expect(resolveFromChain([root, closed], folderAdmin).permissions).toEqual(ALL);
  });

  it("gives the creator of the folder itself the five plus OWNER, but nothing by that on its subfolders", () => {
    const root = folder("root", { ownerId: "alice" });
    const child = folder("child", { ownerId: "bob" });
    expect(resolveFromChain([root], alice).permissions).toEqual(ALL_AND_OWNER);
    expect(resolveFromChain([root, child], alice).permissions).toEqual([]);
    expect(resolveFromChain([root, child], bob).permissions).toEqual(ALL_AND_OWNER);
  });

  it("nobody gets anything without a grant, an ownership or the administrator privilege", () => {
    const root = folder("root", { acl: toUser("bob", "READ") });
    expect(resolveFromChain([root, folder("a")], alice).permissions).toEqual([]);
    expect(mayReadFolder([])).toBe(false);
    expect(mayReadFolder(["READ"])).toBe(true);
  });
});

describe("private folders", () => {
  const privateRoot = folder("mine", { ownerId: "alice", isPrivate: true, acl: [...toUser("bob", "READ"), ...toGroup("analysts", "READ")] });
  const below = folder("below", { ownerId: "alice", inheritanceState: "EXPLICIT", acl: toUser("bob", "READ", "WRITE") });

  it("belong to their owner alone, with everything plus OWNER, through the whole subtree", () => {
    expect(resolveFromChain([privateRoot], alice).permissions).toEqual(ALL_AND_OWNER);
    expect(resolveFromChain([privateRoot, below], alice).permissions).toEqual(ALL_AND_OWNER);
  });

  it("are closed to everybody else, folder administrators and ACL entries included", () => {
    for (const caller of [bob, folderAdmin, { ...bob, groupIds: ["analysts"], isFolderAdmin: true }]) {
      expect(resolveFromChain([privateRoot], caller).permissions).toEqual([]);
      expect(resolveFromChain([privateRoot, below], caller).permissions).toEqual([]);
    }
  });

  it("are closed even to the creator of a folder inside them who is not the private owner", () => {
    expect(resolveFromChain([privateRoot, folder("planted", { ownerId: "bob" })], bob).permissions).toEqual([]);
  });

  it("the topmost PRIVATE folder decides the owner", () => {
    const nested = folder("nested", { ownerId: "bob", isPrivate: true });
    expect(resolveFromChain([privateRoot, nested], alice).permissions).toEqual(ALL_AND_OWNER);
    expect(resolveFromChain([privateRoot, nested], bob).permissions).toEqual([]);
  });

  it("are recognised by folder_type or visibility", () => {
    expect(isPrivateFolder("PRIVATE", "CUSTOM")).toBe(true);
    expect(isPrivateFolder("DASHBOARDS", "PRIVATE")).toBe(true);
    expect(isPrivateFolder("DASHBOARDS", "CUSTOM")).toBe(false);
    expect(isPrivateFolder("REPORTS", null)).toBe(false);
  });
});

describe("one walk and children pages", () => {
  it("resolveChain resolves every member, so a breadcrumb needs no second walk", () => {
    const root = folder("root", { acl: toUser("alice", "READ") });
    const closed = folder("closed", { inheritanceState: "EXPLICIT" });
    const open = folder("open", { inheritanceState: "EXPLICIT", acl: toGroup("analysts", "READ", "WRITE") });
    expect(resolveChain([root, closed, open], alice).map((r) => r.permissions)).toEqual([["READ"], [], ["READ", "WRITE"]]);
  });

  it("resolves each child of a page from the parent's hand-down as the full chain would", () => {
    const root = folder("root", { acl: toUser("alice", "READ") });
    const parent = folder("parent", { inheritanceState: "EXPLICIT", acl: toUser("alice", "READ", "CREATE") });
    const children = [
      folder("inherits"),
      folder("explicit", { inheritanceState: "EXPLICIT", acl: toUser("alice", "WRITE") }),
      folder("owned", { ownerId: "alice" }),
    ];
    const page = resolveChildren(resolveFromChain([root, parent], alice), children, alice);
    expect(page.map((r) => [r.permissions, r.inherited])).toEqual([
      [["READ", "CREATE"], true],
      [["WRITE"], false],
      [ALL_AND_OWNER, true],
    ]);
    children.forEach((child, i) => expect(page[i]).toEqual(resolveFromChain([root, parent, child], alice)));
  });

  it("keeps a private parent's children private", () => {
    const privateRoot = folder("mine", { ownerId: "alice", isPrivate: true });
    const [child] = resolveChildren(resolveFromChain([privateRoot], folderAdmin), [folder("c", { ownerId: "admin" })], folderAdmin);
    expect(child.permissions).toEqual([]);
  });

  it("refuses an empty chain", () => {
    expect(() => resolveFromChain([], alice)).toThrow();
  });
});

describe("seeding and switching ACLs", () => {
  it("seeds a root with its creator holding the five, an EXPLICIT child with what it would inherit plus its creator, an INHERIT child with nothing", () => {
    const seeded = toUser("alice", "READ", "WRITE", "CREATE", "DELETE", "ADMINISTER");
    const inheritedAcl = [...toUser("carol", "READ", "WRITE"), ...toGroup("analysts", "READ"), ...toUser("alice", "READ")];
    expect(aclForNewFolder({ creatorUserId: "alice", isRoot: true, inheritanceState: "INHERIT", inheritedAcl })).toEqual(seeded);
    expect(aclForNewFolder({ creatorUserId: "alice", isRoot: true, inheritanceState: "EXPLICIT", inheritedAcl })).toEqual(seeded);
    expect(aclForNewFolder({ creatorUserId: "alice", isRoot: false, inheritanceState: "EXPLICIT", inheritedAcl })).toEqual([
      ...toUser("carol", "READ", "WRITE"),
      ...toGroup("analysts", "READ"),
      ...seeded,
    ]);
    expect(aclForNewFolder({ creatorUserId: "alice", isRoot: false, inheritanceState: "INHERIT", inheritedAcl })).toEqual([]);
  });

  it("lets the creator of a root keep access to what others create below it", () => {
    const rootAcl = aclForNewFolder({ creatorUserId: "alice", isRoot: true, inheritanceState: "INHERIT", inheritedAcl: [] });
    const root = folder("root", { ownerId: "alice", acl: rootAcl });
    const bobs = folder("bobs", { ownerId: "bob", acl: aclForNewFolder({ creatorUserId: "bob", isRoot: false, inheritanceState: "INHERIT", inheritedAcl: rootAcl }) });
    const bobsGrandchild = folder("deeper", { ownerId: "bob" });
    expect(resolveFromChain([root, bobs], alice).permissions).toEqual(ALL);
    expect(resolveFromChain([root, bobs, bobsGrandchild], alice).permissions).toEqual(ALL);
  });

  it("an EXPLICIT child made by someone else keeps the root's creator in, exactly as an INHERIT child would", () => {
    const rootAcl = [...aclForNewFolder({ creatorUserId: "alice", isRoot: true, inheritanceState: "INHERIT", inheritedAcl: [] }), ...toUser("bob", "READ", "CREATE")];
    const root = folder("root", { ownerId: "alice", acl: rootAcl });
    const asExplicit = folder("bobs", {
      ownerId: "bob",
      inheritanceState: "EXPLICIT",
      acl: aclForNewFolder({ creatorUserId: "bob", isRoot: false, inheritanceState: "EXPLICIT", inheritedAcl: rootAcl }),
    });
    const asInherit = folder("bobs", { ownerId: "bob", acl: aclForNewFolder({ creatorUserId: "bob", isRoot: false, inheritanceState: "INHERIT", inheritedAcl: rootAcl }) });
    for (const caller of [alice, bob, folderAdmin, { userId: "carol", groupIds: [], isFolderAdmin: false }]) {
      expect(resolveFromChain([root, asExplicit], caller).permissions, caller.userId).toEqual(resolveFromChain([root, asInherit], caller).permissions);
    }
    expect(resolveFromChain([root, asExplicit], alice).permissions).toEqual(ALL);
  });

  it("INHERIT -> EXPLICIT copies the inherited ACL, so nobody's access changes", () => {
    const rootAcl = [...toUser("alice", "READ", "WRITE"), ...toGroup("analysts", "CREATE"), ...toUser("bob", "READ")];
    const root = folder("root", { acl: rootAcl });
    const child = folder("child", { acl: toUser("bob", "ADMINISTER") });
    const madeExplicit = {
      ...child,
      inheritanceState: "EXPLICIT" as const,
      acl: aclAfterInheritanceChange({ isRoot: false, from: "INHERIT", to: "EXPLICIT", ownAcl: child.acl, inheritedAcl: rootAcl }),
    };
    expect(madeExplicit.acl).toEqual(rootAcl);
    for (const caller of [alice, bob, folderAdmin]) {
      expect(resolveFromChain([root, madeExplicit], caller).permissions).toEqual(resolveFromChain([root, child], caller).permissions);
    }
    expect(resolveFromChain([root, madeExplicit], alice).inherited).toBe(false);
  });

  it("EXPLICIT -> INHERIT drops the folder's own ACL", () => {
    expect(aclAfterInheritanceChange({ isRoot: false, from: "EXPLICIT", to: "INHERIT", ownAcl: toUser("alice", "READ"), inheritedAcl: toUser("bob", "READ") })).toEqual([]);
  });

  it("leaves a root's ACL alone either way, and a non-change alone", () => {
    const own = toUser("alice", "READ");
    expect(aclAfterInheritanceChange({ isRoot: true, from: "INHERIT", to: "EXPLICIT", ownAcl: own, inheritedAcl: [] })).toEqual(own);
    expect(aclAfterInheritanceChange({ isRoot: true, from: "EXPLICIT", to: "INHERIT", ownAcl: own, inheritedAcl: [] })).toEqual(own);
    expect(aclAfterInheritanceChange({ isRoot: false, from: "EXPLICIT", to: "EXPLICIT", ownAcl: own, inheritedAcl: [] })).toEqual(own);
  });

  it("copies without duplicate rows", () => {
    const inheritedAcl = [...toUser("alice", "READ"), ...toUser("alice", "READ")];
    expect(aclAfterInheritanceChange({ isRoot: false, from: "INHERIT", to: "EXPLICIT", ownAcl: [], inheritedAcl })).toEqual(toUser("alice", "READ"));
  });
});

describe("privileges", () => {
  const set = (...privileges: Privilege[]) => new Set<Privilege>(privileges);

  it("ROLE_ADMIN implies folder administration and root creation", () => {
    expect(folderCallerOf("u", ["g"], set("ROLE_ADMIN"))).toEqual({ userId: "u", groupIds: ["g"], isFolderAdmin: true });
    expect(folderCallerOf("u", [], set("ROLE_ADMINISTER_FOLDERS")).isFolderAdmin).toBe(true);
    expect(folderCallerOf("u", [], set("ROLE_CREATE_FOLDERS", "ROLE_PERMISSION_FOLDERS")).isFolderAdmin).toBe(false);
    expect(mayCreateRootFolders(set("ROLE_ADMIN"))).toBe(true);
    expect(mayCreateRootFolders(set("ROLE_CREATE_FOLDERS"))).toBe(true);
    expect(mayCreateRootFolders(set("ROLE_ADMINISTER_FOLDERS"))).toBe(false);
  });

  it("ACL changes need ROLE_PERMISSION_FOLDERS or ADMINISTER, on a folder the caller can see", () => {
    expect(mayChangeFolderAcl(["READ"], set("ROLE_PERMISSION_FOLDERS"))).toBe(true);
    expect(mayChangeFolderAcl(["READ", "ADMINISTER"], set())).toBe(true);
    expect(mayChangeFolderAcl(["READ", "WRITE"], set())).toBe(false);
    expect(mayChangeFolderAcl([], set("ROLE_PERMISSION_FOLDERS"))).toBe(false);
  });
});

describe("what operations need", () => {
  it("nothing without READ: an unreadable folder is not found, whatever else an entry grants", () => {
    expect(mayDoOnFolder(["WRITE", "CREATE", "DELETE"], "edit")).toBe(false);
    expect(mayDoOnFolder(["READ", "WRITE"], "edit")).toBe(true);
  });

  it("creating inside and moving into need CREATE; editing, moving and filing need WRITE; deleting needs DELETE", () => {
    expect(mayDoOnFolder(["READ", "CREATE"], "createInside")).toBe(true);
    expect(mayDoOnFolder(["READ", "CREATE"], "moveInto")).toBe(true);
    expect(mayDoOnFolder(["READ", "WRITE"], "createInside")).toBe(false);
    expect(mayDoOnFolder(["READ", "WRITE"], "moveFolder")).toBe(true);
    expect(mayDoOnFolder(["READ", "WRITE"], "changeContents")).toBe(true);
    expect(mayDoOnFolder(["READ", "CREATE"], "changeContents")).toBe(false);
    expect(mayDoOnFolder(["READ", "DELETE"], "delete")).toBe(true);
    expect(mayDoOnFolder(["READ", "WRITE"], "delete")).toBe(false);
  });
});
