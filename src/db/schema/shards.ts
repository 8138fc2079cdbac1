import { sql } from "drizzle-orm";
import { check, index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The directory's tables of issue 21 (docs/sharding.md): where accounts live is `accounts.shard`;
 * this says which moves are under way.
 */

/** A move in progress (POST /api/accounts/{id}/move): a Worker that dies mid-move resumes from this row. */
export const accountMoves = sqliteTable(
  "account_moves",
  {
    accountId: text("account_id").primaryKey(),
    fromShard: text("from_shard").notNull(),
    toShard: text("to_shard").notNull(),
    /** COPYING: rows are being copied, the old shard is still the account's; SWITCHED: the directory names the new one, the old rows go. */
    phase: text("phase", { enum: ["COPYING", "SWITCHED"] }).notNull(),
    startedAt: text("started_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** The request running the move holds it until then (ISO time); another request may take it over only after. */
    leaseUntil: text("lease_until").notNull(),
  },
  () => [check("account_moves_phase", sql`"account_moves"."phase" IN ('COPYING', 'SWITCHED')`)],
);

/**
 * Every user name of the installation, and whose it is: Basic credentials carry no account, so a
 * name is unique across every shard. Each shard's users_name_unique index sees its own users only;
 * this table is the one that sees them all. A write that gives a user a name claims it here first
 * (db/shards/user-names.ts): a claim that fails on the primary key is a name already taken. A user
 * being renamed holds its old and new names until its shard's write has committed.
 */
export const userNames = sqliteTable(
  "user_names",
  {
    name: text("name").primaryKey(),
    userId: text("user_id").notNull(),
    accountId: text("account_id").notNull(),
    /** ISO time: a claim whose user never got the name (a Worker that died between the two writes) is freed once old (db/shards/user-names.ts). */
    claimedAt: text("claimed_at").notNull(),
  },
  (t) => [index("user_names_user").on(t.userId), index("user_names_account").on(t.accountId)],
);

/** A guard table (db/batch-guards.ts): a write batch of an account whose copy is `moving` fails itself here. */
export const accountMovingGuard = sqliteTable("account_moving_guard", { reason: text("reason").notNull() }, () => [check("account_moving", sql`0`)]);
