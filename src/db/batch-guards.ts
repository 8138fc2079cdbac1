import { sql, type SQL } from "drizzle-orm";
import { isConstraintError } from "../lib/errors";
import type { Database } from "./client";
import { countLimitGuard, folderCycleGuard, folderTooDeepGuard, quotaGuard, writeConflictGuard } from "./schema";

/**
 * Rules that depend on other rows (a quota, a count limit, "the row I read is still the one I
 * replace") are checked inside the write's own D1 batch, which is one transaction. A check that
 * reads in one round trip and writes in the next lets concurrent writers all pass it; here the
 * check sees exactly the rows the write changes.
 *
 * A guard is a statement of the batch that inserts into a guard table when the write must be
 * refused. Guard tables never hold a row: their CHECK constraint fails every insert, which fails
 * the whole batch, and the constraint's name says which guard refused.
 */
export interface Guard {
  /** A guard table: one text column, and a CHECK constraint that refuses every row. */
  table: typeof countLimitGuard | typeof quotaGuard | typeof writeConflictGuard | typeof folderCycleGuard | typeof folderTooDeepGuard;
  /** The name of the table's CHECK constraint, which appears in the error of a refused batch. */
  constraint: string;
}

export const QUOTA_GUARD: Guard = { table: quotaGuard, constraint: "quota_exceeded" };
export const COUNT_LIMIT_GUARD: Guard = { table: countLimitGuard, constraint: "count_limit_reached" };
export const WRITE_CONFLICT_GUARD: Guard = { table: writeConflictGuard, constraint: "write_conflict" };

/** A batch statement that fails the batch through `guard` when `condition` holds (`note`: the value it tries to insert). */
export function refuseWhen(db: Database, guard: Guard, condition: SQL, note: string = guard.constraint) {
  // Every guard table has one text column, so the one-value SELECT fits each; the cast only picks a type for Drizzle.
  return db.insert(guard.table as typeof countLimitGuard).select(sql`SELECT ${note} WHERE ${condition}`);
}

/** Whether a failed batch was refused by `guard`. */
export function refusedBy(err: unknown, guard: Guard): boolean {
  return isConstraintError(err, "CHECK", guard.constraint);
}
