import { and, asc, eq, getTableColumns, ne, not, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import { ApiError, isConstraintError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import type { Database } from "../client";
import { compiled, inBatch, placeholders } from "../compiled";
import { connectionsOfType, MAX_USERS_LISTED, TYPE_COLUMNS, type ConnectionTypeRow } from "../connections";
import { connectionTypeAccounts, connectionTypes } from "../schema";
import { shardBinding } from "./routing";

/**
 * The copies of the directory's connection types on the shards (issue 21; docs/connections.md,
 * "Over several databases"). Connection types and their lists of accounts (connection_type_accounts) are
 * the supervisor's and live in the directory; every shard other than the directory's own database
 * keeps a copy of each type and of its whole list, so that a shard's connections keep their foreign
 * key to their type and a user's request reads which types its account may use on its own shard.
 * The built-in types are inserted on every database by their migration, and copied like the others
 * once the supervisor changes them.
 *
 * The supervisor's handlers write the directory first (with their audit events), then the type's
 * whole state (its row and its list) to every other shard at once, one batch each: an upsert that
 * never replaces a copy modified later (`last_modified_date`), so a retry, a late write or the next
 * write of the type converges every copy on the directory. A deletion goes the other way: the
 * copies first, each refused by its shard's foreign key while a connection there uses the type,
 * then the directory (routes/connection-types). On one database there are no copies: every
 * function here returns at once, writing and reading nothing.
 */

export interface TypeState {
  row: ConnectionTypeRow;
  /** The accounts that may use the type (empty: every account). */
  accounts: readonly string[];
}

type Copy = ReturnType<typeof drizzle>;

/** The databases holding copies: every shard but the directory's own database (none on one database). */
export function copyHolders(c: Context<AppEnv>): string[] {
  const route = c.get("shardRoute");
  if (!route) return [];
  return route.config.shards.filter((name) => name !== route.config.directory);
}

/** Every database that may hold connections: the directory's own (its accounts of before sharding, or the first shard's) and each shard. */
function connectionHolders(c: Context<AppEnv>): string[] {
  const { directory, shards } = c.get("config").shards;
  return [...new Set([directory, ...shards])];
}

/** Runs `work` on each database named at once, one counted round trip each; answers each outcome, in order. */
async function onEach<T>(c: Context<AppEnv>, names: readonly string[], work: (db: Copy) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  c.get("roundTrips").count += names.length;
  return Promise.allSettled(names.map((name) => work(drizzle(shardBinding(c.env, name)))));
}

/** The list of accounts of a type, in order (batchable). */
export function selectTypeAccounts(db: Database, typeId: string) {
  return inBatch(typeAccounts(db), { typeId });
}

// Every read of a type's accounts and every write of a type reads it: compiled once per isolate (db/compiled.ts).
const typeAccounts = compiled((db) =>
  db
    .select({ accountId: connectionTypeAccounts.accountId })
    .from(connectionTypeAccounts)
    .where(eq(connectionTypeAccounts.typeId, sql.placeholder("typeId")))
    .orderBy(asc(connectionTypeAccounts.accountId)),
);

/** Every column but the key, set from the row being upserted. */
const UPSERTED = Object.fromEntries(
  Object.entries(getTableColumns(connectionTypes))
    .filter(([, column]) => column.name !== "id")
    .map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
);

/**
 * One shard's batch making its copy the type's state. A copy modified later than `row` (a later write
 * whose copy arrived first) is left as it is: every statement is conditioned on it. Names are unique:
 * the copy of another type still holding this name (its rename has not reached this shard) gives it
 * up for a name of its own, `name (id)`, until its own copy arrives.
 */
function copyStatements(db: Copy, { row, accounts }: TypeState) {
  const copy = db as unknown as Database;
  const values = { ...row, accounts: JSON.stringify(accounts) };
  return [inBatch(renameHolder(copy), values), inBatch(upsertCopy(copy), values), inBatch(unlistCopy(copy), values), inBatch(listCopy(copy), values)] as const;
}

// Every write of a type sends them to every other shard: compiled once per isolate (db/compiled.ts),
// the row's members and its list (one JSON value) bound.
const newer = sql`EXISTS (SELECT 1 FROM connection_types later WHERE later.id = ${sql.placeholder("id")} AND later.last_modified_date > ${sql.placeholder("lastModifiedDate")})`;
const renameHolder = compiled((db) =>
  db
    .update(connectionTypes)
    .set({ name: sql`${connectionTypes.name} || ' (' || ${connectionTypes.id} || ')'` })
    .where(and(eq(connectionTypes.name, sql.placeholder("name")), ne(connectionTypes.id, sql.placeholder("id")), not(newer))),
);
const upsertCopy = compiled((db) =>
  db
    .insert(connectionTypes)
    .values(placeholders(...TYPE_COLUMNS))
    .onConflictDoUpdate({ target: connectionTypes.id, set: UPSERTED, setWhere: sql.raw(`excluded."last_modified_date" >= "connection_types"."last_modified_date"`) }),
);
const unlistCopy = compiled((db) => db.delete(connectionTypeAccounts).where(and(eq(connectionTypeAccounts.typeId, sql.placeholder("id")), not(newer))));
const listCopy = compiled((db) =>
  db.insert(connectionTypeAccounts).select(sql`SELECT ${sql.placeholder("id")}, value FROM json_each(${sql.placeholder("accounts")}) WHERE NOT ${newer}`),
);

/**
 * The answer when a copy could not be written after the directory committed: the change is in force
 * in the directory (the supervisor's reads) and on the other shards; the failed shards keep their
 * older copy until the type's next write, which sends its whole state again (send the same PUT again).
 */
function copiesFailed(what: string, shards: string[], errors: unknown[]): ApiError {
  console.error(JSON.stringify({ level: "error", message: "connection type copies failed", shards, errors: errors.map(String) }));
  return new ApiError(
    "INTERNAL_ERROR",
    `${what}, but its copy on ${shards.join(", ")} could not be written: accounts there see the type as it was. Send the change again (e.g. the same PUT, or PATCH with {}) to complete it`,
  );
}

/**
 * Writes the type's state to every other shard's copy, at once (one batch each; a failed shard is
 * tried once more). Throws INTERNAL_ERROR naming the shards that still failed (see copiesFailed).
 */
export async function writeTypeCopies(c: Context<AppEnv>, state: TypeState, what = `The connection type '${state.row.name}' was saved`): Promise<void> {
  let pending = copyHolders(c);
  let errors: unknown[] = [];
  for (let attempt = 0; pending.length > 0 && attempt < 2; attempt++) {
    const outcomes = await onEach(c, pending, (db) => db.batch(copyStatements(db, state)));
    errors = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
    pending = pending.filter((_, i) => outcomes[i]!.status === "rejected");
  }
  if (pending.length > 0) throw copiesFailed(what, pending, errors);
}

/**
 * Deletes the type's copy on every other shard, at once: each shard's foreign key refuses while a
 * connection there uses it, so from here no connection of the type can be created on the shards
 * whose copy went (their writes check the type's row in their own batch). Answers the shards that
 * refused (in use) and those that failed otherwise.
 */
export async function deleteTypeCopies(c: Context<AppEnv>, typeId: string): Promise<{ inUse: string[]; failed: { shard: string; error: unknown }[] }> {
  const holders = copyHolders(c);
  const outcomes = await onEach(c, holders, (db) => deleteCopy(db as unknown as Database).run({ id: typeId }));
  const inUse: string[] = [];
  const failed: { shard: string; error: unknown }[] = [];
  outcomes.forEach((o, i) => {
    if (o.status === "fulfilled") return;
    if (isConstraintError(o.reason, "FOREIGN KEY")) inUse.push(holders[i]!);
    else failed.push({ shard: holders[i]!, error: o.reason });
  });
  return { inUse, failed };
}

const deleteCopy = compiled((db) => db.delete(connectionTypes).where(eq(connectionTypes.id, sql.placeholder("id"))));

/**
 * After the directory's row went, the copies once more (one round trip, over several databases only):
 * an update of the type that committed in the directory before the deletion, and whose copies were
 * still on their way when the deletion first deleted them, may have put one back. A copy left now
 * (its shard refused or failed) is logged: that shard keeps a type the directory no longer has.
 */
export async function sweepTypeCopies(c: Context<AppEnv>, typeId: string): Promise<void> {
  if (copyHolders(c).length === 0) return;
  const { inUse, failed } = await deleteTypeCopies(c, typeId);
  if (inUse.length === 0 && failed.length === 0) return;
  console.error(JSON.stringify({ level: "error", message: "connection type copies left after its deletion", typeId, inUse, failed: failed.map((f) => ({ shard: f.shard, error: String(f.error) })) }));
}

/**
 * Puts the copies back as the directory holds the type (a deletion refused or failed after some
 * copies went): its state read from the directory (one round trip), then written to every other
 * shard. A type the directory no longer holds has nothing to put back.
 */
export async function restoreTypeCopies(c: Context<AppEnv>, typeId: string): Promise<void> {
  if (copyHolders(c).length === 0) return;
  const directory = c.get("directory");
  const [rows, accounts] = await directory.batch([directory.select().from(connectionTypes).where(eq(connectionTypes.id, typeId)), selectTypeAccounts(directory, typeId)]);
  const row = rows[0];
  if (!row) return;
  await writeTypeCopies(c, { row, accounts: accounts.map((a) => a.accountId) }, `The connection type '${row.name}' was not deleted`);
}

/**
 * The connections of a type in every account, however many databases hold them: on one database
 * one query, otherwise every database asked at once (one round trip each), answered in the order
 * of one database's query (account, then name), at most MAX_USERS_LISTED + 1.
 */
export async function connectionsOfTypeEverywhere(c: Context<AppEnv>, typeId: string) {
  if (!c.get("shardRoute")) return connectionsOfType(c.get("directory"), typeId);
  const outcomes = await onEach(c, connectionHolders(c), (db) => connectionsOfType(db as unknown as Database, typeId));
  const found = outcomes.flatMap((o) => {
    if (o.status === "rejected") throw o.reason;
    return o.value;
  });
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return found.sort((a, b) => order(a.accountId, b.accountId) || order(a.name, b.name)).slice(0, MAX_USERS_LISTED + 1);
}

/**
 * An account deleted: its rows of the copies of the types' lists go too (the directory's rows and
 * its own shard's went with the account). Only over several databases; a failure answers
 * INTERNAL_ERROR after the account's deletion committed: the copies of the types that listed it are
 * made right by each type's next write.
 */
export async function deleteAccountFromTypeCopies(c: Context<AppEnv>, accountId: string): Promise<void> {
  const holders = copyHolders(c);
  if (holders.length === 0) return;
  const outcomes = await onEach(c, holders, (db) => db.delete(connectionTypeAccounts).where(eq(connectionTypeAccounts.accountId, accountId)).run());
  const failed = holders.filter((_, i) => outcomes[i]!.status === "rejected");
  if (failed.length === 0) return;
  const errors = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
  console.error(JSON.stringify({ level: "error", message: "connection type copies failed", shards: failed, errors: errors.map(String) }));
  throw new ApiError(
    "INTERNAL_ERROR",
    `The account was deleted, but the copies of the connection types' accounts on ${failed.join(", ")} still name it; a change of each type it was listed for (PUT /api/connection/types/{id}/accounts) makes them right`,
  );
}
