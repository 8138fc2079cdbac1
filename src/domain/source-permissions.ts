/**
 * Permission resolution on a data source. READ and WRITE are granted to users or groups;
 * the source's owner (its creator) and the account's administrators have WRITE.
 * The SQL filter that lists readable sources (src/db/source-access.ts) mirrors this rule.
 */
export type SourcePermission = "NONE" | "READ" | "WRITE";
export type Grant = "READ" | "WRITE";

export interface PermissionFacts {
  isAccountAdmin: boolean;
  isOwner: boolean;
  /** The grants that name the user or one of its groups. */
  grants: readonly Grant[];
}

export function effectivePermission(facts: PermissionFacts): SourcePermission {
  if (facts.isAccountAdmin || facts.isOwner || facts.grants.includes("WRITE")) return "WRITE";
  return facts.grants.includes("READ") ? "READ" : "NONE";
}

export const canRead = (p: SourcePermission) => p !== "NONE";
export const canWrite = (p: SourcePermission) => p === "WRITE";

/** E1's rule: WRITE on the source, or READ plus ROLE_EDIT_FORMULAS. */
export function canEditMetrics(p: SourcePermission, hasEditFormulas: boolean): boolean {
  return p === "WRITE" || (p === "READ" && hasEditFormulas);
}
