import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../db/client";
import { accessTokens, accounts, users } from "../db/schema";
import { sha256Hex } from "../domain/passwords";
import type { UserPrincipal } from "../domain/principal";
import { membershipsOf, readMemberships } from "./memberships";

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
