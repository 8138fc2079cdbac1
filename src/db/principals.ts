import { and, eq, sql } from "drizzle-orm";
import type { Problem } from "../lib/errors";
import type { Database } from "./client";
import { compiled, inBatch } from "./compiled";
import { inJsonList } from "./connections";
import { groups, users } from "./schema";

/**
 * Users and groups named in a body (ACL entries, grants), checked against one account: the
 * queries are batchable, so a handler folds them into its first read, and json_each keeps each
 * at one bound parameter however many principals are named.
 */
export interface PrincipalRef {
  principalType: "USER" | "GROUP";
  principalId: string;
}

export function selectPrincipalsOfAccount(db: Database, accountId: string, refs: readonly PrincipalRef[]) {
  const idsOf = (type: PrincipalRef["principalType"]) => JSON.stringify([...new Set(refs.filter((r) => r.principalType === type).map((r) => r.principalId))]);
  return [inBatch(usersOfAccount(db), { accountId, ids: idsOf("USER") }), inBatch(groupsOfAccount(db), { accountId, ids: idsOf("GROUP") })] as const;
}
// Compiled once per isolate (db/compiled.ts): a folder's permissions PUT reads them on every request.
const usersOfAccount = compiled((db) => db.select({ id: users.id }).from(users).where(and(eq(users.accountId, sql.placeholder("accountId")), inJsonList(users.id, sql.placeholder("ids")))));
const groupsOfAccount = compiled((db) => db.select({ id: groups.id }).from(groups).where(and(eq(groups.accountId, sql.placeholder("accountId")), inJsonList(groups.id, sql.placeholder("ids")))));

/** One Problem per entry naming no user or group of the account, at `body.content[i].principalId` (or the path `member` gives). */
export function unknownPrincipals(
  refs: readonly PrincipalRef[],
  found: { users: readonly { id: string }[]; groups: readonly { id: string }[] },
  member = (i: number) => `body.content[${i}].principalId`,
): Problem[] {
  const known = new Set([...found.users.map((u) => `USER:${u.id}`), ...found.groups.map((g) => `GROUP:${g.id}`)]);
  return refs.flatMap((r, i) =>
    known.has(`${r.principalType}:${r.principalId}`)
      ? []
      : [{ name: member(i), message: `No ${r.principalType.toLowerCase()} with this id in the account`, level: "ERROR" as const }],
  );
}
