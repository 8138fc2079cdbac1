import { sql } from "drizzle-orm";
import { check, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Guard tables (db/batch-guards.ts): never hold a row. Each one's CHECK constraint, named after
 * the refusal, fails every insert; a write batch carries a statement that inserts into one only
 * when the write must be refused, so the check and the write happen in one transaction.
 * (quota_guard, in quotas.ts, is the first of them.)
 */

/** An account would pass a per-account count limit (e.g. 100 JSON datasets). */
export const countLimitGuard = sqliteTable("count_limit_guard", { reason: text("reason").notNull() }, () => [
  check("count_limit_reached", sql`0`),
]);

/** The row a multi-statement write replaces changed or disappeared since it was read (a lost If-Match, a concurrent delete). */
export const writeConflictGuard = sqliteTable("write_conflict_guard", { reason: text("reason").notNull() }, () => [
  check("write_conflict", sql`0`),
]);

/** A trusted-access bearer token this isolate trusted from its cache was revoked, expired, or its account disabled (auth/bearer.ts). */
export const bearerGuard = sqliteTable("bearer_guard", { reason: text("reason").notNull() }, () => [
  check("bearer_token_refused", sql`0`),
]);
