import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import { digestOf, isUuid, randomSecret } from "../domain/trusted-access";
import type { Database } from "./client";
import { compiled, inBatch, placeholders } from "./compiled";
import { accessTokens } from "./schema";

/**
 * Bearer tokens as rows: minted by the trusted-access token endpoints, stored as the SHA-256 of
 * the token, revoked by deleting the row. Every statement here is batchable, so that a token is
 * written in the same transaction as the checks and changes it depends on.
 */
export interface MintedToken {
  /** The bearer token itself: given to the client once, never stored. */
  accessToken: string;
  digest: string;
  tokenId: string;
  expiresInSeconds: number;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export async function mintToken(validitySeconds: number, nowMs: number): Promise<MintedToken> {
  const accessToken = randomSecret();
  return {
    accessToken,
    digest: await digestOf(accessToken),
    tokenId: crypto.randomUUID(),
    expiresInSeconds: validitySeconds,
    expiresAt: nowMs + validitySeconds * 1000,
  };
}

// Written by every token a push issues: compiled once per isolate (db/compiled.ts).
const insertTokenRow = compiled((db) => db.insert(accessTokens).values(placeholders("tokenHash", "tokenId", "userId", "accountId", "clientId", "expiresAt", "createdDate")));

/** A minted token's columns, by the names of the placeholders of the inserts below. */
export const tokenColumns = (token: MintedToken, nowMs: number) => ({
  tokenHash: token.digest,
  tokenId: token.tokenId,
  expiresAt: token.expiresAt,
  createdDate: new Date(nowMs).toISOString(),
});

/** The token of a user known by id (and account). Batchable. */
export function insertToken(db: Database, token: MintedToken, owner: { userId: string; accountId: string; clientId: string }, nowMs: number) {
  return inBatch(insertTokenRow(db), { ...tokenColumns(token, nowMs), ...owner });
}

/**
 * For a compiled query (db/compiled.ts): the token of the user `u` (alias of users) that `condition`
 * selects, inserted only if there is one: the check and the write are one statement. Answers the
 * token id when it was written. Its values: tokenColumns' placeholders, `clientId`, the condition's.
 */
export function insertTokenWhere(db: Database, condition: SQL) {
  const value = (name: keyof ReturnType<typeof tokenColumns> | "clientId") => sql.placeholder(name);
  // Columns in the table's order: token_hash, token_id, user_id, account_id, client_id, expires_at, created_date.
  return db
    .insert(accessTokens)
    .select(sql`SELECT ${value("tokenHash")}, ${value("tokenId")}, u.id, u.account_id, ${value("clientId")}, ${value("expiresAt")}, ${value("createdDate")} FROM users u WHERE ${condition}`)
    .returning({ tokenId: accessTokens.tokenId });
}

// Run by every issuance: compiled once per isolate (db/compiled.ts).
const sweep = compiled((db) =>
  db.delete(accessTokens).where(sql`${accessTokens.tokenHash} IN (SELECT token_hash FROM access_tokens WHERE expires_at <= ${sql.placeholder("nowMs")} LIMIT ${SWEPT_AT_ONCE})`),
);
const SWEPT_AT_ONCE = 100;

/** Expired tokens, a bounded number at a time: each issuance sweeps some, so the table does not grow without end. Batchable. */
export const sweepExpiredTokens = (db: Database, nowMs: number) => inBatch(sweep(db), { nowMs });

export interface TokenScope {
  /** A compiled query's names its client by placeholder. */
  clientId?: string | Placeholder;
  userId?: string;
  accountId?: string | Placeholder;
  /** Only the tokens issued in accounts other than these (a compiled query's: a placeholder of their JSON array). */
  outsideAccounts?: readonly string[] | Placeholder;
}

/** Revokes (deletes) the tokens in `scope`; `onlyIf` makes it conditional on the batch's own earlier write having won. */
export function revokeTokens(db: Database, scope: TokenScope, onlyIf?: SQL) {
  return db
    .delete(accessTokens)
    .where(
      and(
        scope.clientId === undefined ? undefined : eq(accessTokens.clientId, scope.clientId),
        scope.userId === undefined ? undefined : eq(accessTokens.userId, scope.userId),
        scope.accountId === undefined ? undefined : eq(accessTokens.accountId, scope.accountId),
        scope.outsideAccounts === undefined
          ? undefined
          : sql`${accessTokens.accountId} NOT IN (SELECT value FROM json_each(${Array.isArray(scope.outsideAccounts) ? JSON.stringify(scope.outsideAccounts) : scope.outsideAccounts}))`,
        onlyIf,
      ),
    );
}

/**
 * The one token a revocation names: by its token_id (a UUID), or by the token itself, which is
 * looked up by its digest only (a token never becomes a bound parameter, so no error text can
 * carry it).
 */
export type TokenKey = { column: "token_id" | "token_hash"; value: string };

export async function tokenKey(tokenIdOrToken: string): Promise<TokenKey> {
  return isUuid(tokenIdOrToken) ? { column: "token_id", value: tokenIdOrToken } : { column: "token_hash", value: await digestOf(tokenIdOrToken) };
}

/** Deletes the one token `key` (tokenKey) names; answers what it deleted. */
export function revokeToken(db: Database, key: TokenKey) {
  return revokeNamed[key.column](db).all({ value: key.value });
}

// A revocation's statement, compiled once per isolate (db/compiled.ts) for each way of naming the token.
const revokeBy = (column: typeof accessTokens.tokenId | typeof accessTokens.tokenHash) =>
  compiled((db) => db.delete(accessTokens).where(eq(column, sql.placeholder("value"))).returning({ tokenId: accessTokens.tokenId }));
const revokeNamed = { token_id: revokeBy(accessTokens.tokenId), token_hash: revokeBy(accessTokens.tokenHash) };
