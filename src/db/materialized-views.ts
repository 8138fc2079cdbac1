import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Principal } from "../domain/principal";
import { COUNT_LIMIT_GUARD, refuseWhen } from "./batch-guards";
import type { Database } from "./client";
import { compiled, compiledByKey, inBatch } from "./compiled";
import { MAX_USERS_LISTED } from "./connections";
import { connections, connectionTypes, materializedViews, sourceItems, sources } from "./schema";
import { accountIdOf, compiledPerScope, scopeOf, scoped } from "./scope";
import { compiledSourcesWithAccess, readableByEach } from "./source-access";

/**
 * Queries of materialized views (deprecated). The builders return unexecuted queries so handlers
 * can put them in one D1 batch; queries that go into a batch never select two columns of one
 * name (D1 answers a batch's rows as objects, where they would collide).
 */
export type MaterializedViewRow = typeof materializedViews.$inferSelect;

/** The most views an account may hold: the list is unpaged, as the reference product has it, so it stays bounded. */
export const MAX_MATERIALIZED_VIEWS_PER_ACCOUNT = 100;

// A view's routes read the view and its source on every request: both compiled once per isolate
// (db/compiled.ts) for each kind of scope (Drizzle built their SQL on every request).
const viewById = compiledPerScope((db, scope) =>
  db
    .select()
    .from(materializedViews)
    .where(scoped(materializedViews.accountId, scope, eq(materializedViews.id, sql.placeholder("viewId")))),
);
const sourceOfViewWithAccess = compiledSourcesWithAccess(
  sql`"sources"."id" = (SELECT mv.source_id FROM materialized_views mv WHERE mv.id = ${sql.placeholder("viewId")} AND mv.account_id = "sources"."account_id")`,
);

/** One view in the caller's scope (another account's is simply not found). Batchable. */
export function selectView(db: Database, principal: Principal, viewId: string) {
  const scope = scopeOf(principal);
  return inBatch(viewById(db, scope), { viewId, accountId: accountIdOf(scope) });
}

/** The source of view `viewId`, with the caller's access facts (see requireSource). Batchable. */
export function selectSourceOfView(db: Database, principal: Principal, viewId: string) {
  const { query, values } = sourceOfViewWithAccess(db, principal);
  return inBatch(query, { ...values, viewId });
}

// GET /api/materialized-views's query, compiled once per isolate (db/compiled.ts) for each kind of
// reader, with and without its source filter: Drizzle built its SQL on every request.
const readableViewsOf = (ofOneSource: boolean) =>
  readableByEach((db, readable) =>
    db
      .select(getTableColumns(materializedViews))
      .from(materializedViews)
      .innerJoin(sources, and(eq(sources.accountId, materializedViews.accountId), eq(sources.id, materializedViews.sourceId)))
      .where(and(readable, ofOneSource ? eq(materializedViews.sourceId, sql.placeholder("sourceId")) : undefined))
      .orderBy(asc(materializedViews.name)),
  );
const readableViews = { all: readableViewsOf(false), ofSource: readableViewsOf(true) };

/** The views on sources the caller may READ, by name; `sourceId` narrows them to one source's. */
export function listReadableViews(db: Database, principal: Principal, sourceId: string | undefined): Promise<MaterializedViewRow[]> {
  const { query, values } = readableViews[sourceId === undefined ? "all" : "ofSource"](db, principal);
  return query.all({ ...values, sourceId });
}

// The reads that check a view's definition (its create and its PUT) and the create's limit guard,
// compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every request.
const itemsUsedBy = compiled((db) =>
  db
    .select({ name: sourceItems.name, kind: sourceItems.kind, dataType: sourceItems.dataType, body: sourceItems.body })
    .from(sourceItems)
    .where(
      and(
        eq(sourceItems.sourceId, sql.placeholder("sourceId")),
        sql`"source_items"."name" IN (WITH RECURSIVE needed(name) AS (
          SELECT value FROM json_each(${sql.placeholder("names")})
          UNION SELECT r.used_name FROM source_references r JOIN needed ON r.user_name = needed.name WHERE r.source_id = ${sql.placeholder("sourceId")})
        SELECT name FROM needed)`,
      ),
    ),
);

/**
 * The fields and custom metrics a definition needs: the ones it names, and everything they use
 * in turn (derived fields and metrics are written inline), found through source_references.
 * Batchable. Columns are spelled out with their tables: see selectSourcesWithAccess.
 */
export function selectItemsUsedBy(db: Database, sourceId: string, names: readonly string[]) {
  return inBatch(itemsUsedBy(db), { sourceId, names: JSON.stringify(names) });
}

const sourceTables = compiled((db) => {
  const dataEntityId = sql<string>`json_extract(${sourceItems.body}, '$.origin.nativeOrigin.dataEntityId')`;
  return db
    .selectDistinct({ dataEntityId: dataEntityId.as("data_entity_id") })
    .from(sourceItems)
    .where(and(eq(sourceItems.sourceId, sql.placeholder("sourceId")), eq(sourceItems.kind, "FIELD"), sql`${dataEntityId} IS NOT NULL`))
    .limit(2);
});

/**
 * The tables the source's native fields come from (`origin.nativeOrigin.dataEntityId`, as the
 * data-entity describe fills it), at most two: a view reads exactly one. Batchable.
 */
export function selectSourceTables(db: Database, sourceId: string) {
  return inBatch(sourceTables(db), { sourceId });
}

const connectorOfSource = compiled((db) =>
  db
    .select({ connectorId: connectionTypes.connectorId })
    .from(sources)
    .innerJoin(connections, and(eq(connections.accountId, sources.accountId), eq(connections.id, sources.connectionId)))
    .innerJoin(connectionTypes, eq(connectionTypes.id, connections.connectionTypeId))
    .where(and(eq(sources.accountId, sql.placeholder("accountId")), eq(sources.id, sql.placeholder("sourceId")))),
);

/** The connector of the source's connection (none without one): it decides the SQL dialect. Batchable. */
export function selectConnectorOfSource(db: Database, accountId: string, sourceId: string) {
  return inBatch(connectorOfSource(db), { accountId, sourceId });
}

const connectionOfAccount = compiled((db) =>
  db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.accountId, sql.placeholder("accountId")), eq(connections.id, sql.placeholder("connectionId")))),
);

/** Whether the account has connection `connectionId`. Batchable. */
export function selectConnectionOfAccount(db: Database, accountId: string, connectionId: string) {
  return inBatch(connectionOfAccount(db), { accountId, connectionId });
}

const viewLimitReached = compiled((db) =>
  refuseWhen(
    db,
    COUNT_LIMIT_GUARD,
    sql`(SELECT count(*) FROM materialized_views WHERE account_id = ${sql.placeholder("accountId")}) >= ${MAX_MATERIALIZED_VIEWS_PER_ACCOUNT}`,
    "MATERIALIZED_VIEW",
  ),
);

/**
 * The first statement of a batch that creates a view: it fails the batch (COUNT_LIMIT_GUARD) when
 * the account already holds MAX_MATERIALIZED_VIEWS_PER_ACCOUNT, counted inside the write's own
 * transaction so that concurrent creates cannot pass the limit together. Batchable.
 */
export function viewLimitGuard(db: Database, accountId: string) {
  return inBatch(viewLimitReached(db), { accountId });
}

/** The views on a source. Batchable. */
export const selectViewsOfSource = (db: Database, accountId: string, sourceId: string) => inBatch(viewsNaming(db, "sourceId"), { accountId, id: sourceId });

/** The views whose data a connection stores (storageSettings.targetStorage.connectionId). Batchable. */
export const selectViewsOfConnection = (db: Database, accountId: string, connectionId: string) =>
  inBatch(viewsNaming(db, "targetConnectionId"), { accountId, id: connectionId });

/**
 * The views of the account whose `column` names the placeholder `id`, as a refused delete lists them
 * (at most MAX_USERS_LISTED + 1). Every deletion of a source reads them: compiled once per isolate
 * for each column (db/compiled.ts).
 */
const viewsNaming = compiledByKey((db, column: "sourceId" | "targetConnectionId") =>
  db
    .select({ id: materializedViews.id, name: materializedViews.name })
    .from(materializedViews)
    .where(and(eq(materializedViews.accountId, sql.placeholder("accountId")), eq(materializedViews[column], sql.placeholder("id"))))
    .orderBy(asc(materializedViews.name))
    .limit(MAX_USERS_LISTED + 1),
);

/** Views as the objects that use another one (ObjectUsage). */
export const asViewUsages = (views: readonly { id: string; name: string }[]) => views.map(({ id, name }) => ({ id, name, type: "MATERIALIZED_VIEW" }));
