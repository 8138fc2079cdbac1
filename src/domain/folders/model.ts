/**
 * The vocabulary of library folders: permissions, ACL entries, inheritance states, the
 * caller, and the depth limit. Shared by the permission, ACL, path and breadcrumb rules.
 */

/** What an ACL entry can grant, in the fixed order every answer lists them. */
export const FOLDER_PERMISSIONS = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"] as const;
export type FolderPermission = (typeof FOLDER_PERMISSIONS)[number];

/** OWNER is never granted: it marks the folder's creator (or the owner of a private tree). */
export type EffectivePermission = FolderPermission | "OWNER";
export const EFFECTIVE_PERMISSION_ORDER: readonly EffectivePermission[] = [...FOLDER_PERMISSIONS, "OWNER"];

/** INHERIT: the nearest EXPLICIT ancestor's ACL governs. EXPLICIT: the folder's own ACL. */
export type InheritanceState = "INHERIT" | "EXPLICIT";

export type PrincipalType = "USER" | "GROUP";

/** One grant of one permission to one user or group: one row of a folder's ACL. */
export interface AclEntry {
  principalType: PrincipalType;
  principalId: string;
  permission: FolderPermission;
}

/** The caller, as far as folder permissions care. */
export interface FolderCaller {
  userId: string;
  groupIds: readonly string[];
  /** Holds ROLE_ADMINISTER_FOLDERS (ROLE_ADMIN implies it): all five permissions on every non-private folder. */
  isFolderAdmin: boolean;
}

/** Root = depth 0; a folder may sit at most this deep unless configured otherwise. */
export const MAX_FOLDER_DEPTH = 6;

/** A folder is private when its type or its visibility says so; either column is enough. */
export function isPrivateFolder(folderType: string | null | undefined, visibility: string | null | undefined): boolean {
  return folderType === "PRIVATE" || visibility === "PRIVATE";
}

/** Does this entry grant something to the caller, directly or through one of its groups? */
export function namesCaller(entry: AclEntry, caller: FolderCaller): boolean {
  return entry.principalType === "USER" ? entry.principalId === caller.userId : caller.groupIds.includes(entry.principalId);
}

/** Permissions as a list in the fixed answer order, without duplicates. */
export function inAnswerOrder(held: Iterable<EffectivePermission>): EffectivePermission[] {
  const set = new Set(held);
  return EFFECTIVE_PERMISSION_ORDER.filter((permission) => set.has(permission));
}
