import { eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { compiled } from "../db/compiled";
import { trustedAccessClients } from "../db/schema";
import { acceptedSecret, digestOf, isUuid } from "../domain/trusted-access";
import type { BasicCredentials } from "./basic";

/** A trusted-access client that authenticated with its client_id and a secret that works. */
export interface TrustedClient {
  clientId: string;
  clientName: string;
  accessTokenValiditySeconds: number;
  /** The accounts it may mint tokens in; null: every account. */
  accountIds: string[] | null;
  /** Digest of the secret the request presented: the writes it leads to check that this secret still works. */
  presentedDigest: string;
}

/**
 * Verifies client credentials (HTTP Basic: client_id, client_secret) with one indexed read.
 * Nothing is cached: a rotated or expired secret, or a deleted client, fails on the next request.
 */
export async function verifyClient(db: Database, credentials: BasicCredentials, nowSeconds: number): Promise<TrustedClient | undefined> {
  const presentedDigest = await digestOf(credentials.password);
  if (!isUuid(credentials.username)) return undefined;
  const row = await clientById(db).get({ clientId: credentials.username });
  if (!row || !acceptedSecret(row, presentedDigest, nowSeconds)) return undefined;
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    accessTokenValiditySeconds: row.accessTokenValiditySeconds,
    accountIds: row.accountIds ?? null,
    presentedDigest,
  };
}

// Every request of a trusted client reads its row: compiled once per isolate (db/compiled.ts).
const clientById = compiled((db) => db.select().from(trustedAccessClients).where(eq(trustedAccessClients.clientId, sql.placeholder("clientId"))));

/**
 * SQL for a write's batch: the client still accepts the secret this request presented, and serves
 * the account. The same rules as acceptedSecret and servesAccount (domain/trusted-access.ts),
 * evaluated in the write's own transaction, so that a secret rotated, expired or a client deleted
 * or narrowed since the request authenticated mints nothing.
 */
export function clientStillTrusts(client: TrustedClientInQuery, accountId: SQL | string | Placeholder, nowSeconds: number | Placeholder): SQL {
  const digest = client.presentedDigest;
  return sql`EXISTS (SELECT 1 FROM trusted_access_clients tc WHERE tc.client_id = ${client.clientId}
    AND ((tc.secret_digest = ${digest} AND (tc.client_secret_expires_at = 0 OR tc.client_secret_expires_at > ${nowSeconds}))
      OR (tc.previous_secret_digest = ${digest} AND tc.previous_secret_expires_at > ${nowSeconds}))
    AND (tc.account_ids IS NULL OR EXISTS (SELECT 1 FROM json_each(tc.account_ids) WHERE value = ${accountId})))`;
}

/**
 * SQL: the client serves the account, as the client's row said when the request authenticated.
 * For a write on a shard other than the directory's database, whose batch cannot read the client's
 * row (it lives in the directory): the directory confirms the client after the write
 * (`clientConfirmed`, db/shards/clients.ts).
 */
export function servedAsAuthenticated(client: Pick<TrustedClient, "accountIds">, accountId: SQL | string | Placeholder): SQL {
  if (client.accountIds === null) return sql`1`;
  return servedAmong(JSON.stringify(client.accountIds), accountId);
}

/** SQL: the account is among `accountIdsJson` (a JSON array of ids). */
export const servedAmong = (accountIdsJson: string | Placeholder, accountId: SQL | string | Placeholder): SQL =>
  sql`${accountId} IN (SELECT value FROM json_each(${accountIdsJson}))`;

/** The client as a compiled query names it: its id and the digest it presented, by value or by placeholder. */
export type TrustedClientInQuery = { [K in "clientId" | "presentedDigest"]: string | Placeholder };
