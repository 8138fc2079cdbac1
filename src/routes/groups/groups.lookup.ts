import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { groups } from "../../db/schema";
import { ApiError, type Problem } from "../../lib/errors";

/** Resolves group names of one account to rows; an unknown name is a 400 naming its position. */
export async function groupsByName(db: Database, accountId: string, names: readonly string[]) {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return [];
  const rows = await db
    .select({ id: groups.id, name: groups.name, privileges: groups.privileges })
    .from(groups)
    .where(and(eq(groups.accountId, accountId), inArray(groups.name, wanted)))
    .all();
  const found = new Set(rows.map((r) => r.name));
  const problems: Problem[] = names.flatMap((name, i) =>
    found.has(name) ? [] : [{ name: `body.groups[${i}]`, message: `No group named '${name}' in the account`, level: "ERROR" as const }],
  );
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown group names", { problems });
  return rows;
}
