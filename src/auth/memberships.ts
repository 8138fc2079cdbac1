import { sql, type SQL } from "drizzle-orm";
import { resolvePrivileges, type Privilege } from "../domain/privileges";

/**
 * The user's groups with their privileges, as one JSON column of an authentication query over
 * `users`. "users"."id" is spelled out: Drizzle may render a column bare, which the correlated
 * subquery would resolve against its own tables.
 */
export function membershipsOf(): SQL<string> {
  return sql<string>`(SELECT json_group_array(json_object('id', g.id, 'privileges', json(g.privileges))) FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = "users"."id")`;
}

export function readMemberships(roles: readonly string[], json: string): { groupIds: string[]; privileges: Set<Privilege> } {
  const groups = JSON.parse(json) as { id: string; privileges: string[] }[];
  return { groupIds: groups.map((g) => g.id), privileges: resolvePrivileges(roles, groups.map((g) => g.privileges)) };
}
