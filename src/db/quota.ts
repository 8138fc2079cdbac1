import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { QuotaType } from "../domain/quota";
import { ApiError } from "../lib/errors";
import { QUOTA_GUARD, refusedBy, refuseWhen } from "./batch-guards";
import type { Database } from "./client";
import { compiled, compiledByKey, inBatch } from "./compiled";
import { quotaLimits } from "./schema";

/**
 * Quotas, enforced inside the write itself. A check that reads the count and then writes in a
 * later round trip lets concurrent creates all pass it; here the check is the first statement of
 * the write's own D1 batch (one transaction), so the count it sees is the count the write changes.
 *
 * How much of each type an account consumes is SQL over its live objects. A type whose objects do
 * not exist in this service yet has no entry and counts 0. Resources that add a counted object add
 * its expression here (FILE_SIZE counts bytes of JSON datasets).
 */
const CONSUMPTION: Partial<Record<QuotaType, (accountId: SQL) => SQL>> = {
  SOURCE: (accountId) => sql`SELECT count(*) FROM sources WHERE sources.account_id = ${accountId}`,
  CONNECTION: (accountId) => sql`SELECT count(*) FROM connections WHERE connections.account_id = ${accountId}`,
  FILE_SIZE: (accountId) => sql`SELECT coalesce(sum(json_datasets.data_bytes), 0) FROM json_datasets WHERE json_datasets.account_id = ${accountId}`,
};

export function consumptionOf(type: SQL, accountId: SQL): SQL<number> {
  const cases = Object.entries(CONSUMPTION).map(([t, count]) => sql`WHEN ${t} THEN (${count(accountId)})`);
  return cases.length ? sql<number>`(CASE ${type} ${sql.join(cases, sql` `)} ELSE 0 END)` : sql<number>`0`;
}

/**
 * The statement to put FIRST in the batch that creates (or grows) a counted object: it fails the
 * whole batch with the `quota_exceeded` CHECK constraint when `adding` more of `type` (objects, or
 * bytes for FILE_SIZE) would pass the account's limit. No limit row means no limit; adding nothing
 * (0, less, or NULL) never refuses. Catch the batch's error with `rethrowQuotaExceeded`.
 */
export function quotaGuardStatement(db: Database, accountId: string, type: QuotaType, adding = 1) {
  return inBatch(compiledQuotaGuard(db, type), { accountId, adding });
}

// Every create of a counted object runs one: compiled once per isolate for each type (db/compiled.ts),
// the amount added a placeholder.
const compiledQuotaGuard = compiledByKey((db, type: QuotaType) => quotaGuard(db, sql.placeholder("accountId"), type, sql.placeholder("adding")));

/**
 * quotaGuardStatement's statement for an amount computed in the database (`adding`: SQL whose values
 * are placeholders, beside "accountId"), compiled once per isolate; put it in a batch with `inBatch`.
 */
export const quotaGuardAdding = (type: QuotaType, adding: SQL) => compiled((db) => quotaGuard(db, sql.placeholder("accountId"), type, adding));

function quotaGuard(db: Database, accountId: string | Placeholder, type: QuotaType, adding: number | SQL | Placeholder) {
  const consumption = CONSUMPTION[type]?.(sql`${accountId}`) ?? sql`SELECT 0`;
  return refuseWhen(
    db,
    QUOTA_GUARD,
    // Only growth is refused: a write that adds nothing passes even over a limit lowered since.
    sql`(${adding}) > 0 AND EXISTS (SELECT 1 FROM quota_limits AS ql WHERE ql.account_id = ${accountId} AND ql.type = ${type} AND (${consumption}) + (${adding}) > ql.limit_value)`,
    type,
  );
}

/** After a batch that started with `quotaGuardStatement` failed: throws 409 QUOTA_EXCEEDED if the guard refused it. */
export async function rethrowQuotaExceeded(db: Database, err: unknown, accountId: string, type: QuotaType): Promise<void> {
  if (!refusedBy(err, QUOTA_GUARD)) return;
  // Only on refusal: read the limit so the message can name it.
  const row = await db
    .select({ limit: quotaLimits.limitValue })
    .from(quotaLimits)
    .where(and(eq(quotaLimits.accountId, accountId), eq(quotaLimits.type, type)))
    .get();
  throw new ApiError("QUOTA_EXCEEDED", `The account's ${type} quota${row ? ` of ${row.limit}` : ""} would be exceeded`);
}
