import { and, asc, eq, getTableColumns, is, Placeholder, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { isConstraintError } from "../lib/errors";
import type { Database } from "./client";
import { compiled, compiledByKey, inBatch } from "./compiled";
import { accounts, connectionGuard, connections, connectionTypes, folders, sources, type ConnectionGuardReason } from "./schema";

/**
 * Queries of connections and connection types. A type is available to an account when it lists
 * no accounts at all (connection_type_accounts), or lists that one; the supervisor sees every type.
 * Connections are read with their type in one query, so each route reads D1 once.
 */
export type ConnectionTypeRow = typeof connectionTypes.$inferSelect;
export type ConnectionRow = typeof connections.$inferSelect;

/** The members of a type's row, as placeholders of a compiled write name them (db/compiled.ts). */
export const TYPE_COLUMNS = Object.keys(getTableColumns(connectionTypes)) as (keyof ConnectionTypeRow)[];

/**
 * Whether the connection_types row in the query is available to the account. The column is spelled
 * out with its table: in a single-table select Drizzle renders ${connectionTypes.id} as a bare "id",
 * which the subqueries would resolve against their own table.
 */
export function availableTo(accountId: string | Placeholder): SQL<boolean> {
  return sql<boolean>`(NOT EXISTS (SELECT 1 FROM connection_type_accounts cta WHERE cta.type_id = "connection_types"."id")
    OR EXISTS (SELECT 1 FROM connection_type_accounts cta WHERE cta.type_id = "connection_types"."id" AND cta.account_id = ${accountId}))`;
}

/** Who reads types: the supervisor every type, a user of an account the types available to it. */
export type TypeReader = { kind: "all" } | { kind: "account"; accountId: string };

/** The members a read of types may be narrowed by, each equal to its value. */
export type TypeFilters = { id?: string; name?: string; enabled?: boolean };
const TYPE_FILTERS = ["id", "name", "enabled"] as const;

// The reads of types (a list and its filters, one by id) compiled once per isolate for each kind of
// reader and set of filters given (db/compiled.ts): Drizzle built their SQL on every request.
const typesFiltered = compiledByKey(
  (db, key: { account: boolean; filters: readonly (keyof TypeFilters)[] }) =>
    db
      .select()
      .from(connectionTypes)
      .where(and(key.account ? availableTo(sql.placeholder("accountId")) : undefined, ...key.filters.map((f) => eq(connectionTypes[f], sql.placeholder(f)))))
      .orderBy(asc(connectionTypes.name)),
  (key) => `${key.account}:${key.filters.join()}`,
);

/** The types the reader sees, by name; the filters given narrow them. */
export function selectTypes(db: Database, reader: TypeReader, filters: TypeFilters): Promise<ConnectionTypeRow[]> {
  const given = TYPE_FILTERS.filter((f) => filters[f] !== undefined);
  const accountId = reader.kind === "account" ? reader.accountId : undefined;
  // A placeholder compared to a column is bound past its encoder: `enabled` as the integer the column stores.
  const enabled = filters.enabled === undefined ? undefined : Number(filters.enabled);
  return typesFiltered(db, { account: accountId !== undefined, filters: given }).all({ ...filters, enabled, accountId });
}

/** Types with an `available` flag for one account (batchable): a write or validation tells "disabled" from "not yours". */
export function selectTypesFor(db: Database, accountId: string | Placeholder, condition: SQL | undefined) {
  return db
    .select({ type: connectionTypes, available: availableTo(accountId) })
    .from(connectionTypes)
    .where(condition);
}

export type TypeForAccount = { type: ConnectionTypeRow; available: boolean };

/** An account's connections with their types (batchable); `condition` narrows them (one id, a name, a list of ids). */
function selectConnectionsWithTypes(db: Database, accountId: string | Placeholder, condition?: SQL) {
  return db
    .select({ connection: connections, type: connectionTypes, available: availableTo(accountId), projectId: projectOfFolder })
    .from(connections)
    .innerJoin(connectionTypes, eq(connectionTypes.id, connections.connectionTypeId))
    .where(and(eq(connections.accountId, accountId), condition))
    .orderBy(asc(connections.name));
}

export type ConnectionWithType = { connection: ConnectionRow; type: ConnectionTypeRow; available: boolean; projectId: string | null };

/** The project of the connection's folder (a root folder starts a project); null without a folder. */
const projectOfFolder = sql<string | null>`(SELECT folders.project_id FROM folders
  WHERE folders.account_id = "connections"."account_id" AND folders.id = "connections"."folder_id")`;

/** The project of a folder of the account (batchable, e.g. after a write). */
// A connection's write reads it and runs it again in its batch: compiled once per isolate (db/compiled.ts).
const projectOfFolderIn = compiled((db) =>
  db.select({ projectId: folders.projectId }).from(folders).where(and(eq(folders.accountId, sql.placeholder("accountId")), eq(folders.id, sql.placeholder("folderId")))),
);

export function selectProjectOfFolder(db: Database, accountId: string, folderId: string | null) {
  return inBatch(projectOfFolderIn(db), { accountId, folderId: folderId ?? "" });
}

// Compiled once per isolate (db/compiled.ts): a connection's GET, and the data-store routes, read it on every request.
const connectionWithTypeById = compiled((db) => selectConnectionsWithTypes(db, sql.placeholder("accountId"), eq(connections.id, sql.placeholder("id"))));

export async function findConnectionWithType(db: Database, accountId: string, id: string): Promise<ConnectionWithType | undefined> {
  const [row] = await connectionWithTypeById(db).all({ accountId, id });
  return row;
}

// GET /api/connections's query, compiled once per isolate for each of its filters (a name, a list of
// ids) present or not: Drizzle built its SQL on every request. The ids are one JSON placeholder.
const connectionsFiltered = (byName: boolean, byIds: boolean) =>
  compiled((db) =>
    selectConnectionsWithTypes(
      db,
      sql.placeholder("accountId"),
      and(byName ? eq(connections.name, sql.placeholder("name")) : undefined, byIds ? inJsonList(connections.id, sql.placeholder("ids")) : undefined),
    ),
  );
const connectionsBy = { all: connectionsFiltered(false, false), name: connectionsFiltered(true, false), ids: connectionsFiltered(false, true), nameAndIds: connectionsFiltered(true, true) };

/** The account's connections with their types, by name; `name` and `ids` (if not empty) narrow them. */
export function listConnectionsWithTypes(db: Database, accountId: string, { name, ids }: { name?: string; ids?: readonly string[] }): Promise<ConnectionWithType[]> {
  const byIds = ids !== undefined && ids.length > 0;
  const query = name === undefined ? (byIds ? connectionsBy.ids : connectionsBy.all) : byIds ? connectionsBy.nameAndIds : connectionsBy.name;
  return query(db).all({ accountId, name, ids: JSON.stringify(ids ?? []) });
}

/** `column IN (the values)` with one bound parameter however many values (D1 allows 100 per statement); a placeholder stands for their JSON array. */
export function inJsonList(column: SQLiteColumn, values: readonly string[] | Placeholder): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${is(values, Placeholder) ? values : JSON.stringify(values)}))`;
}

// ---------------------------------------------------------------- the users of a type or a connection

/** How many users a 409 names at most. */
export const MAX_USERS_LISTED = 100;

/** Connections of a type, in every account (the supervisor is the only one who asks). */
export function connectionsOfType(db: Database, typeId: string) {
  return db
    .select({ id: connections.id, name: connections.name, accountId: connections.accountId, accountName: accounts.name })
    .from(connections)
    .innerJoin(accounts, eq(accounts.id, connections.accountId))
    .where(eq(connections.connectionTypeId, typeId))
    .orderBy(asc(connections.accountId), asc(connections.name))
    .limit(MAX_USERS_LISTED + 1)
    .all();
}

/** The sources that name a connection. Batchable. */
export function sourcesOfConnection(db: Database, accountId: string, connectionId: string) {
  return db
    .select({ id: sources.id, name: sources.name })
    .from(sources)
    .where(and(eq(sources.accountId, accountId), eq(sources.connectionId, connectionId)))
    .orderBy(asc(sources.name))
    .limit(MAX_USERS_LISTED + 1);
}

// ---------------------------------------------------------------- guards inside write batches

/** A batch statement that fails the whole batch with `reason` (a CHECK of connection_guard) when `condition` holds. */
function refuseWhen(db: Database, reason: ConnectionGuardReason, condition: SQL) {
  return db.insert(connectionGuard).select(sql`SELECT ${reason} WHERE ${condition}`);
}

/** Whether a failed batch was refused for `reason`. */
export function refusedFor(err: unknown, reason: ConnectionGuardReason): boolean {
  return isConstraintError(err, "CHECK", reason);
}

// In every write of a source or view that names a connection: compiled once per isolate (db/compiled.ts).
const connectionMissingGuard = compiled((db) =>
  refuseWhen(
    db,
    "connection_missing",
    sql`NOT EXISTS (SELECT 1 FROM connections WHERE connections.account_id = ${sql.placeholder("accountId")} AND connections.id = ${sql.placeholder("connectionId")})`,
  ),
);

/** For a source naming a connection: refuses unless the account has it (a connection deleted meanwhile included). Batchable. */
export function refuseUnlessConnectionExists(db: Database, accountId: string, connectionId: string) {
  return inBatch(connectionMissingGuard(db), { accountId, connectionId });
}

/**
 * For deleting a connection: refuses while a source or a materialized view of the account names it
 * (one created meanwhile included; a view's target connection is also held by its foreign key).
 */
export function refuseIfConnectionUsed(db: Database, accountId: string, connectionId: string) {
  return inBatch(connectionUsedGuard(db), { accountId, connectionId });
}
// In every deletion of a connection: compiled once per isolate (db/compiled.ts).
const connectionUsedGuard = compiled((db) => {
  const [accountId, connectionId] = [sql.placeholder("accountId"), sql.placeholder("connectionId")];
  return refuseWhen(
    db,
    "connection_in_use",
    sql`(EXISTS (SELECT 1 FROM sources WHERE sources.account_id = ${accountId} AND sources.connection_id = ${connectionId})
      OR EXISTS (SELECT 1 FROM materialized_views mv WHERE mv.account_id = ${accountId} AND mv.target_connection_id = ${connectionId}))`,
  );
});

/** For a connection naming a folder: refuses unless the account has it (a folder deleted meanwhile included). */
export function refuseUnlessFolderExists(db: Database, accountId: string, folderId: string) {
  return inBatch(folderMissingGuard(db), { accountId, folderId });
}
const folderMissingGuard = compiled((db) =>
  refuseWhen(db, "connection_folder_missing", sql`NOT EXISTS (SELECT 1 FROM folders WHERE folders.account_id = ${sql.placeholder("accountId")} AND folders.id = ${sql.placeholder("folderId")})`),
);

/**
 * For writing a connection: refuses when its type is no longer the revision that was checked (disabled,
 * parameters changed, its accounts changed, deleted), so no connection is stored against rules that no
 * longer hold.
 */
export function refuseIfTypeChanged(db: Database, type: { id: string; revision: string }) {
  return inBatch(typeChangedGuard(db), { typeId: type.id, typeRevision: type.revision });
}
const typeChangedGuard = compiled((db) =>
  refuseWhen(
    db,
    "connection_type_changed",
    sql`NOT EXISTS (SELECT 1 FROM connection_types WHERE connection_types.id = ${sql.placeholder("typeId")} AND connection_types.revision = ${sql.placeholder("typeRevision")})`,
  ),
);
