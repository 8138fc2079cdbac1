import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
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
import { compiled, inBatch, type PreparedLike } from "./compiled";
import { sources } from "./schema";
import { accountIdOf, compiledPerScope, scopeOf, scoped, type QueryScope } from "./scope";

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

/** Sources in `scope` that meet `condition`, with the grants `grants` (grantsOf, or grantsNaming of placeholders). */
function sourcesWithGrants(db: Database, scope: QueryScope, grants: SQL<string>, condition: SQL) {
  return db.select({ source: sources, grants }).from(sources).where(scoped(sources.accountId, scope, condition));
}

/**
 * selectSourcesWithAccess compiled once per isolate (db/compiled.ts) for each of the two scopes:
 * `condition` names its values by placeholder; `(db, principal)` answers the caller's template and
 * the values of its placeholders (userId, groupIds, accountId; add the condition's own).
 */
export function compiledSourcesWithAccess(condition: SQL) {
  const templates = compiledPerScope((db, scope) => sourcesWithGrants(db, scope, grantsNaming(sql.placeholder("userId"), sql.placeholder("groupIds")), condition));
  return (db: Database, principal: Principal) => ({
    query: templates(db, scopeOf(principal)),
    values: { userId: userId(principal), groupIds: groupIdsJson(principal), accountId: accountIdOf(scopeOf(principal)) },
  });
}

// One source with its access facts (every source route reads it first: docs/performance.md).
const sourceWithAccess = compiledSourcesWithAccess(eq(sources.id, sql.placeholder("sourceId")));

/** A query for one source in the caller's scope, with the facts its permission derives from. Batchable. */
export function selectSourceWithAccess(db: Database, principal: Principal, sourceId: string) {
  const { query, values } = sourceWithAccess(db, principal);
  return inBatch(query, { ...values, sourceId });
}

/**
 * Sources in the caller's scope that meet `condition`, with the facts their permission derives
 * from (read with permissionOn / requireSource). Batchable. The condition is written as for a
 * single-table select: spell columns out with their table inside subqueries.
 */
export function selectSourcesWithAccess(db: Database, principal: Principal, condition: SQL) {
  return sourcesWithGrants(db, scopeOf(principal), grantsOf(principal), condition);
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
  const { query, values } = sourceWithAccess(db, principal);
  const row = await query.get({ ...values, sourceId });
  return requireSource(principal, row, need);
}

/** SQL condition: the caller may READ the source (mirrors effectivePermission for lists). */
export function readableBy(principal: Principal): SQL {
  return readableByReader(readerOf(principal), readerValues(principal));
}

/** Who reads a list of sources: the supervisor reads none, an administrator its account's, a member those it owns or is granted. */
export type Reader = "none" | "admin" | "member";

const readerOf = (principal: Principal): Reader => (principal.kind !== "user" ? "none" : isAdmin(principal) ? "admin" : "member");

/** The caller's values of readableBy (the placeholders of a compiled list: readableByEach). */
function readerValues(principal: Principal) {
  return { accountId: principal.kind === "user" ? principal.accountId : "", userId: userId(principal), groupIds: groupIdsJson(principal) };
}

/** readableBy for a kind of reader, with the reader's values or placeholders of them. */
function readableByReader(reader: Reader, { accountId, userId, groupIds }: { accountId: string | Placeholder; userId: unknown; groupIds: unknown }): SQL {
  if (reader === "none") return sql`0`;
  const account = eq(sources.accountId, accountId);
  if (reader === "admin") return account;
  return and(account, sql`(${sources.ownerUserId} = ${userId} OR ${grantsNaming(userId, groupIds)} <> '[]')`)!;
}

const readerPlaceholders = { accountId: sql.placeholder("accountId"), userId: sql.placeholder("userId"), groupIds: sql.placeholder("groupIds") };

/**
 * A list of what the caller may READ, compiled once per isolate (db/compiled.ts) for each kind of
 * reader: `build` gets readableBy with placeholders, and `of(principal)` the template and the
 * values that fill them (accountId, userId, groupIds; add the list's own).
 */
export function readableByEach<P extends PreparedLike>(build: (db: Database, readable: SQL) => { prepare(): P }) {
  const templateFor = (reader: Reader) => compiled((db) => build(db, readableByReader(reader, readerPlaceholders)));
  const templates = { none: templateFor("none"), admin: templateFor("admin"), member: templateFor("member") };
  return (db: Database, principal: Principal) => ({ query: templates[readerOf(principal)](db), values: readerValues(principal) });
}
