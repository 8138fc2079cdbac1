import { and, eq, lt, sql } from "drizzle-orm";
import type { Context } from "hono";
import { isConstraintError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import { createDatabase, type Database } from "../client";
import { compiled, inBatch } from "../compiled";
import { accounts, userNames, users } from "../schema";
import { RequestSession } from "../session";
import { shardOfRow } from "./config";
import { shardBinding } from "./routing";

/**
 * User names, unique across every shard (docs/sharding.md, "User names"). Every write that gives a
 * user a name claims it in the directory's user_names first: in the shard's own batch when the
 * account lives on the directory's database (the default), else in a directory batch before it
 * (db/shards/write-across.ts), released again if the shard's write fails. A name the write no
 * longer holds (a rename's old name, a deleted user's) is released after the shard's commit.
 */

// Claims and releases run in every write that names or deletes a user: compiled once per isolate (db/compiled.ts).
const claim = compiled((db) =>
  db.insert(userNames).values({ name: sql.placeholder("name"), userId: sql.placeholder("userId"), accountId: sql.placeholder("accountId"), claimedAt: sql.placeholder("claimedAt") }),
);
const release = compiled((db) => db.delete(userNames).where(and(eq(userNames.name, sql.placeholder("name")), eq(userNames.userId, sql.placeholder("userId")))));

/** Claims `name` for the user: fails on user_names' primary key when the name is anyone's already. Batchable. */
export const claimUserName = (directory: Database, user: { name: string; userId: string; accountId: string }) =>
  inBatch(claim(directory), { ...user, claimedAt: new Date().toISOString() });

/** Lets go of `name` if the user holds it (a no-op otherwise: another user may hold it by now). Batchable. */
export const releaseUserName = (directory: Database, name: string, userId: string) => inBatch(release(directory), { name, userId });

const releaseAllOfUser = compiled((db) => db.delete(userNames).where(eq(userNames.userId, sql.placeholder("userId"))));
const releaseAllOfAccount = compiled((db) => db.delete(userNames).where(eq(userNames.accountId, sql.placeholder("accountId"))));

/** Every name of a user, or of an account's users (the user's, the account's deletion). Batchable. */
export const releaseUserNamesOf = (directory: Database, owner: { userId: string } | { accountId: string }) =>
  "userId" in owner ? inBatch(releaseAllOfUser(directory), owner) : inBatch(releaseAllOfAccount(directory), owner);

/** Whether a write failed on a name taken: the directory's claim, or a shard's own unique index. */
export const isUserNameTaken = (err: unknown) => isConstraintError(err, "UNIQUE", "user_names.name") || isConstraintError(err, "UNIQUE", "users.name");

/** The account whose user holds `name`, if anyone's does (a directory read). */
export async function userNameHolder(c: Context<AppEnv>, name: string): Promise<string | undefined> {
  const row = await c.get("directory").select({ accountId: userNames.accountId }).from(userNames).where(eq(userNames.name, name)).get();
  return row?.accountId;
}

/**
 * A claim is older than any request that makes one: its own write has committed or failed by then.
 * A claim this old whose user does not hold the name on its shard was left by a Worker that died
 * between the directory's write and the shard's (or a release that failed after its commit).
 */
export const STALE_CLAIM_MS = 5 * 60_000;

/**
 * Frees `name` when its claim is stale: the claim is older than STALE_CLAIM_MS and its user, on
 * its account's shard, does not have that name (or the account is gone). True when the name was
 * freed, and the write that found it taken may try again. Only over several databases: on one,
 * claims commit with their users, in one transaction, and are never stale.
 */
export async function freeStaleUserName(c: Context<AppEnv>, name: string, now = Date.now()): Promise<boolean> {
  const route = c.get("shardRoute");
  if (!route) return false;
  const directory = c.get("directory");
  const cutoff = new Date(now - STALE_CLAIM_MS).toISOString();
  const claim = await directory
    .select({ userId: userNames.userId, claimedAt: userNames.claimedAt, accountExists: accounts.id, shard: accounts.shard })
    .from(userNames)
    .leftJoin(accounts, eq(accounts.id, userNames.accountId))
    .where(and(eq(userNames.name, name), lt(userNames.claimedAt, cutoff)))
    .get();
  if (!claim) return false;
  if (claim.accountExists !== null) {
    const shardName = shardOfRow(route.config, claim.shard);
    const shard = shardName === route.config.directory ? directory : createDatabase(new RequestSession(shardBinding(c.env, shardName), "first-primary"), c.get("roundTrips"));
    const held = await shard.select({ id: users.id }).from(users).where(and(eq(users.id, claim.userId), eq(users.name, name))).get();
    if (held) return false;
  }
  // Only the claim that was read: a fresh claim of the name made meanwhile stays.
  await directory.delete(userNames).where(and(eq(userNames.name, name), eq(userNames.userId, claim.userId), eq(userNames.claimedAt, claim.claimedAt)));
  return true;
}

/**
 * Runs `write` (which records its audit events and writes: a failed batch has used them), and
 * once more if it failed on a stale claim of `name` that could be freed.
 */
export async function withUserName<T>(c: Context<AppEnv>, name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isUserNameTaken(err) || !(await freeStaleUserName(c, name))) throw err;
    return write();
  }
}
