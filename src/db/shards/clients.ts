import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { clientStillTrusts, type TrustedClient } from "../../auth/client";
import type { AppEnv } from "../../lib/types";
import type { Database } from "../client";
import { compiled, inBatch } from "../compiled";
import { trustedAccessClients } from "../schema";
import { shardBinding, shardIsDirectory } from "./routing";

/**
 * Trusted-access clients over several databases (docs/sharding.md, "Trusted access"). A client
 * lives in the directory; the tokens it issues live with their user, on the user's account's shard,
 * where `access_tokens.client_id` is a foreign key to `trusted_access_clients`. So a shard other
 * than the directory's database keeps a STUB of each client that issued tokens there: its id, no
 * secret that any secret's digest equals, nothing else read. Nothing authenticates against a stub
 * (client authentication reads the directory); it anchors the tokens' foreign key, and deleting it
 * deletes them (ON DELETE CASCADE). A client's creation writes its stub on every such shard, so that
 * an account moved between shards finds it on its new one (db/shards/move.ts copies tokens, not
 * clients); a token's own batch writes it too where it is missing (a shard added since, or a
 * creation whose copy failed).
 *
 * A token is issued on such a shard in the shard's batch, then the directory confirms that the
 * client still accepts the request's secret and serves the account (`clientConfirmed`); if not, the
 * token is deleted before anything is answered. A deletion, rotation with revoke_tokens or narrowing
 * of a client changes the directory first, then revokes on every other shard
 * (`revokeClientTokensElsewhere`). Each token is written before its confirmation reads the
 * directory, and each revocation runs after its change committed there, so of a token request and a
 * change racing, either the confirmation sees the change, or the revocation sees the token.
 * On one database, or on the directory's own, none of this runs: the batch itself checks the client.
 */

/** A digest no secret has (digests are 64 hexadecimal characters). */
const NO_SECRET = "-";

/**
 * The shard's stub of the client, inserted once (left as it is when there), and only if `onlyIf`
 * holds (the condition of the token about to be written: a refused request leaves nothing).
 */
export function clientStub(db: Database, clientId: string | Placeholder, at: string | Placeholder, onlyIf: SQL = sql`1`) {
  // Columns in the table's order: client_id, client_name (unique by construction: the directory's name
  // may change or pass to another client), validity, secret_digest, its expiry, the previous secret and
  // its expiry, account_ids, revision, the audit columns.
  return db
    .insert(trustedAccessClients)
    .select(sql`SELECT ${clientId}, ${clientId}, 1, ${NO_SECRET}, 0, NULL, NULL, '[]', 'stub', 'directory', ${at}, 'directory', ${at} WHERE ${onlyIf}`)
    .onConflictDoNothing();
}

// Written by every push on such a shard: compiled once per isolate (db/compiled.ts).
const unconditionalStub = compiled((db) => clientStub(db, sql.placeholder("clientId"), sql.placeholder("at")));

/** The shard's stub of the client, inserted once (left as it is when there). Batchable. */
export const clientStubIfMissing = (db: Database, clientId: string, at: string) => inBatch(unconditionalStub(db), { clientId, at });

/**
 * After a client's creation committed in the directory: its stub on every shard other than the
 * directory's database, one statement each, at once (counted one round trip each). A copy that
 * fails is left to the client's first token there (its batch writes the stub too): the creation
 * answers as it committed. Nothing on one database.
 */
export async function stubClientOnEveryShard(c: Context<AppEnv>, clientId: string, at: string): Promise<void> {
  const route = c.get("shardRoute");
  if (!route) return;
  const others = route.config.shards.filter((name) => name !== route.config.directory);
  c.get("roundTrips").count += others.length;
  const copies = await Promise.allSettled(others.map((name) => shardBinding(c.env, name).prepare(STUB).bind(clientId, NO_SECRET, at).run()));
  const failed = copies.flatMap((copy, i) => (copy.status === "rejected" ? [{ shard: others[i], error: String(copy.reason) }] : []));
  if (failed.length > 0) console.error(JSON.stringify({ level: "error", message: "client stub copies failed", clientId, failed }));
}

const STUB =
  "INSERT INTO trusted_access_clients (client_id, client_name, access_token_validity_seconds, secret_digest, client_secret_expires_at, account_ids, revision, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) " +
  "VALUES (?1, ?1, 1, ?2, 0, '[]', 'stub', 'directory', ?3, 'directory', ?3) ON CONFLICT DO NOTHING";

/** Whether the request's shard batch could not check the client itself: its shard is not the directory's database. */
export const clientCheckedAfter = (c: Context<AppEnv>): boolean => !shardIsDirectory(c);

/**
 * After a token was written on a shard other than the directory's database: whether the client
 * still accepts the secret the request presented and serves the account (one directory read).
 */
export async function clientConfirmed(c: Context<AppEnv>, client: TrustedClient, accountId: string, nowSeconds: number): Promise<boolean> {
  if (!clientCheckedAfter(c)) return true;
  const directory = c.get("directory");
  const row = await directory
    .select({ clientId: trustedAccessClients.clientId })
    .from(trustedAccessClients)
    .where(and(eq(trustedAccessClients.clientId, client.clientId), clientStillTrusts(client, accountId, nowSeconds)))
    .get();
  return row !== undefined;
}

/**
 * Revokes a client's tokens on every shard other than the directory's database (whose tokens the
 * directory's own batch revoked): all of them, and its stub with `deleteStub`, or those of the
 * accounts outside `outsideAccounts`. One statement per shard, the shards at once (counted one
 * round trip each). Nothing on one database.
 */
export async function revokeClientTokensElsewhere(c: Context<AppEnv>, clientId: string, scope: { outsideAccounts?: readonly string[]; deleteStub?: boolean }): Promise<void> {
  const route = c.get("shardRoute");
  if (!route) return;
  const others = route.config.shards.filter((name) => name !== route.config.directory);
  const outside = scope.outsideAccounts === undefined ? "" : " AND account_id NOT IN (SELECT value FROM json_each(?2))";
  const params = scope.outsideAccounts === undefined ? [clientId] : [clientId, JSON.stringify(scope.outsideAccounts)];
  c.get("roundTrips").count += others.length;
  await Promise.all(
    others.map((name) => {
      const d1 = shardBinding(c.env, name);
      const statements = [d1.prepare(`DELETE FROM access_tokens WHERE client_id = ?1${outside}`).bind(...params)];
      if (scope.deleteStub) statements.push(d1.prepare("DELETE FROM trusted_access_clients WHERE client_id = ?").bind(clientId));
      return d1.batch(statements);
    }),
  );
}
