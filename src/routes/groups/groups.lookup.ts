import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accounts, groups } from "../../db/schema";
import { ApiError, invalid, type Problem } from "../../lib/errors";

/**
 * Group names of one account resolved to rows. The query is batchable, so a handler can fold it
 * into its first read; `account` is the account's id, or SQL that yields it (e.g. the account of
 * the user being updated). An unknown name is a 400 naming its position.
 */
export function selectGroupsNamed(db: Database, account: string | SQL, names: readonly string[]) {
  return db
    .select({ id: groups.id, name: groups.name, privileges: groups.privileges })
    .from(groups)
    // json_each: one bound parameter however many names (D1 allows 100 per statement).
    .where(and(eq(groups.accountId, account), sql`${groups.name} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(names)])}))`));
}

export type GroupRef = { id: string; name: string; privileges: string[] };

export function requireGroupsNamed(names: readonly string[], rows: readonly GroupRef[]): GroupRef[] {
  const found = new Set(rows.map((r) => r.name));
  const problems: Problem[] = names.flatMap((name, i) =>
    found.has(name) ? [] : [{ name: `body.groups[${i}]`, message: `No group named '${name}' in the account`, level: "ERROR" as const }],
  );
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown group names", { problems });
  return [...rows];
}

/** The groups named, in one round trip with a check that the account exists (the supervisor names accounts freely). */
export async function groupsByName(db: Database, accountId: string, names: readonly string[]) {
  const [account, rows] = await db.batch([
    db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)),
    selectGroupsNamed(db, accountId, names),
  ]);
  if (account.length === 0) throw invalid("body.accountId", "No such account");
  return requireGroupsNamed(names, rows);
}
