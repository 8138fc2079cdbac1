/**
 * The breadcrumb (path) of a folder shows only the members of its chain the caller may READ.
 * When a member is left out the answer says so (`truncated`), so a client does not
 * mistake the first readable folder for the root.
 */
import type { EffectivePermission } from "./model";

export interface Breadcrumb<Entry> {
  entries: Entry[];
  truncated: boolean;
}

/** From the chain root..folder, each with the caller's effective permissions (see resolveChain). */
export function visibleBreadcrumb<Entry extends { permissions: readonly EffectivePermission[] }>(
  chainFromRoot: readonly Entry[],
): Breadcrumb<Entry> {
  const entries = chainFromRoot.filter((entry) => entry.permissions.includes("READ"));
  return { entries, truncated: entries.length < chainFromRoot.length };
}
