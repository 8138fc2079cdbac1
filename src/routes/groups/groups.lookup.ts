import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { compiled, inBatch } from "../../db/compiled";
import { accounts, groups } from "../../db/schema";
import { ApiError, invalid, type Problem } from "../../lib/errors";

/** Where the groups' account comes from: its id, the account of a user (the user being updated), or its name (a push). */
export type GroupAccount = { id: string } | { ofUser: string } | { named: string };

// One template per way of naming the account, compiled once per isolate (db/compiled.ts).
const groupsNamedIn = (account: SQL | Placeholder) =>
  compiled((db) =>
    db
      .select({ id: groups.id, name: groups.name, privileges: groups.privileges })
      .from(groups)
      // json_each: one bound parameter however many names (D1 allows 100 per statement).
      .where(and(eq(groups.accountId, account), sql`${groups.name} IN (SELECT value FROM json_each(${sql.placeholder("names")}))`)),
  );
const groupsNamed = {
  id: groupsNamedIn(sql.placeholder("account")),
  ofUser: groupsNamedIn(sql`(SELECT account_id FROM users WHERE id = ${sql.placeholder("account")})`),
  named: groupsNamedIn(sql`(SELECT id FROM accounts WHERE name = ${sql.placeholder("account")})`),
};

/**
 * Group names of one account resolved to rows. The query is batchable, so a handler can fold it
 * into its first read. An unknown name is a 400 naming its position (requireGroupsNamed).
 */
export function selectGroupsNamed(db: Database, account: GroupAccount, names: readonly string[]) {
  const [kind, value] = Object.entries(account)[0] as [keyof typeof groupsNamed, string];
  return inBatch(groupsNamed[kind](db), { account: value, names: JSON.stringify([...new Set(names)]) });
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
    selectGroupsNamed(db, { id: accountId }, names),
  ]);
  if (account.length === 0) throw invalid("body.accountId", "No such account");
  return requireGroupsNamed(names, rows);
}
