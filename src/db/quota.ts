import { and, eq, sql, type SQL } from "drizzle-orm";
import { allows, type QuotaType } from "../domain/quota";
import { ApiError } from "../lib/errors";
import type { Database } from "./client";
import { quotaLimits } from "./schema";

/**
 * How much of each quota type an account consumes, as SQL over its live objects. A type whose
 * objects do not exist in this service yet has no entry and counts 0. Resources that add a
 * counted object add its expression here (FILE_SIZE counts bytes of JSON datasets).
 */
const CONSUMPTION: Partial<Record<QuotaType, (accountId: SQL) => SQL>> = {
  SOURCE: (accountId) => sql`SELECT count(*) FROM sources WHERE sources.account_id = ${accountId}`,
};

export function consumptionOf(type: SQL, accountId: SQL): SQL<number> {
  const cases = Object.entries(CONSUMPTION).map(([t, count]) => sql`WHEN ${t} THEN (${count(accountId)})`);
  return cases.length ? sql<number>`(CASE ${type} ${sql.join(cases, sql` `)} ELSE 0 END)` : sql<number>`0`;
}

/**
 * Call before creating a counted object: throws 409 QUOTA_EXCEEDED when the account's limit for
 * `type` would be passed by `adding` more (objects, or bytes for FILE_SIZE). One D1 round trip.
 */
export async function assertWithinQuota(db: Database, accountId: string, type: QuotaType, adding = 1): Promise<void> {
  const row = await db
    .select({ limit: quotaLimits.limitValue, consumption: consumptionOf(sql`${type}`, sql`${accountId}`) })
    .from(quotaLimits)
    .where(and(eq(quotaLimits.accountId, accountId), eq(quotaLimits.type, type)))
    .get();
  if (row && !allows(row.limit, Number(row.consumption), adding)) {
    throw new ApiError("QUOTA_EXCEEDED", `The account's ${type} quota of ${row.limit} would be exceeded`);
  }
}
