/**
 * How a folder's own ACL is seeded and carried across inheritance changes.
 *
 * - A new root starts with its creator holding all five permissions.
 * - A new INHERIT child starts with an empty ACL: its ancestor's governs.
 * - A new EXPLICIT child starts with the ACL it would have inherited plus its creator holding
 *   all five. Seeding it with its creator alone would lock out everyone the ancestor's ACL
 *   admits (the root's creator among them) the moment someone else made an EXPLICIT folder in
 *   their tree; this way an EXPLICIT child starts with exactly the permissions an INHERIT child
 *   in its place would give, and only later edits make it differ.
 * - INHERIT -> EXPLICIT copies the ACL it inherited, so nobody gains or loses access at the switch.
 * - EXPLICIT -> INHERIT drops the folder's own ACL.
 * - A root's own ACL always governs, whatever its state says, so a root's state change
 *   leaves its ACL alone.
 *
 * The storage layer copies "the inherited ACL" inside the write's own batch (as it is at that
 * moment), so these rules come in two forms: plans (which ACL to copy, whom to add), which the
 * handlers follow in SQL, and the full ACLs they produce, which the tests check.
 * These take and give full ACLs (every principal), not the caller-filtered entries the
 * permission check loads.
 */
import { FOLDER_PERMISSIONS, type AclEntry, type InheritanceState } from "./model";

export interface NewFolderAclPlan {
  /** Copy the ACL the new folder's parent hands down (its ACL source's). */
  copyInherited: boolean;
  /** Grant the creator all five permissions. */
  grantCreator: boolean;
}

export function aclPlanForNewFolder(creation: { isRoot: boolean; inheritanceState: InheritanceState }): NewFolderAclPlan {
  if (creation.isRoot) return { copyInherited: false, grantCreator: true };
  return creation.inheritanceState === "EXPLICIT" ? { copyInherited: true, grantCreator: true } : { copyInherited: false, grantCreator: false };
}

export function aclForNewFolder(creation: {
  creatorUserId: string;
  isRoot: boolean;
  inheritanceState: InheritanceState;
  /** The full ACL of the parent's ACL source (what an INHERIT child there would use); ignored for roots. */
  inheritedAcl: readonly AclEntry[];
}): AclEntry[] {
  const plan = aclPlanForNewFolder(creation);
  return withoutDuplicates([
    ...(plan.copyInherited ? creation.inheritedAcl : []),
    ...(plan.grantCreator ? creatorGrants(creation.creatorUserId) : []),
  ]);
}

/** The five permissions for one user: what a creator is seeded with. */
export function creatorGrants(userId: string): AclEntry[] {
  return FOLDER_PERMISSIONS.map((permission) => ({ principalType: "USER", principalId: userId, permission }));
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

/** What an inheritance change does to the folder's own ACL. */
export type InheritanceChangePlan = "KEEP_OWN" | "COPY_INHERITED" | "CLEAR_OWN";

export function inheritanceChangePlan(change: { isRoot: boolean; from: InheritanceState; to: InheritanceState }): InheritanceChangePlan {
  if (change.isRoot || change.from === change.to) return "KEEP_OWN";
  return change.to === "EXPLICIT" ? "COPY_INHERITED" : "CLEAR_OWN";
}

/** The folder's own ACL after its inheritance state changes. */
export function aclAfterInheritanceChange(change: InheritanceChange): AclEntry[] {
  switch (inheritanceChangePlan(change)) {
    case "KEEP_OWN":
      return withoutDuplicates(change.ownAcl);
    case "COPY_INHERITED":
      return withoutDuplicates(change.inheritedAcl);
    case "CLEAR_OWN":
      return [];
  }
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
