/**
 * Effective permissions of a caller on a folder.
 *
 * - PRIVATE subtree (a folder that is PRIVATE, or lies below one): the owner of the topmost
 *   PRIVATE folder of the chain gets READ, WRITE, CREATE, DELETE, ADMINISTER and OWNER;
 *   nobody else gets anything, folder administrators included. In practice only a user's
 *   private root is PRIVATE, so "the owner of the private root".
 * - Otherwise the union of:
 *   - folder administrators (ROLE_ADMINISTER_FOLDERS, implied by ROLE_ADMIN): the five;
 *   - the ACL entries naming the caller or one of its groups on the folder's ACL source:
 *     the folder itself when it is a root or EXPLICIT, else its nearest EXPLICIT ancestor
 *     (a root always counts as explicit, even when it says INHERIT);
 *   - the creator (owner) of the folder itself: the five plus OWNER.
 * - `inherited` (the API's permission_inherited) is true when the ACL source is an ancestor:
 *   false for every root and every EXPLICIT folder. It does not depend on the caller.
 * - Answers list permissions in the order READ, WRITE, CREATE, DELETE, ADMINISTER, OWNER.
 *
 * Built for one query per check: the handler loads the chain root..folder from the
 * materialized path, with each member's own facts and only the ACL entries naming the caller
 * (entries naming others are ignored here anyway). A children page reuses the parent's
 * `forChildren` with `resolveChild`, so no child walks its chain again.
 */
import { holds, type Privilege } from "../privileges";
import {
  FOLDER_PERMISSIONS,
  inAnswerOrder,
  namesCaller,
  type AclEntry,
  type EffectivePermission,
  type FolderCaller,
  type FolderPermission,
  type InheritanceState,
} from "./model";

/** A folder's own facts, as one member of a chain or one row of a children page. */
export interface FolderAccessFacts {
  id: string;
  inheritanceState: InheritanceState;
  /** The user who created the folder. */
  ownerId: string;
  /** folder_type or visibility PRIVATE (see isPrivateFolder). */
  isPrivate: boolean;
  /** The folder's own ACL; only the entries naming the caller matter. Ignored while it inherits. */
  acl: readonly AclEntry[];
}

/** What a folder hands down: all a child needs besides its own facts. */
export interface InheritedAccess {
  /** Owner of the private subtree the folder is in; null outside private subtrees. */
  privateOwnerId: string | null;
  /** The ACL source an INHERIT child uses: the parent's own ACL source. */
  aclSourceId: string;
  aclSourceEntries: readonly AclEntry[];
}

export interface ResolvedFolder {
  permissions: EffectivePermission[];
  /** permission_inherited: the ACL comes from an ancestor. */
  inherited: boolean;
  /** The folder whose ACL governs this one (itself unless inherited). */
  aclSourceId: string;
  forChildren: InheritedAccess;
}

/**
 * Resolves one folder from its parent's hand-down (null for a root) and its own facts.
 * The building block of both the chain walk and a children page.
 */
export function resolveChild(parent: InheritedAccess | null, folder: FolderAccessFacts, caller: FolderCaller): ResolvedFolder {
  const privateOwnerId = parent?.privateOwnerId ?? (folder.isPrivate ? folder.ownerId : null);
  const usesOwnAcl = parent === null || folder.inheritanceState === "EXPLICIT";
  const aclSourceId = usesOwnAcl ? folder.id : parent.aclSourceId;
  const aclSourceEntries = usesOwnAcl ? folder.acl : parent.aclSourceEntries;
  return {
    permissions: permissionsOf(caller, folder.ownerId, privateOwnerId, aclSourceEntries),
    inherited: !usesOwnAcl,
    aclSourceId,
    forChildren: { privateOwnerId, aclSourceId, aclSourceEntries },
  };
}

/** Every member of the chain (root first) resolved, in the same order: one walk serves a breadcrumb. */
export function resolveChain(chain: readonly FolderAccessFacts[], caller: FolderCaller): ResolvedFolder[] {
  const resolved: ResolvedFolder[] = [];
  let handedDown: InheritedAccess | null = null;
  for (const folder of chain) {
    const current = resolveChild(handedDown, folder, caller);
    resolved.push(current);
    handedDown = current.forChildren;
  }
  return resolved;
}

/** The caller's permissions on the last folder of `chain` (root first, the folder itself last). */
export function resolveFromChain(chain: readonly FolderAccessFacts[], caller: FolderCaller): ResolvedFolder {
  if (chain.length === 0) throw new Error("resolveFromChain needs at least the folder itself");
  const resolved = resolveChain(chain, caller);
  return resolved[resolved.length - 1];
}

/** A children page: every child resolved from the parent's hand-down, in the given order. */
export function resolveChildren(parent: ResolvedFolder, children: readonly FolderAccessFacts[], caller: FolderCaller): ResolvedFolder[] {
  return children.map((child) => resolveChild(parent.forChildren, child, caller));
}

function permissionsOf(
  caller: FolderCaller,
  folderOwnerId: string,
  privateOwnerId: string | null,
  aclSourceEntries: readonly AclEntry[],
): EffectivePermission[] {
  if (privateOwnerId !== null) {
    return privateOwnerId === caller.userId ? inAnswerOrder([...FOLDER_PERMISSIONS, "OWNER"]) : [];
  }
  const held = new Set<EffectivePermission>();
  if (caller.isFolderAdmin) FOLDER_PERMISSIONS.forEach((permission) => held.add(permission));
  for (const entry of aclSourceEntries) if (namesCaller(entry, caller)) held.add(entry.permission);
  if (folderOwnerId === caller.userId) [...FOLDER_PERMISSIONS, "OWNER" as const].forEach((permission) => held.add(permission));
  return inAnswerOrder(held);
}

export function hasFolderPermission(permissions: readonly EffectivePermission[], wanted: EffectivePermission): boolean {
  return permissions.includes(wanted);
}

/** Listings, trees and breadcrumbs show a folder only when the caller may READ it. */
export function mayReadFolder(permissions: readonly EffectivePermission[]): boolean {
  return permissions.includes("READ");
}

/** The caller from a user's id, groups and privileges. */
export function folderCallerOf(userId: string, groupIds: readonly string[], privileges: ReadonlySet<Privilege>): FolderCaller {
  return { userId, groupIds, isFolderAdmin: holds(privileges, "ROLE_ADMINISTER_FOLDERS") };
}

/** Root folders start projects: ROLE_CREATE_FOLDERS (or ROLE_ADMIN). Children need CREATE on the parent instead. */
export function mayCreateRootFolders(privileges: ReadonlySet<Privilege>): boolean {
  return holds(privileges, "ROLE_CREATE_FOLDERS");
}

/**
 * Changing a folder's ACL or inheritance state: ROLE_PERMISSION_FOLDERS (anywhere) or
 * ADMINISTER on the folder, and only on a folder the caller can see at all (READ), so
 * nobody else's private tree is reachable this way.
 */
export function mayChangeFolderAcl(permissions: readonly EffectivePermission[], privileges: ReadonlySet<Privilege>): boolean {
  if (!mayReadFolder(permissions)) return false;
  return holds(privileges, "ROLE_PERMISSION_FOLDERS") || permissions.includes("ADMINISTER");
}

/**
 * What each operation needs on the folders it touches. Every folder an operation names must
 * first be readable (READ), or it is answered as not found, exactly like another account's; then:
 * - create a subfolder: CREATE on the parent (a root needs ROLE_CREATE_FOLDERS instead);
 * - rename or describe: WRITE on the folder;
 * - move: WRITE on the folder and CREATE on the new parent (a move is a creation under the new
 *   parent as far as that parent's owners are concerned, and an edit of the moved folder);
 * - file or take out an item: WRITE on the folder the item goes into or leaves (moving an item
 *   between folders changes both);
 * - delete: DELETE on the folder;
 * - read or replace the ACL, or change the inheritance state: mayChangeFolderAcl.
 */
export const FOLDER_OPERATION_NEEDS = {
  createInside: "CREATE",
  edit: "WRITE",
  moveFolder: "WRITE",
  moveInto: "CREATE",
  changeContents: "WRITE",
  delete: "DELETE",
} as const satisfies Record<string, FolderPermission>;

export type FolderOperation = keyof typeof FOLDER_OPERATION_NEEDS;

export function mayDoOnFolder(permissions: readonly EffectivePermission[], operation: FolderOperation): boolean {
  return mayReadFolder(permissions) && permissions.includes(FOLDER_OPERATION_NEEDS[operation]);
}
