import { and, eq, sql, type SQL } from "drizzle-orm";
import { isAdmin, hasPrivilege, type Principal } from "../domain/principal";
import {
  canEditMetrics,
  canRead,
  canWrite,
  effectivePermission,
  type Grant,
  type SourcePermission,
} from "../domain/source-permissions";
import { forbidden, notFound } from "../lib/errors";
import type { Database } from "./client";
import { inBatch } from "./compiled";
import { sources } from "./schema";
import { accountIdOf, compiledPerScope, scopeOf, scoped } from "./scope";

/**
 * Access to data sources. A source of another account is not found (404); a source of the
 * caller's account that it may not use is forbidden (403). The supervisor is no member of
 * any account and holds no source permission. Rule: src/domain/source-permissions.ts.
 */
const userId = (p: Principal) => (p.kind === "user" ? p.id : "");
const groupIdsJson = (p: Principal) => JSON.stringify(p.kind === "user" ? p.groupIds : []);

/**
 * The grants naming the caller or one of its groups, as a JSON array column. Columns are
 * spelled out with their tables: in a single-table select Drizzle renders ${sources.id} as a
 * bare "id", which a correlated subquery would resolve against its own table.
 */
function grantsOf(principal: Principal): SQL<string> {
  return grantsNaming(userId(principal), groupIdsJson(principal));
}

/** grantsOf with the user id and the group ids' JSON array as values or placeholders. */
function grantsNaming(userId: unknown, groupIdsJson: unknown): SQL<string> {
  return sql<string>`(SELECT json_group_array(sp.permission) FROM source_permissions sp
    WHERE sp.source_id = "sources"."id"
      AND ((sp.principal_type = 'USER' AND sp.principal_id = ${userId})
        OR (sp.principal_type = 'GROUP' AND sp.principal_id IN (SELECT value FROM json_each(${groupIdsJson})))))`;
}

// One source with its access facts, compiled once per isolate for each of the two scopes (every
// source route reads it first: docs/performance.md).
const sourceWithAccess = compiledPerScope((db, scope) =>
  db
    .select({ source: sources, grants: grantsNaming(sql.placeholder("userId"), sql.placeholder("groupIds")) })
    .from(sources)
    .where(scoped(sources.accountId, scope, eq(sources.id, sql.placeholder("sourceId")))),
);

/** A query for one source in the caller's scope, with the facts its permission derives from. Batchable. */
export function selectSourceWithAccess(db: Database, principal: Principal, sourceId: string) {
  return inBatch(sourceWithAccess(db, scopeOf(principal)), sourceAccessValues(principal, sourceId));
}

/** The values of sourceWithAccess's placeholders. */
function sourceAccessValues(principal: Principal, sourceId: string) {
  return { userId: userId(principal), groupIds: groupIdsJson(principal), sourceId, accountId: accountIdOf(scopeOf(principal)) };
}

/**
 * Sources in the caller's scope that meet `condition`, with the facts their permission derives
 * from (read with permissionOn / requireSource). Batchable. The condition is written as for a
 * single-table select: spell columns out with their table inside subqueries.
 */
export function selectSourcesWithAccess(db: Database, principal: Principal, condition: SQL) {
  return db
    .select({ source: sources, grants: grantsOf(principal) })
    .from(sources)
    .where(scoped(sources.accountId, scopeOf(principal), condition));
}

export type SourceWithAccess = { source: typeof sources.$inferSelect; grants: string };

export function permissionOn(principal: Principal, row: SourceWithAccess): SourcePermission {
  if (principal.kind !== "user") return "NONE";
  return effectivePermission({
    isAccountAdmin: isAdmin(principal),
    isOwner: row.source.ownerUserId === principal.id,
    grants: JSON.parse(row.grants) as Grant[],
  });
}

export type SourceNeed = "READ" | "WRITE" | "EDIT_METRICS";

/** Checks a loaded source against what the operation needs; returns the source and the caller's permission. */
export function requireSource(principal: Principal, row: SourceWithAccess | undefined, need: SourceNeed) {
  if (!row) throw notFound("Source");
  const permission = permissionOn(principal, row);
  const allowed =
    need === "READ"
      ? canRead(permission)
      : need === "WRITE"
        ? canWrite(permission)
        : canEditMetrics(permission, hasPrivilege(principal, "ROLE_EDIT_FORMULAS"));
  if (!allowed) {
    throw forbidden(
      need === "EDIT_METRICS"
        ? "Editing custom metrics needs WRITE on the source, or READ plus ROLE_EDIT_FORMULAS"
        : `This operation needs ${need} permission on the source`,
    );
  }
  return { source: row.source, permission };
}

export async function loadSource(db: Database, principal: Principal, sourceId: string, need: SourceNeed) {
  const row = await sourceWithAccess(db, scopeOf(principal)).get(sourceAccessValues(principal, sourceId));
  return requireSource(principal, row, need);
}

/** SQL condition: the caller may READ the source (mirrors effectivePermission for lists). */
export function readableBy(principal: Principal): SQL {
  if (principal.kind !== "user") return sql`0`;
  const account = eq(sources.accountId, principal.accountId);
  if (isAdmin(principal)) return account;
  return and(account, sql`(${sources.ownerUserId} = ${principal.id} OR ${grantsOf(principal)} <> '[]')`)!;
}
