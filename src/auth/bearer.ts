import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accessTokens, accounts, users } from "../db/schema";
import { sha256Hex } from "../domain/passwords";
import type { UserPrincipal } from "../domain/principal";
import { resolvePrivileges } from "../domain/privileges";

/**
 * Verifies a trusted-access bearer token. Tokens are stored as SHA-256 digests; they are issued
 * by the trusted-access endpoints. An unknown, expired or disabled-account token finds nothing.
 */
export async function verifyBearer(token: string, db: Database, now = Date.now()): Promise<UserPrincipal | undefined> {
  if (!/^[\w.~+/=-]{16,512}$/.test(token)) return undefined;
  const row = await db
    .select({
      id: users.id,
      name: users.name,
      accountId: users.accountId,
      roles: users.roles,
      accountDisabled: accounts.disabled,
      groupPrivileges: sql<string>`(SELECT json_group_array(json(g.privileges)) FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ${users.id})`,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(accessTokens.tokenHash, await sha256Hex(token)), gt(accessTokens.expiresAt, now)))
    .get();
  if (!row || row.accountDisabled) return undefined;
  return {
    kind: "user",
    id: row.id,
    name: row.name,
    accountId: row.accountId,
    privileges: resolvePrivileges(row.roles, JSON.parse(row.groupPrivileges) as string[][]),
    via: "bearer",
  };
}
