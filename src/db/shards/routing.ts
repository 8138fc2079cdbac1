import type { Context } from "hono";
import { ApiError, isConstraintError } from "../../lib/errors";
import type { AppEnv, Bindings } from "../../lib/types";
import type { WriteCompanion } from "../round-trips";
import type { D1Client, RequestSession } from "../session";
import type { AuditTrail } from "../audit-trail";
import { chooseShard } from "../../domain/shards/placement";
import { shardOfRow, type ShardConfig } from "./config";

/**
 * The one place that picks a request's database once its account is known (docs/sharding.md).
 * On the default, one database in both roles, there is nothing to pick: the request's shard
 * handle is its directory handle, and every function here returns at once.
 *
 * Otherwise a request has two D1 sessions: the directory's, and its account's shard's, which
 * starts unplaced and is placed here, by authentication for a user, by the supervisor's locator
 * (db/shards/locate.ts) or by the handler that reads the account a body names. Placing asks the
 * directory once per account and isolate: a warm isolate places from its cache at no round trip.
 */

/** Where this isolate last saw each account's rows, and until when it trusts that (ms since the epoch). */
const placements = new Map<string, { shard: string; until: number }>();
const PLACEMENTS_KEPT = 10_000;

/** Forgets where an account lives (its move, its deletion, a write its old shard refused). */
export function forgetPlacement(accountId: string): void {
  placements.delete(accountId);
}

/** Remembers where the directory says an account lives, for `ttlMs` (the credential cache's TTL). */
export function rememberPlacement(accountId: string, shard: string, ttlMs: number, now = Date.now()): void {
  if (placements.size >= PLACEMENTS_KEPT) placements.delete(placements.keys().next().value!);
  placements.set(accountId, { shard, until: now + ttlMs });
}

function cachedPlacement(accountId: string, now = Date.now()): string | undefined {
  const entry = placements.get(accountId);
  if (entry && entry.until > now) return entry.shard;
  if (entry) placements.delete(accountId);
  return undefined;
}

/** The D1 binding of a shard by its name; a name the deployment does not bind is its error. */
export function shardBinding(env: Bindings, name: string): D1Database {
  const binding = (env as unknown as Record<string, unknown>)[name];
  if (!binding || typeof (binding as D1Database).prepare !== "function") throw new Error(`SHARDS names ${name}, which is not a D1 binding of this Worker`);
  return binding as D1Database;
}

/** What routing keeps for a request whose directory and shard are two sessions. */
export class ShardRoute {
  /** The account whose shard the request's shard session is placed on, and that shard's binding name. */
  accountId: string | undefined;
  shardName: string | undefined;
  /** Off for the one batch that writes the account's copy itself (its creation): the guard would refuse it. */
  guarded = true;

  constructor(
    readonly config: ShardConfig,
    readonly session: RequestSession,
  ) {}

  /**
   * What rides on the shard's writes: the account's events, after a guard that refuses the batch
   * (409 ACCOUNT_MOVING) unless this shard holds the account and no move is copying it away. A
   * write sent to a shard the account has left (an isolate whose cache lagged a move) is refused the
   * same way, and the cache entry dropped, so the client's retry goes to the right shard.
   */
  companion(audit: AuditTrail): WriteCompanion {
    const companion = audit.companionFor("shard", (d1) => (this.guarded && this.accountId ? [movingGuard(d1, this.accountId)] : []), () => this.shardName);
    companion.refusal = (err) => {
      if (!isConstraintError(err, "CHECK", "account_moving")) return undefined;
      if (this.accountId) forgetPlacement(this.accountId);
      return accountMoving();
    };
    return companion;
  }
}

/**
 * The account's row here, not moving, and naming no other shard: a shard's copy never names one,
 * and the directory's own row names one once the account lives elsewhere (`shard IS NULL` there
 * means here), so a write placed on the directory's database after a move away is refused too.
 */
const MOVING_GUARD = "INSERT INTO account_moving_guard (reason) SELECT 'account_moving' WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE id = ? AND moving = 0 AND shard IS NULL)";
const movingGuard = (d1: D1Client, accountId: string) => d1.prepare(MOVING_GUARD).bind(accountId);

export const accountMoving = () => new ApiError("ACCOUNT_MOVING", "The account is being moved to another database; its data can be read but not changed until the move ends. Retry shortly");

/**
 * Places the request's shard session on `accountId`'s shard. An account the directory does not know
 * is placed on the directory's own database, where none of its rows are: its reads find nothing,
 * and its writes fail on their foreign key to accounts (no guard is added for it).
 * A request serves one account: placing it on a second one after its first statement is a bug.
 */
export async function placeRequest(c: Context<AppEnv>, accountId: string): Promise<void> {
  const route = c.get("shardRoute");
  if (!route) return;
  const { config } = route;
  let shard = cachedPlacement(accountId);
  let known = true;
  if (shard === undefined) {
    const row = await c.get("directory").$client.prepare("SELECT shard FROM accounts WHERE id = ?").bind(accountId).first<{ shard: string | null }>();
    shard = shardOfRow(config, row?.shard);
    if (row) rememberPlacement(accountId, shard, c.get("config").credentialCacheTtlMs);
    known = row !== null;
  }
  route.session.place(shardBinding(c.env, shard));
  // An unknown account has no copy to guard: a write naming it fails on its foreign key (no such account), as on one database, not as moving.
  route.accountId = known ? accountId : undefined;
  route.shardName = shard;
}

/** Whether the request's shard session is placed (always, on one database). */
export const isPlaced = (c: Context<AppEnv>): boolean => c.get("shardRoute")?.session.placed ?? true;

/**
 * Places a Basic sign-in (or a pull) on the shard of the user's account: the directory's user_names
 * says whose the name is (db/shards/user-names.ts), and its accounts row where that account lives,
 * in one read, remembered (cold sign-ins only: a verified credential is cached with its account).
 * An unknown name is placed on the directory's database, where its look-up finds nothing.
 */
export const placeByUserName = (c: Context<AppEnv>, username: string) =>
  placeByDirectoryRow(c, "SELECT a.id, a.shard FROM user_names n JOIN accounts a ON a.id = n.account_id WHERE n.name = ?", username);

/**
 * Places a bearer request whose token this isolate has not verified yet: every shard is asked at
 * once which account holds the token (tokens live with their user, on its shard). A token no shard
 * holds is placed on the directory's database, where its verification finds nothing.
 */
export async function placeByToken(c: Context<AppEnv>, digest: string): Promise<void> {
  const route = c.get("shardRoute");
  if (!route) return;
  const accountId = await askEveryShard(c, "SELECT account_id FROM access_tokens WHERE token_hash = ?", digest);
  if (accountId) return placeRequest(c, accountId);
  placeOnDirectory(route, c);
}

function placeOnDirectory(route: ShardRoute, c: Context<AppEnv>): void {
  route.session.place(shardBinding(c.env, route.config.directory));
  route.shardName = route.config.directory;
}

/** Asks every shard at once a query of one `account_id` by one value: the first account found (one counted round trip per shard). */
export async function askEveryShard(c: Context<AppEnv>, query: string, value: string): Promise<string | undefined> {
  const { shards } = c.get("config").shards;
  c.get("roundTrips").count += shards.length;
  const found = await Promise.all(shards.map((name) => shardBinding(c.env, name).prepare(query).bind(value).first<{ account_id: string }>()));
  return found.find((row) => row)?.account_id;
}

/** Whether the request's shard is the directory's own database (always, on one database). */
export function shardIsDirectory(c: Context<AppEnv>): boolean {
  const route = c.get("shardRoute");
  return !route || route.shardName === route.config.directory;
}

/**
 * Places a new account: on one database, there; otherwise on the shard with the fewest accounts
 * (domain/shards/placement.ts: one directory read of the counts). Answers `accounts.shard` for the
 * directory's row (NULL: the directory's own database). The creation's batch writes the account's
 * copy itself, so it is not guarded.
 */
export async function placeNewAccount(c: Context<AppEnv>, accountId: string): Promise<string | null> {
  const route = c.get("shardRoute");
  if (!route) return null;
  const { config } = route;
  const counts = await c.get("directory").$client.prepare("SELECT shard, count(*) AS n FROM accounts GROUP BY shard").all<{ shard: string | null; n: number }>();
  const load = new Map(config.shards.map((name) => [name, 0]));
  for (const row of counts.results) {
    const name = shardOfRow(config, row.shard);
    if (load.has(name)) load.set(name, load.get(name)! + row.n);
  }
  const shard = chooseShard([...load].map(([name, accounts]) => ({ name, accounts })));
  // The supervisor's next request on the account places itself from memory.
  rememberPlacement(accountId, shard, c.get("config").credentialCacheTtlMs);
  route.session.place(shardBinding(c.env, shard));
  route.accountId = accountId;
  route.shardName = shard;
  route.guarded = false;
  return shard === config.directory ? null : shard;
}

/** Places a request on the shard of the account named `name` (a directory read; unknown: the directory's database). */
export const placeByAccountName = (c: Context<AppEnv>, name: string) => placeByDirectoryRow(c, "SELECT id, shard FROM accounts WHERE name = ?", name);

/**
 * Places the request on the account a directory query of one `id` and `shard` answers: the id and
 * the shard in one read, remembered, so placeRequest asks nothing more. No row: the directory's database.
 */
async function placeByDirectoryRow(c: Context<AppEnv>, query: string, value: string): Promise<void> {
  const route = c.get("shardRoute");
  if (!route) return;
  const row = await c.get("directory").$client.prepare(query).bind(value).first<{ id: string; shard: string | null }>();
  if (!row) return placeOnDirectory(route, c);
  rememberPlacement(row.id, shardOfRow(route.config, row.shard), c.get("config").credentialCacheTtlMs);
  return placeRequest(c, row.id);
}

/** Each shard other than the directory's database, with the accounts it holds per `SELECT account_id, n` query (one counted round trip per shard). */
export async function countPerShard(c: Context<AppEnv>, query: string): Promise<Map<string, number>> {
  const route = c.get("shardRoute");
  const counts = new Map<string, number>();
  if (!route) return counts;
  const others = route.config.shards.filter((name) => name !== route.config.directory);
  c.get("roundTrips").count += others.length;
  const answers = await Promise.all(others.map((name) => shardBinding(c.env, name).prepare(query).all<{ account_id: string; n: number }>()));
  for (const answer of answers) for (const row of answer.results) counts.set(row.account_id, row.n);
  return counts;
}
