import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accounts, groups } from "../../db/schema";
import { ApiError, invalid, type Problem } from "../../lib/errors";

/**
 * Resolves group names of one account to rows, in one round trip with a check that the account
 * exists (the supervisor names accounts freely). An unknown name is a 400 naming its position.
 */
export async function groupsByName(db: Database, accountId: string, names: readonly string[]) {
  const wanted = [...new Set(names)];
  const [account, rows] = await db.batch([
    db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)),
    db
      .select({ id: groups.id, name: groups.name, privileges: groups.privileges })
      .from(groups)
      // json_each: one bound parameter however many names (D1 allows 100 per statement).
      .where(and(eq(groups.accountId, accountId), sql`${groups.name} IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`)),
  ]);
  if (account.length === 0) throw invalid("body.accountId", "No such account");
  const found = new Set(rows.map((r) => r.name));
  const problems: Problem[] = names.flatMap((name, i) =>
    found.has(name) ? [] : [{ name: `body.groups[${i}]`, message: `No group named '${name}' in the account`, level: "ERROR" as const }],
  );
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown group names", { problems });
  return rows;
}
