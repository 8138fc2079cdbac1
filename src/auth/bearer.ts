import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../db/client";
import { accessTokens, accounts, users } from "../db/schema";
import { sha256Hex } from "../domain/passwords";
import type { UserPrincipal } from "../domain/principal";
import { membershipsOf, readMemberships } from "./memberships";

/**
 * Verifies a trusted-access bearer token (issued by /api/trusted-access/{push,pull}/tokens): one
 * D1 query joins the token's SHA-256 digest to its user, its account's state and its groups'
 * privileges. Deliberately not cached: revoking a token deletes its row, so the next request in
 * any isolate finds nothing. An unknown, expired or revoked token, or one of a disabled account,
 * finds nothing; the user's privileges are those of this moment.
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
      memberships: membershipsOf(),
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
    ...readMemberships(row.roles, row.memberships),
    via: "bearer",
  };
}
