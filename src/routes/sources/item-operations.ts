import { ROW_CHANGED, rowHasRevision } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import { and, eq, not, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { Database } from "../../db/client";
import { sourceItems, sourceReferences } from "../../db/schema";
import { requireSource, selectSourceWithAccess } from "../../db/source-access";
import {
  expressionContext,
  inUse,
  replaceReferences,
  selectItemsByName,
  selectUsersOf,
  stillConsistentSql,
  usersOfNow,
  type Consistency,
  type ItemKind,
  type ReferenceWrite,
} from "../../db/source-items";
import { compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { checkExpressionTree, namesIn, parseExpression, type ExpressionLevel } from "../../domain/expression";
import { validationResult } from "./expressions";
import { ApiError, isConstraintError, notFound } from "../../lib/errors";
import { auditForUpdate, checkIfMatch, etagOf, ifMatchGuard, keysetPlan, newRevision, perPageShape, type PageRequest, ifMatchValue } from "../../lib/http";
import type { AppEnv } from "../../lib/types";

/** Operations that fields and custom metrics share: find one, show/hide it, delete it. */
const NEED = { FIELD: "WRITE", METRIC: "EDIT_METRICS" } as const;
const NOUN = { FIELD: "Field", METRIC: "Custom metric" } as const;
const TARGET_TYPE = { FIELD: "field", METRIC: "custom-metric" } as const;
const itemTarget = (item: { id: string; name: string; kind: string }) => ({ type: TARGET_TYPE[item.kind as ItemKind], id: item.id, name: item.name });

// Compiled once per isolate (db/compiled.ts): the GET of a field or a custom metric reads it on every request.
const itemByKindAndName = compiled((db) =>
  db
    .select()
    .from(sourceItems)
    .where(and(eq(sourceItems.sourceId, sql.placeholder("sourceId")), eq(sourceItems.kind, sql.placeholder("kind")), eq(sourceItems.name, sql.placeholder("name")))),
);

/** A source's field or custom metric by name. Batchable. */
export function selectItem(db: Database, sourceId: string, kind: ItemKind, name: string) {
  return inBatch(itemByKindAndName(db), { sourceId, kind, name });
}

/** Loads the source (checking `need`) and the item in one round trip. */
export async function loadItem(c: Context<AppEnv>, sourceId: string, kind: ItemKind, name: string, need: "READ" | "WRITE" | "EDIT_METRICS") {
  const db = c.get("db");
  const principal = c.get("principal");
  const [access, items] = await db.batch([selectSourceWithAccess(db, principal, sourceId), selectItem(db, sourceId, kind, name)]);
  const { source } = requireSource(principal, access[0], need);
  const item = items[0];
  if (!item) throw notFound(NOUN[kind]);
  return { source, item };
}

// The PATCH's update (show or hide), compiled once per isolate (db/compiled.ts): Drizzle built its SQL on every request.
const updateItemBody = compiled((db) =>
  db
    .update(sourceItems)
    .set(placeholders("body", "revision", "lastModifiedByUserId", "lastModifiedDate"))
    .where(and(eq(sourceItems.id, sql.placeholder("id")), ifMatchPlaceholder(sourceItems.revision)))
    .returning(),
);

export async function setItemVisibility(c: Context<AppEnv>, sourceId: string, name: string, kind: ItemKind, visible: boolean) {
  const { item } = await loadItem(c, sourceId, kind, name, NEED[kind]);
  checkIfMatch(c, item.revision);
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: item.accountId,
    action: `${TARGET_TYPE[kind]}.update`,
    target: itemTarget(item),
    changes: diffMembers({ visible: item.body.visible }, { visible }),
  });
  const updated = await updateItemBody(c.get("db")).get({
    body: { ...item.body, visible },
    revision: newRevision(),
    ...auditForUpdate(c.get("principal")),
    id: item.id,
    ifMatch: ifMatchValue(c, item.revision),
  });
  if (!updated) throw new ApiError("PRECONDITION_FAILED", `The ${NOUN[kind].toLowerCase()} was changed concurrently; reload it and retry`);
  c.header("ETag", etagOf(updated.revision));
  return updated;
}

// deleteItem's batch, compiled once per isolate (db/compiled.ts).
const deleteReferencesBy = compiled((db) =>
  db.delete(sourceReferences).where(and(eq(sourceReferences.sourceId, sql.placeholder("sourceId")), eq(sourceReferences.userName, sql.placeholder("name")))),
);
const deleteItemById = compiled((db) => db.delete(sourceItems).where(eq(sourceItems.id, sql.placeholder("id"))));

/** Deletes a field or metric that nothing uses; the foreign key on references refuses a concurrent new user too. */
export async function deleteItem(c: Context<AppEnv>, sourceId: string, name: string, kind: ItemKind) {
  const db = c.get("db");
  const principal = c.get("principal");
  const [access, items, users] = await db.batch([
    selectSourceWithAccess(db, principal, sourceId),
    selectItem(db, sourceId, kind, name),
    selectUsersOf(db, sourceId, name),
  ]);
  requireSource(principal, access[0], NEED[kind]);
  const item = items[0];
  if (!item) throw notFound(NOUN[kind]);
  checkIfMatch(c, item.revision);
  if (users.length > 0) throw inUse(name, users, "delete");
  c.get("audit").recordIf(ROW_CHANGED, { accountId: item.accountId, action: `${TARGET_TYPE[kind]}.delete`, target: itemTarget(item) });
  try {
    await db.batch([inBatch(deleteReferencesBy(db), { sourceId, name }), inBatch(deleteItemById(db), { id: item.id })]);
  } catch (err) {
    if (isConstraintError(err, "FOREIGN KEY")) throw inUse(name, await usersOfNow(db, sourceId, name), "delete");
    throw err;
  }
}

type ItemRow = typeof sourceItems.$inferSelect;

// A source's fields or metrics, by name, compiled once per isolate for each page shape (db/compiled.ts).
const itemsPage = perPageShape(sourceItems.name, (page) =>
  compiled((db) =>
    db
      .select()
      .from(sourceItems)
      .where(and(eq(sourceItems.sourceId, sql.placeholder("sourceId")), eq(sourceItems.kind, sql.placeholder("kind")), page.keyCondition))
      .orderBy(page.orderBy)
      .limit(page.limit),
  ),
);

/** A page of a source's fields or metrics, read with the source's access facts in one round trip. */
export async function listItems(c: Context<AppEnv>, sourceId: string, kind: ItemKind, page: PageRequest) {
  const db = c.get("db");
  const principal = c.get("principal");
  const binding = { list: kind === "FIELD" ? "fields" : "custom-metrics", account: principal.kind === "user" ? principal.accountId : "*", filters: { sourceId } };
  const plan = await keysetPlan(c, binding, sourceItems.name, (r: ItemRow) => r.name, page);
  const [access, rows] = await db.batch([selectSourceWithAccess(db, principal, sourceId), inBatch(itemsPage[plan.shape](db), { ...plan.pageValues, sourceId, kind })]);
  requireSource(principal, access[0], "READ");
  return plan.toPage(rows);
}

type NewItem = typeof sourceItems.$inferInsert & { id: string; revision: string };

// storeItem's statements, compiled once per isolate (db/compiled.ts): E1's hot path.
const insertItem = compiled((db) =>
  db.insert(sourceItems).values({
    id: sql.placeholder("id"),
    sourceId: sql.placeholder("sourceId"),
    accountId: sql.placeholder("accountId"),
    kind: sql.placeholder("kind"),
    name: sql.placeholder("name"),
    dataType: sql.placeholder("dataType"),
    body: sql.placeholder("body"),
    revision: sql.placeholder("revision"),
    createdByUserId: sql.placeholder("createdByUserId"),
    createdDate: sql.placeholder("createdDate"),
    lastModifiedByUserId: sql.placeholder("lastModifiedByUserId"),
    lastModifiedDate: sql.placeholder("lastModifiedDate"),
  }),
);
/** An INSERT takes no condition: this undoes it when the guard no longer holds. */
const undoInsertUnlessConsistent = compiled((db) =>
  db
    .delete(sourceItems)
    .where(and(eq(sourceItems.id, sql.placeholder("id")), not(stillConsistentSql())))
    .returning({ id: sourceItems.id }),
);
/** A field's or metric's update under If-Match (ifMatchPlaceholder). */
const updateItem = compiled((db) =>
  db
    .update(sourceItems)
    .set(placeholders("dataType", "body", "revision", "lastModifiedByUserId", "lastModifiedDate"))
    .where(and(eq(sourceItems.id, sql.placeholder("id")), ifMatchPlaceholder(sourceItems.revision), stillConsistentSql()))
    .returning(),
);

/**
 * Stores a field or metric with its references in one batch (one transaction), under `consistent`,
 * the guard that what the handler checked still holds. An INSERT takes no condition, so a failed
 * guard is undone by the batch's last statement (references follow by cascade); an UPDATE simply
 * misses. Either way the answer is "lost" and the caller retries on fresh reads or answers 412.
 */
export async function storeItem(
  c: Context<AppEnv>,
  item: { current?: { id: string; revision: string; dataType: string; body: object }; row: NewItem },
  references: ReferenceWrite,
  consistent: Consistency,
): Promise<{ row: ItemRow; created: boolean } | "lost"> {
  const db = c.get("db");
  const { current, row } = item;
  const type = TARGET_TYPE[row.kind as ItemKind];
  // Either way the event is kept only if the item now holds this write's revision (not undone, not missed).
  c.get("audit").recordIf(rowHasRevision("source_items", row.id, row.revision), {
    accountId: row.accountId,
    action: current ? `${type}.update` : `${type}.create`,
    target: itemTarget(row),
    changes: current ? diffMembers({ dataType: current.dataType, ...current.body }, { dataType: row.dataType, ...(row.body as object) }) : undefined,
  });
  if (!current) {
    const results = await db.batch([
      inBatch(insertItem(db), row),
      ...replaceReferences(db, references),
      inBatch(undoInsertUnlessConsistent(db), { ...consistent, id: row.id }),
    ]);
    const undone = results.at(-1) as { id: string }[];
    return undone.length === 0 ? { row: row as ItemRow, created: true } : "lost";
  }
  const { dataType, body, revision, lastModifiedByUserId, lastModifiedDate } = row;
  const ifMatch = ifMatchGuard(c, sourceItems.revision, current.revision) ? current.revision : null;
  const [updated] = await db.batch([
    inBatch(updateItem(db), { ...consistent, id: current.id, ifMatch, dataType, body, revision, lastModifiedByUserId, lastModifiedDate }),
    ...replaceReferences(db, references, revision),
  ]);
  return updated.length > 0 ? { row: updated[0]!, created: false } : "lost";
}

/** The validate endpoints: checks an expression against the source without storing anything (READ). */
export async function validateAgainstSource(c: Context<AppEnv>, sourceId: string, expression: string, level: ExpressionLevel) {
  const db = c.get("db");
  const principal = c.get("principal");
  const parsed = parseExpression(expression);
  const [access, items] = await db.batch([
    selectSourceWithAccess(db, principal, sourceId),
    selectItemsByName(db, sourceId, parsed.ok ? namesIn(parsed.ast) : []),
  ]);
  requireSource(principal, access[0], "READ");
  return validationResult(parsed.ok ? checkExpressionTree(parsed.ast, expressionContext(items), level) : parsed);
}
