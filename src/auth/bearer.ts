import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../db/client";
import type { RideAlongCheck } from "../db/round-trips";
import { accessTokens, accounts, users } from "../db/schema";
import { digestOf } from "../domain/trusted-access";
import type { UserPrincipal } from "../domain/principal";
import { bearerCache } from "./cache";
import { membershipsOf, readMemberships } from "./memberships";

const TOKEN_SHAPE = /^[\w.~+/=-]{16,512}$/;

/** The SHA-256 digest a token is stored and cached under; undefined for what cannot be a token. */
export async function bearerDigest(token: string): Promise<string | undefined> {
  return TOKEN_SHAPE.test(token) ? digestOf(token) : undefined;
}

/** The token's row exists, unexpired, and its account is enabled (parameters: digest, now). */
const TOKEN_STILL_GOOD = `EXISTS (SELECT 1 FROM access_tokens bearer_t JOIN users bearer_u ON bearer_u.id = bearer_t.user_id JOIN accounts bearer_a ON bearer_a.id = bearer_u.account_id WHERE bearer_t.token_hash = ? AND bearer_t.expires_at > ? AND bearer_a.disabled = 0)`;
const TOKEN_GUARD = `INSERT INTO bearer_guard (reason) SELECT 'bearer_token_refused' WHERE NOT ${TOKEN_STILL_GOOD}`;

/**
 * Verifies a trusted-access bearer token (issued by /api/trusted-access/{push,pull}/tokens): one
 * D1 query joins the token's SHA-256 digest to its user, its account's state and its groups'
 * privileges. An unknown, expired or revoked token, or one of a disabled account, finds nothing;
 * the user's privileges are those of this moment. The user found is cached in this isolate (as a
 * Basic credential is) for `cacheTtlMs`, see `cachedBearer`.
 */
export async function verifyBearer(digest: string, db: Database, cacheTtlMs = 0, now = Date.now()): Promise<UserPrincipal | undefined> {
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
    .where(and(eq(accessTokens.tokenHash, digest), gt(accessTokens.expiresAt, now)))
    .get();
  if (!row || row.accountDisabled) return undefined;
  const principal: UserPrincipal = {
    kind: "user",
    id: row.id,
    name: row.name,
    accountId: row.accountId,
    ...readMemberships(row.roles, row.memberships),
    via: "bearer",
  };
  bearerCache.set(digest, { ...principal, userId: principal.id }, cacheTtlMs);
  return principal;
}

/**
 * The user of a token this isolate verified lately, with the check that the token is still good,
 * which must ride on the request's first D1 round trip (db/round-trips.ts): a revoked token is
 * refused by the very next request in every isolate, at no round trip of its own. The check is the
 * token's row, unexpired, and its account enabled: what revoking a token, deleting its client or
 * user, or disabling the account changes. The user's privileges are those cached, refreshed as a
 * Basic credential's are (at once in the isolate that changes them, within the TTL elsewhere).
 */
export function cachedBearer(digest: string, refused: () => Error, now = Date.now()): { principal: UserPrincipal; check: RideAlongCheck } | undefined {
  const cached = bearerCache.get(digest);
  if (!cached) return undefined;
  const { userId: _userId, ...principal } = cached;
  return {
    principal,
    check: {
      condition: TOKEN_STILL_GOOD,
      params: [digest, now],
      guard: TOKEN_GUARD,
      guardConstraint: "bearer_token_refused",
      refused: () => {
        bearerCache.delete(digest);
        return refused();
      },
    },
  };
}
