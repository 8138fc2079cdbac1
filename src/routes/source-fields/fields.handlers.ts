import { and, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { Database } from "../../db/client";
import { schema } from "../../db/client";
import { DEFAULT_CALENDAR_ID, selectCalendarOfSource } from "../../db/calendars";
import { compiled, inBatch } from "../../db/compiled";
import { requireSource, selectSourceWithAccess } from "../../db/source-access";
import {
  expressionContext,
  inUse,
  selectItemsByName,
  selectReferenceGraph,
  selectUsersOf,
  stillConsistent,
  toGraph,
} from "../../db/source-items";
import { checkExpressionTree, findMetricCycle, namesIn, parseExpression, type Expression } from "../../domain/expression";
import { firstFreeName, type FieldDataType } from "../../domain/source-fields";
import { ApiError, duplicated, invalid, isConstraintError } from "../../lib/errors";
import { auditForCreate, checkIfMatch, etagOf, locationOf, ownLocation, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { expressionError } from "../sources/expressions";
import { deleteItem, listItems, loadItem, setItemVisibility, storeItem, validateAgainstSource } from "../sources/item-operations";
import { assertDataTypeAgrees, buildField, chooseFieldName, nativeDataType, toField, type StoredOrigin } from "./fields.model";
import type { FieldInput } from "./fields.schemas";
import type * as routes from "./fields.routes";

const { sourceItems } = schema;
const NO_NAME = "\u0000"; // matches no item: names cannot hold NUL

// Compiled once per isolate (db/compiled.ts): every field write reads it (Drizzle built its SQL on every request).
const namesStartingWith = compiled((db) => {
  const base = sql.placeholder("base");
  return db
    .select({ name: sourceItems.name })
    .from(sourceItems)
    .where(and(eq(sourceItems.sourceId, sql.placeholder("sourceId")), sql`substr(${sourceItems.name}, 1, length(${base})) = ${base}`));
});

/** Names that start with `base`, to pick a free generated name. Batchable. */
function selectNamesStartingWith(db: Database, sourceId: string, base: string) {
  return inBatch(namesStartingWith(db), { sourceId, base });
}

/** What a write's origin references, known before touching storage. */
function referencedByOrigin(input: FieldInput): { ast?: Expression; names: string[] } {
  switch (input.origin.type) {
    case "NATIVE":
      return { names: [] };
    case "DERIVED": {
      const parsed = parseExpression(input.origin.derivedOrigin.expression);
      if (!parsed.ok) throw expressionError(parsed.error, "body.origin.derivedOrigin.expression");
      return { ast: parsed.ast, names: namesIn(parsed.ast) };
    }
    case "HIERARCHY": {
      const { childParent, labelField } = input.origin.hierarchyOrigin;
      return { names: [childParent.childField, childParent.parentField, ...(labelField ? [labelField] : [])] };
    }
  }
}

const CALENDAR_MEMBER = "body.origin.derivedOrigin.calendarId";

/** The stored calendar a derived field names, or null (none, or the built-in one, which needs no row). */
function storedCalendarOf(input: FieldInput): string | null {
  if (input.origin.type !== "DERIVED") return null;
  const { calendarId } = input.origin.derivedOrigin;
  return calendarId === undefined || calendarId === DEFAULT_CALENDAR_ID ? null : calendarId;
}

type Item = { id: string; name: string; kind: string; dataType: string; body: Record<string, unknown>; revision: string };

/** Resolves the origin against the source: the field's data type, its stored origin and what it references. */
function resolveOrigin(input: FieldInput, name: string, ast: Expression | undefined, items: Item[], derivedGraph: Map<string, string[]>) {
  const byName = new Map(items.filter((i) => i.name !== name).map((i) => [i.name, i]));
  switch (input.origin.type) {
    case "NATIVE":
      return { dataType: nativeDataType(input), origin: input.origin as StoredOrigin, references: [] as string[] };
    case "DERIVED": {
      const result = checkExpressionTree(ast!, expressionContext([...byName.values()], name), "row");
      if (!result.ok) throw expressionError(result.error, "body.origin.derivedOrigin.expression");
      const cycle = findMetricCycle(name, result.referencedFields, derivedGraph);
      if (cycle) throw invalid("body.origin.derivedOrigin.expression", `Derived fields may not reference each other in a cycle: ${cycle.join(" -> ")}`);
      assertDataTypeAgrees(input, result.dataType as FieldDataType);
      const { expression, calendarId } = input.origin.derivedOrigin;
      return {
        dataType: result.dataType as FieldDataType,
        origin: { type: "DERIVED", derivedOrigin: { expression, ...(calendarId && { calendarId }), referencedFieldNames: result.referencedFields } } as StoredOrigin,
        references: result.referencedFields,
      };
    }
    case "HIERARCHY": {
      const { childParent, labelField } = input.origin.hierarchyOrigin;
      const member = (fieldName: string, path: string) => {
        const item = byName.get(fieldName);
        if (!item || item.kind !== "FIELD") throw invalid(path, `Field '${fieldName}' not found in the source`);
        if (item.dataType === "HIERARCHY") throw invalid(path, `Field '${fieldName}' is itself a hierarchy`);
        return item;
      };
      const child = member(childParent.childField, "body.origin.hierarchyOrigin.childParent.childField");
      const parent = member(childParent.parentField, "body.origin.hierarchyOrigin.childParent.parentField");
      if (child.name === parent.name) throw invalid("body.origin.hierarchyOrigin.childParent", "Child and parent must be two different fields");
      if (child.dataType !== parent.dataType) {
        throw invalid("body.origin.hierarchyOrigin.childParent", `Child (${child.dataType}) and parent (${parent.dataType}) must have the same type`);
      }
      if (labelField) member(labelField, "body.origin.hierarchyOrigin.labelField");
      assertDataTypeAgrees(input, "HIERARCHY");
      return { dataType: "HIERARCHY" as const, origin: input.origin as StoredOrigin, references: [child.name, parent.name, ...(labelField ? [labelField] : [])] };
    }
  }
}

/**
 * Creates (POST, or PUT of a new name) or replaces (PUT) a field. One batched read loads the
 * source's access facts and every name the write involves; one batched write stores the field
 * and its references. A concurrent creation of the same name is retried once as a replacement.
 */
async function writeField(c: Context<AppEnv>, sourceId: string, input: FieldInput, pathName: string | undefined, retried = false) {
  const db = c.get("db");
  const principal = c.get("principal");
  if (pathName !== undefined && input.name !== undefined && input.name !== pathName) {
    throw invalid("body.name", "A field's name is immutable: it must equal the name in the path");
  }
  const { ast, names } = referencedByOrigin(input);
  const explicitName = pathName ?? input.name;
  const generatedBase = explicitName === undefined ? chooseFieldName(input, new Set()) : NO_NAME;

  const calendarId = storedCalendarOf(input);
  const [access, items, graph, users, similar, calendar] = await db.batch([
    selectSourceWithAccess(db, principal, sourceId),
    selectItemsByName(db, sourceId, [...names, explicitName ?? NO_NAME]),
    selectReferenceGraph(db, sourceId, "DERIVED_FIELD", names),
    selectUsersOf(db, sourceId, explicitName ?? NO_NAME),
    selectNamesStartingWith(db, sourceId, generatedBase),
    selectCalendarOfSource(db, sourceId, calendarId ?? NO_NAME),
  ]);
  const { source } = requireSource(principal, access[0], "WRITE");
  // Another account's calendar and a missing one get the same answer.
  if (calendarId !== null && calendar.length === 0) throw invalid(CALENDAR_MEMBER, "No calendar with this id in the source's account");
  const current = explicitName === undefined ? undefined : items.find((i) => i.name === explicitName);
  if (current && (current.kind !== "FIELD" || pathName === undefined)) {
    throw duplicated(`The name '${explicitName}' is already used by a ${current.kind === "FIELD" ? "field" : "custom metric"} of the source`, 409);
  }
  if (current) checkIfMatch(c, current.revision);
  // If-Match names a version the client saw: with no current field it cannot match (RFC 9110), so no silent creation.
  else if (pathName !== undefined && c.req.header("If-Match")) throw new ApiError("PRECONDITION_FAILED", "If-Match was sent but the field does not exist");
  const name = explicitName ?? firstFreeName(generatedBase, new Set(similar.map((s) => s.name)));

  const resolved = resolveOrigin(input, name, ast, items, toGraph(graph));
  // Retyping a used field (another dataType, or another origin type) would change what its users stand on.
  const currentOriginType = (current?.body as { origin?: { type?: string } } | undefined)?.origin?.type;
  const retyped = current && (current.dataType !== resolved.dataType || currentOriginType !== input.origin.type);
  if (retyped && users.length > 0) throw inUse(name, users, "change the type of");
  const field = buildField(input, name, resolved.dataType, resolved.origin, source.features);
  const references = {
    sourceId,
    accountId: source.accountId,
    userName: name,
    userKind: input.origin.type === "HIERARCHY" ? ("HIERARCHY" as const) : ("DERIVED_FIELD" as const),
    usedNames: resolved.references,
    calendarId,
  };
  const usedItems = items.filter((i) => resolved.references.includes(i.name));
  const cycle = { kind: "DERIVED_FIELD" as const, via: input.origin.type === "DERIVED" ? resolved.references : [] };
  const consistent = stillConsistent(sourceId, name, usedItems, cycle, Boolean(retyped));
  // An update keeps the stored creation members: storeItem only takes the last-modified ones.
  const row = { id: current?.id ?? crypto.randomUUID(), revision: newRevision(), sourceId, accountId: source.accountId, kind: "FIELD", ...field, ...auditForCreate(principal) };

  try {
    const stored = await storeItem(c, { current, row }, references, consistent);
    if (stored !== "lost") return stored;
    // Changed or deleted meanwhile, or what it uses changed: one retry checks afresh (If-Match then answers 412).
    if (retried) throw new ApiError("PRECONDITION_FAILED", "The field or what it uses changed concurrently; reload and retry");
    return writeField(c, sourceId, input, pathName, true);
  } catch (err) {
    if (isConstraintError(err, "UNIQUE") && !current && pathName !== undefined && !retried) return writeField(c, sourceId, input, pathName, true);
    if (isConstraintError(err, "UNIQUE")) throw duplicated(`The name '${name}' is already used in the source`, 409);
    // A field or calendar it references was deleted meanwhile: one retry reads afresh and names what is missing.
    if (isConstraintError(err, "FOREIGN KEY") && !retried) return writeField(c, sourceId, input, pathName, true);
    if (isConstraintError(err, "FOREIGN KEY")) throw invalid("body.origin", "A field or calendar this one references was deleted meanwhile; retry");
    throw err;
  }
}

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const page = await listItems(c, c.req.valid("param").sourceId, "FIELD", c.req.valid("query"));
  return c.json({ content: page.content.map(toField), pageInfo: page.pageInfo }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const { row } = await writeField(c, c.req.valid("param").sourceId, c.req.valid("json"), undefined);
  c.header("Location", locationOf(c, row.name));
  c.header("ETag", etagOf(row.revision));
  return c.json(toField(row), 201);
};

export const put: AppRouteHandler<typeof routes.put> = async (c) => {
  const { sourceId, fieldName } = c.req.valid("param");
  const { row, created } = await writeField(c, sourceId, c.req.valid("json"), fieldName);
  c.header("ETag", etagOf(row.revision));
  if (!created) return c.json(toField(row), 200);
  c.header("Location", ownLocation(c));
  return c.json(toField(row), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { sourceId, fieldName } = c.req.valid("param");
  const { item } = await loadItem(c, sourceId, "FIELD", fieldName, "READ");
  c.header("ETag", etagOf(item.revision));
  return c.json(toField(item), 200);
};

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const { sourceId, fieldName } = c.req.valid("param");
  const row = await setItemVisibility(c, sourceId, fieldName, "FIELD", c.req.valid("json").visible);
  return c.json(toField(row), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { sourceId, fieldName } = c.req.valid("param");
  await deleteItem(c, sourceId, fieldName, "FIELD");
  return c.body(null, 204);
};

export const validate: AppRouteHandler<typeof routes.validate> = async (c) => {
  const result = await validateAgainstSource(c, c.req.valid("param").sourceId, c.req.valid("json").expression, "row");
  return c.json(result, 200);
};

