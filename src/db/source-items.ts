import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { ApiError, type AccessibleObjectUsage, type Problem } from "../lib/errors";
import type { Database } from "./client";
import { compiled, inBatch } from "./compiled";
import { calendarReferences, sourceItems, sourceReferences } from "./schema";

/**
 * Storage helpers shared by a source's fields and custom metrics: loading the names an
 * expression mentions, the reference graph, the users of an item, and (re)writing references.
 * The query builders return unexecuted queries so handlers can put them in one D1 batch.
 */
export type ItemKind = "FIELD" | "METRIC";
export type ReferenceKind = "DERIVED_FIELD" | "CUSTOM_METRIC" | "HIERARCHY";

// source_items has 13 columns: 7 rows keep an INSERT under D1's 100 bound parameters.
const ITEM_ROWS_PER_INSERT = 7;

/** The INSERTs of a source's new item rows, as many as D1's 100 bound parameters per statement need. */
export function insertItems(db: Database, items: (typeof sourceItems.$inferInsert)[]): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < items.length; i += ITEM_ROWS_PER_INSERT) statements.push(db.insert(sourceItems).values(items.slice(i, i + ITEM_ROWS_PER_INSERT)));
  return statements;
}

// Compiled once per isolate (db/compiled.ts): an import that replaces a source's items runs them.
const deleteReferencesOfSource = compiled((db) => db.delete(sourceReferences).where(eq(sourceReferences.sourceId, sql.placeholder("sourceId"))));
const deleteItemsOfSource = compiled((db) => db.delete(sourceItems).where(eq(sourceItems.sourceId, sql.placeholder("sourceId"))));

/** The deletes of every item of a source: references first (they point at items), then the items. Batchable. */
export function clearItemsOf(db: Database, sourceId: string) {
  return [inBatch(deleteReferencesOfSource(db), { sourceId }), inBatch(deleteItemsOfSource(db), { sourceId })];
}

// The statements of a field's or metric's write (E1 and its siblings) are compiled once per isolate
// (db/compiled.ts): building their SQL was a fifth of E1's CPU. Lists are one JSON parameter.
const itemsByName = compiled((db) =>
  db
    .select({ id: sourceItems.id, name: sourceItems.name, kind: sourceItems.kind, dataType: sourceItems.dataType, body: sourceItems.body, revision: sourceItems.revision })
    .from(sourceItems)
    .where(and(eq(sourceItems.sourceId, sql.placeholder("sourceId")), inArray(sourceItems.name, sql`(SELECT value FROM json_each(${sql.placeholder("names")}))`))),
);

export function selectItemsByName(db: Database, sourceId: string, names: readonly string[]) {
  // json_each keeps the statement at one bound parameter however many names there are.
  return inBatch(itemsByName(db), { sourceId, names: JSON.stringify(names) });
}

// The items' expression context is the checker's (pure): re-exported for the handlers that load items here.
export { expressionContext, type ItemRef } from "../domain/expression";

/*
 * The edges of one kind reachable from the names an expression mentions: all a cycle check through
 * the written item walks (findMetricCycle follows its references from there). Reading every edge
 * of the source made each write's read, and its graph, grow with the source: 3,000 metrics of one
 * source read 3,000 rows per metric written. A name that is a field (or no item) reaches nothing
 * through metric edges; the primary key (source_id, user_name, used_name) answers each step.
 */
const referenceGraph = compiled((db) => {
  const reached = sql`WITH RECURSIVE reached(name) AS (
      SELECT value FROM json_each(${sql.placeholder("from")})
      UNION
      SELECT r.used_name FROM source_references r JOIN reached ON r.user_name = reached.name
      WHERE r.source_id = ${sql.placeholder("sourceId")} AND r.user_kind = ${sql.placeholder("kind")}
    ) SELECT name FROM reached`;
  return db
    .select({ user: sourceReferences.userName, used: sourceReferences.usedName })
    .from(sourceReferences)
    .where(and(eq(sourceReferences.sourceId, sql.placeholder("sourceId")), eq(sourceReferences.userKind, sql.placeholder("kind")), inArray(sourceReferences.userName, sql`(${reached})`)));
});

/** The edges among items of one reference kind (metric -> metrics, derived field -> fields) reachable from `from`. */
export function selectReferenceGraph(db: Database, sourceId: string, kind: ReferenceKind, from: readonly string[]) {
  return inBatch(referenceGraph(db), { sourceId, kind, from: JSON.stringify(from) });
}

export function toGraph(edges: readonly { user: string; used: string }[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  // Appended in place: copying the list per edge made a source's graph quadratic in its references.
  for (const { user, used } of edges) {
    const list = graph.get(user);
    if (list) list.push(used);
    else graph.set(user, [used]);
  }
  return graph;
}

const usersOf = compiled((db) =>
  db
    .select({ id: sourceItems.id, name: sourceReferences.userName, type: sourceReferences.userKind })
    .from(sourceReferences)
    .innerJoin(sourceItems, and(eq(sourceItems.sourceId, sourceReferences.sourceId), eq(sourceItems.name, sourceReferences.userName)))
    .where(and(eq(sourceReferences.sourceId, sql.placeholder("sourceId")), eq(sourceReferences.usedName, sql.placeholder("name")))),
);

/** The items that use `name`. */
export function selectUsersOf(db: Database, sourceId: string, name: string) {
  return inBatch(usersOf(db), { sourceId, name });
}

/** selectUsersOf in a round trip of its own. */
export function usersOfNow(db: Database, sourceId: string, name: string) {
  return usersOf(db).all({ sourceId, name });
}

/**
 * 400 whose Problem lists, as ObjectUsage, the objects that still use `name`: those the caller may
 * see in `accessible` (with their parent, if any), the rest only as `hasOtherUsages`.
 */
export function inUse(name: string, users: readonly AccessibleObjectUsage[], action: string, hasOtherUsages = false): ApiError {
  const described = users.map((u) => `${u.type} '${u.name}'${u.parent ? ` of ${u.parent.type} '${u.parent.name}'` : ""}`);
  if (hasOtherUsages) described.push(users.length > 0 ? "others you may not see" : "objects you may not see");
  const problem: Problem = {
    name,
    message: `'${name}' is used by ${described.join(", ")}`,
    level: "ERROR",
    dependencies: { [name]: { hasOtherUsages, accessible: users.map(({ id, name, type, parent }) => ({ id, name, type, ...(parent && { parent }) })) } },
  };
  return new ApiError("VALIDATION_FAILED", `Cannot ${action} '${name}': it is in use`, { problems: [problem] });
}

export interface ReferenceWrite {
  sourceId: string;
  accountId: string;
  userName: string;
  userKind: ReferenceKind;
  usedNames: readonly string[];
  /**
   * Fields only: the stored calendar the item uses (null: none, or the built-in one). The foreign
   * key of its reference row fails the batch if the calendar was deleted meanwhile. Metrics leave it out.
   */
  calendarId?: string | null;
}

/**
 * Guards the statements of replaceReferences: with `won` (a revision) they run only if the item
 * now carries it, i.e. this write's update won; with null always.
 */
const referencesGuard = sql`(${sql.placeholder("won")} IS NULL OR EXISTS (SELECT 1 FROM source_items WHERE source_id = ${sql.placeholder("sourceId")} AND name = ${sql.placeholder("userName")} AND revision = ${sql.placeholder("won")}))`;

const deleteReferences = compiled((db) =>
  db.delete(sourceReferences).where(and(eq(sourceReferences.sourceId, sql.placeholder("sourceId")), eq(sourceReferences.userName, sql.placeholder("userName")), referencesGuard)),
);
const insertReferences = compiled((db) =>
  db.insert(sourceReferences).select(
    db
      .select({
        sourceId: sql<string>`${sql.placeholder("sourceId")}`.as("source_id"),
        accountId: sql<string>`${sql.placeholder("accountId")}`.as("account_id"),
        userName: sql<string>`${sql.placeholder("userName")}`.as("user_name"),
        userKind: sql<string>`${sql.placeholder("userKind")}`.as("user_kind"),
        usedName: sql<string>`value`.as("used_name"),
      })
      .from(sql`json_each(${sql.placeholder("used")})`)
      .where(referencesGuard),
  ),
);
const deleteCalendarReference = compiled((db) =>
  db.delete(calendarReferences).where(and(eq(calendarReferences.sourceId, sql.placeholder("sourceId")), eq(calendarReferences.itemName, sql.placeholder("userName")), referencesGuard)),
);
// Columns in the table's order: source_id, item_name, account_id, calendar_id.
const insertCalendarReference = compiled((db) =>
  db
    .insert(calendarReferences)
    .select(sql`SELECT ${sql.placeholder("sourceId")}, ${sql.placeholder("userName")}, ${sql.placeholder("accountId")}, ${sql.placeholder("calendarId")} WHERE ${referencesGuard}`),
);

/**
 * Statements that make `userName`'s references exactly `usedNames` (and, for a field, its calendar
 * `calendarId`); with `wonRevision` only if the item now carries that revision (the write's update won).
 */
export function replaceReferences(db: Database, write: ReferenceWrite, wonRevision?: string): BatchItem<"sqlite">[] {
  const { sourceId, accountId, userName, userKind, calendarId } = write;
  const values = { sourceId, accountId, userName, userKind, used: JSON.stringify([...new Set(write.usedNames)]), calendarId, won: wonRevision ?? null };
  return [
    ...(calendarId === undefined ? [] : [inBatch(deleteCalendarReference(db), values)]),
    ...(calendarId === undefined || calendarId === null ? [] : [inBatch(insertCalendarReference(db), values)]),
    inBatch(deleteReferences(db), values),
    inBatch(insertReferences(db), values),
  ];
}

/**
 * What an item's check read, to be re-asked inside its write batch (stillConsistentSql): every item
 * it uses still exists with the type it was checked against, no item it reaches through references
 * of `cycle.kind` leads back to `name` (no cycle), and, if `name` changes type, nothing uses it.
 * Evaluated inside the write batch (one transaction), it stops two concurrent writes, each valid on
 * its own, from combining into a cycle or a type mismatch: the loser's write misses and is retried.
 */
export function stillConsistent(
  sourceId: string,
  name: string,
  used: readonly { name: string; dataType: string }[],
  cycle: { kind: ReferenceKind; via: readonly string[] },
  changesType: boolean,
): Consistency {
  return {
    sourceId,
    name,
    usedTypes: JSON.stringify(used.map((u) => [u.name, u.dataType])),
    via: JSON.stringify(cycle.via),
    cycleKind: cycle.kind,
    changesType: changesType ? 1 : 0,
  };
}

/** The values of stillConsistentSql's placeholders. */
export type Consistency = { sourceId: string; name: string; usedTypes: string; via: string; cycleKind: ReferenceKind; changesType: 0 | 1 };

/** The condition stillConsistent describes, its values as placeholders (the keys of Consistency), for compiled statements. */
export function stillConsistentSql(): SQL {
  const [sourceId, name] = [sql.placeholder("sourceId"), sql.placeholder("name")];
  const typesHold = sql`NOT EXISTS (SELECT 1 FROM json_each(${sql.placeholder("usedTypes")}) AS u WHERE NOT EXISTS (
    SELECT 1 FROM source_items AS i WHERE i.source_id = ${sourceId} AND i.name = json_extract(u.value, '$[0]') AND i.data_type = json_extract(u.value, '$[1]')))`;
  const noCycle = sql`NOT EXISTS (WITH RECURSIVE reach(n) AS (
    SELECT value FROM json_each(${sql.placeholder("via")})
    UNION SELECT r.used_name FROM source_references AS r JOIN reach ON r.user_name = reach.n
      WHERE r.source_id = ${sourceId} AND r.user_kind = ${sql.placeholder("cycleKind")})
    SELECT 1 FROM reach WHERE n = ${name})`;
  const unused = sql`(${sql.placeholder("changesType")} = 0 OR NOT EXISTS (SELECT 1 FROM source_references WHERE source_id = ${sourceId} AND used_name = ${name}))`;
  return sql`(${typesHold} AND ${noCycle} AND ${unused})`;
}
