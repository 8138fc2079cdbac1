/**
 * How a folder's own ACL is seeded and carried across inheritance changes.
 *
 * - A new root, or a new EXPLICIT folder, starts with its creator holding all five
 *   permissions, so the creator of a root keeps access to what others create below it.
 *   A new INHERIT (non-root) folder starts with an empty ACL: its ancestor's governs.
 * - INHERIT -> EXPLICIT copies the ACL it inherited, so nobody gains or loses access at the switch.
 * - EXPLICIT -> INHERIT drops the folder's own ACL.
 * - A root's own ACL always governs, whatever its state says, so a root's state change
 *   leaves its ACL alone.
 *
 * These functions take and give full ACLs (every principal), not the caller-filtered entries
 * the permission check loads.
 */
import { FOLDER_PERMISSIONS, type AclEntry, type InheritanceState } from "./model";

export function aclForNewFolder(creation: { creatorUserId: string; isRoot: boolean; inheritanceState: InheritanceState }): AclEntry[] {
  if (!creation.isRoot && creation.inheritanceState === "INHERIT") return [];
  return FOLDER_PERMISSIONS.map((permission) => ({ principalType: "USER", principalId: creation.creatorUserId, permission }));
}

export interface InheritanceChange {
  isRoot: boolean;
  from: InheritanceState;
  to: InheritanceState;
  /** The folder's own ACL now. */
  ownAcl: readonly AclEntry[];
  /** The full ACL of the folder's current ACL source (ResolvedFolder.aclSourceId): what it inherits now. */
  inheritedAcl: readonly AclEntry[];
}

/** The folder's own ACL after its inheritance state changes. */
export function aclAfterInheritanceChange(change: InheritanceChange): AclEntry[] {
  if (change.isRoot || change.from === change.to) return withoutDuplicates(change.ownAcl);
  return change.to === "EXPLICIT" ? withoutDuplicates(change.inheritedAcl) : [];
}

/** One entry per (principal, permission), so a copied ACL stays a valid set of rows. */
export function withoutDuplicates(acl: readonly AclEntry[]): AclEntry[] {
  const seen = new Set<string>();
  return acl.filter((entry) => {
    const key = `${entry.principalType}\u0000${entry.principalId}\u0000${entry.permission}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
