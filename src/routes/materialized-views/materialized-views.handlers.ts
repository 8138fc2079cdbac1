import { ROW_CHANGED } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import type { Database } from "../../db/client";
import { COUNT_LIMIT_GUARD, refusedBy } from "../../db/batch-guards";
import { boundAsGiven, compiled, compiledRowUpdate, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { refusedFor, refuseUnlessConnectionExists } from "../../db/connections";
import {
  MAX_MATERIALIZED_VIEWS_PER_ACCOUNT,
  listReadableViews,
  selectConnectionOfAccount,
  selectConnectorOfSource,
  selectItemsUsedBy,
  selectSourceOfView,
  selectSourceTables,
  selectView,
  viewLimitGuard,
  type MaterializedViewRow,
} from "../../db/materialized-views";
import { materializedViews } from "../../db/schema";
import { requireSource, selectSourceWithAccess, type SourceNeed, type SourceWithAccess } from "../../db/source-access";
import type { UserPrincipal } from "../../domain/principal";
import { materializedViewQuery, SqlGenerationError } from "../../domain/sql";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, duplicated, invalid, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, auditForCreate, auditForUpdate, checkIfMatch, etagOf, locationOf, newRevision, patchChanges, ifMatchValue } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import { definitionProblem, dialectOf, namesOfDefinition, sqlDefinition, sqlSourceOf, tableOf, toView } from "./materialized-views.model";
import type * as routes from "./materialized-views.routes";
import type { MaterializedViewInput } from "./materialized-views.schemas";

/**
 * Materialized views (deprecated). Every route admits users of an account only (`accountMember`),
 * so the caller is a user and its scope its own account. Permissions are the view's source's:
 * READ to read a view, WRITE to write one; the definition's source is named by the body.
 */
const userOf = (c: Context<AppEnv>) => c.get("principal") as UserPrincipal;

const noSuchSource = () => invalid("body.definition.sourceId", "No source with this id in your account");
const noSuchTarget = () => invalid("body.storageSettings.targetStorage.connectionId", "No connection with this id in your account");
const nameTaken = (name: string) => duplicated(`A materialized view named '${name}' already exists in the account`);
const changedConcurrently = () => new ApiError("PRECONDITION_FAILED", "The materialized view was changed concurrently; reload it and retry");

/** A view and its source as read together (selectView, selectSourceOfView): 404 for none in the caller's account, 403 without `need` on the source. */
function requireView(principal: UserPrincipal, views: MaterializedViewRow[], viewSources: SourceWithAccess[], need: SourceNeed): MaterializedViewRow {
  const view = views[0];
  if (!view) throw notFound("Materialized view");
  requireSource(principal, viewSources[0], need);
  return view;
}

async function loadView(c: Context<AppEnv>, id: string, need: SourceNeed): Promise<MaterializedViewRow> {
  const db = c.get("db");
  const principal = userOf(c);
  const [views, viewSources] = await db.batch([selectView(db, principal, id), selectSourceOfView(db, principal, id)]);
  return requireView(principal, views, viewSources, need);
}

/** The reads a definition is checked with, for one batch: its source with the caller's access, what it uses, its table, its dialect, the target connection. */
function definitionReads(db: Database, principal: UserPrincipal, body: MaterializedViewInput) {
  const { sourceId } = body.definition;
  const names = namesOfDefinition(body.definition);
  return [
    selectSourceWithAccess(db, principal, sourceId),
    selectItemsUsedBy(db, sourceId, names),
    selectSourceTables(db, sourceId),
    selectConnectorOfSource(db, principal.accountId, sourceId),
    selectConnectionOfAccount(db, principal.accountId, body.storageSettings?.targetStorage.connectionId ?? ""),
  ] as const;
}

type DefinitionFacts = readonly [
  SourceWithAccess[],
  { name: string; kind: string; dataType: string; body: Record<string, unknown> }[],
  { dataEntityId: string }[],
  { connectorId: string }[],
  { id: string }[],
];

/** Checks the definition against what was read (WRITE on its source, its table, the target connection) and answers its SQL. */
function definitionQueryOf(principal: UserPrincipal, body: MaterializedViewInput, [access, items, tables, connector, target]: DefinitionFacts): string {
  if (!access[0]) throw noSuchSource();
  requireSource(principal, access[0], "WRITE");
  if (body.storageSettings && target.length === 0) throw noSuchTarget();
  const source = sqlSourceOf(tableOf(tables.map((t) => t.dataEntityId)), items);
  try {
    return materializedViewQuery(sqlDefinition(body.definition), source, dialectOf(connector[0]?.connectorId));
  } catch (err) {
    if (err instanceof SqlGenerationError) throw definitionProblem(err.member, err.message);
    throw err;
  }
}

/** The columns a write stores from the body. */
function storedColumns(body: MaterializedViewInput, definitionQuery: string) {
  return {
    name: body.name,
    description: body.description ?? null,
    enabled: body.enabled,
    sourceId: body.definition.sourceId,
    definition: body.definition,
    storageSettings: body.storageSettings ?? null,
    targetConnectionId: body.storageSettings?.targetStorage.connectionId ?? null,
    definitionQuery,
  };
}

// The create's insert and the PUT's update, compiled once per isolate (db/compiled.ts): Drizzle
// built their SQL on every request. They write every column storedColumns fills; storageSettings is
// bound as its JSON text, or NULL (boundAsGiven).
const storedPlaceholders = {
  ...placeholders("name", "description", "enabled", "sourceId", "definition", "targetConnectionId", "definitionQuery"),
  storageSettings: boundAsGiven("storageSettingsJson"),
};
const insertView = compiled((db) =>
  db.insert(materializedViews).values({
    ...storedPlaceholders,
    ...placeholders("id", "accountId", "revision", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
  }),
);
const replaceView = compiled((db) =>
  db
    .update(materializedViews)
    .set({ ...storedPlaceholders, ...placeholders("revision", "lastModifiedByUserId", "lastModifiedDate") })
    .where(and(eq(materializedViews.id, sql.placeholder("id")), ifMatchPlaceholder(materializedViews.revision)))
    .returning(),
);

// A PATCH's update, one template per set of members it sets (name, description, enabled, with the
// revision and the audit columns: at most seven sets).
const patchView = compiledRowUpdate(materializedViews, materializedViews.id, materializedViews.revision);

/** The values of storedPlaceholders for a row's stored columns. */
const storedValues = <Row extends { storageSettings: unknown }>(row: Row) => ({
  ...row,
  storageSettingsJson: row.storageSettings === null ? null : JSON.stringify(row.storageSettings),
});

/** The target connection is checked again inside the write's batch: deleted meanwhile, the write fails. */
function targetGuard(db: Database, accountId: string, body: MaterializedViewInput): BatchItem<"sqlite">[] {
  const connectionId = body.storageSettings?.targetStorage.connectionId;
  return connectionId === undefined ? [] : [refuseUnlessConnectionExists(db, accountId, connectionId)];
}

/** A write batch's refusals, as answers. */
function mapWriteError(err: unknown, name: string): never {
  if (refusedBy(err, COUNT_LIMIT_GUARD)) {
    throw new ApiError("TOO_MANY_MATERIALIZED_VIEWS", `The account already has ${MAX_MATERIALIZED_VIEWS_PER_ACCOUNT} materialized views, the most it may have`);
  }
  if (refusedFor(err, "connection_missing")) throw noSuchTarget();
  if (isConstraintError(err, "UNIQUE")) throw nameTaken(name);
  // The source's foreign key: it was deleted after it was read.
  if (isConstraintError(err, "FOREIGN KEY")) throw noSuchSource();
  throw err;
}

const viewTarget = (row: { id: string; name: string }) => ({ type: "materialized-view" as const, id: row.id, name: row.name });

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const rows = await listReadableViews(c.get("db"), userOf(c), c.req.valid("query").sourceId);
  return c.json({ content: rows.map(toView) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  const principal = userOf(c);
  const definitionQuery = definitionQueryOf(principal, body, await db.batch(definitionReads(db, principal, body)));
  const row: MaterializedViewRow = {
    id: crypto.randomUUID(),
    revision: newRevision(),
    accountId: principal.accountId,
    ...storedColumns(body, definitionQuery),
    ...auditForCreate(principal),
  };
  c.get("audit").record({ accountId: row.accountId, action: "materialized-view.create", target: viewTarget(row) });
  try {
    await db.batch([viewLimitGuard(db, row.accountId), ...targetGuard(db, row.accountId, body), inBatch(insertView(db), storedValues(row))]);
  } catch (err) {
    mapWriteError(err, body.name);
  }
  c.header("Location", locationOf(c, row.id));
  c.header("ETag", etagOf(row.revision));
  // 200, not 201: E19 fixes it.
  return c.json(toView(row), 200);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const view = await loadView(c, c.req.valid("param").id, "READ");
  c.header("ETag", etagOf(view.revision));
  return c.json(toView(view), 200);
};

export const replace: AppRouteHandler<typeof routes.replace> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, id);
  const db = c.get("db");
  const principal = userOf(c);
  const [views, viewSources, ...facts] = await db.batch([selectView(db, principal, id), selectSourceOfView(db, principal, id), ...definitionReads(db, principal, body)]);
  const current = requireView(principal, views, viewSources, "WRITE");
  checkIfMatch(c, current.revision);
  const definitionQuery = definitionQueryOf(principal, body, facts);
  const replacement = { ...storedColumns(body, definitionQuery), revision: newRevision(), ...auditForUpdate(principal) };
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: current.accountId,
    action: "materialized-view.update",
    target: viewTarget({ ...current, ...replacement }),
    changes: diffMembers(toView(current), toView({ ...current, ...replacement })),
  });
  const update = inBatch(replaceView(db), { ...storedValues(replacement), id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  let updated: MaterializedViewRow[] = [];
  try {
    // The guard first: a target connection deleted meanwhile is its refusal, not the foreign key's.
    const statements: BatchItem<"sqlite">[] = [...targetGuard(db, principal.accountId, body), update];
    const results = await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    updated = results.at(-1) as MaterializedViewRow[];
  } catch (err) {
    mapWriteError(err, body.name);
  }
  // Missed: with If-Match, another write came first; without it, only a concurrent delete explains it.
  if (!updated[0]) throw c.req.header("If-Match") ? changedConcurrently() : notFound("Materialized view");
  c.header("ETag", etagOf(updated[0].revision));
  return c.json(toView(updated[0]), 200);
};

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const body = c.req.valid("json");
  const principal = userOf(c);
  const current = await loadView(c, c.req.valid("param").id, "WRITE");
  checkIfMatch(c, current.revision);
  const changes = patchChanges(body, principal);
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: current.accountId,
    action: "materialized-view.update",
    target: viewTarget({ ...current, ...changes }),
    changes: diffMembers(toView(current), toView({ ...current, ...changes })),
  });
  let updated: MaterializedViewRow | undefined;
  try {
    const members = (Object.keys(changes) as (keyof typeof changes)[]).sort();
    updated = await patchView(c.get("db"), members).get({ ...changes, id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  } catch (err) {
    mapWriteError(err, body.name ?? current.name);
  }
  if (!updated) throw c.req.header("If-Match") ? changedConcurrently() : notFound("Materialized view");
  c.header("ETag", etagOf(updated.revision));
  return c.json(toView(updated), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const current = await loadView(c, c.req.valid("param").id, "WRITE");
  checkIfMatch(c, current.revision);
  c.get("audit").recordIf(ROW_CHANGED, { accountId: current.accountId, action: "materialized-view.delete", target: viewTarget(current) });
  const deleted = await deleteView(c.get("db")).all({ id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  if (deleted.length === 0 && c.req.header("If-Match")) throw changedConcurrently();
  return c.body(null, 204);
};

// Compiled once per isolate (db/compiled.ts): Drizzle built its SQL on every request. `ifMatch` null: no If-Match, the last writer wins.
const deleteView = compiled((db) =>
  db
    .delete(materializedViews)
    .where(and(eq(materializedViews.id, sql.placeholder("id")), ifMatchPlaceholder(materializedViews.revision)))
    .returning({ id: materializedViews.id }),
);
