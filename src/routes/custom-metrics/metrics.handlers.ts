import type { Context } from "hono";
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
import { checkExpressionTree, findMetricCycle, namesIn, parseExpression } from "../../domain/expression";
import { ApiError, duplicated, invalid, isConstraintError } from "../../lib/errors";
import { auditForCreate, checkIfMatch, etagOf, locationOf, ownLocation, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { expressionError } from "../sources/expressions";
import { deleteItem, listItems, loadItem, setItemVisibility, storeItem, validateAgainstSource } from "../sources/item-operations";
import { metricBody, toMetric } from "./metrics.model";
import type { CustomMetricInput } from "./metrics.schemas";
import type * as routes from "./metrics.routes";

// E1 fixes 400 as the status of a taken name.
const nameTaken = (name: string, by: string) => duplicated(`The name '${name}' is already used by a ${by} of the source`, 400);

/**
 * Creates or replaces a custom metric (E1, and POST). Parsing needs no storage; then one batched
 * read loads the source's access facts, the names the expression mentions and the metric graph,
 * and one batched write stores the metric and its references: two D1 round trips in all.
 * Two concurrent creations of one name: the UNIQUE index lets one insert win (201) and the
 * other is retried once as an update (200). Concurrent updates: with If-Match the loser gets
 * 412; without it the last writer wins (each batch is one transaction, so the metric and its
 * references always stay consistent). A guard in the write batch (stillConsistent) makes a write
 * that a concurrent one has made invalid (a cycle, a type mismatch) miss; it is retried once on
 * fresh reads, which then reject it.
 */
async function writeMetric(c: Context<AppEnv>, sourceId: string, name: string, input: CustomMetricInput, mode: "post" | "put", retried = false) {
  const db = c.get("db");
  const principal = c.get("principal");
  const parsed = parseExpression(input.expression);
  if (!parsed.ok) throw expressionError(parsed.error, "body.expression");
  const mentioned = namesIn(parsed.ast);

  const [access, items, graph, users] = await db.batch([
    selectSourceWithAccess(db, principal, sourceId),
    selectItemsByName(db, sourceId, [...mentioned, name]),
    selectReferenceGraph(db, sourceId, "CUSTOM_METRIC", mentioned),
    selectUsersOf(db, sourceId, name),
  ]);
  const { source } = requireSource(principal, access[0], "EDIT_METRICS");
  const current = items.find((i) => i.name === name);
  if (current?.kind === "FIELD") throw nameTaken(name, "field");
  if (current && mode === "post") throw nameTaken(name, "custom metric");
  if (current) checkIfMatch(c, current.revision);
  // If-Match names a version the client saw: with no current metric it cannot match (RFC 9110), so no silent re-creation.
  else if (c.req.header("If-Match")) throw new ApiError("PRECONDITION_FAILED", "If-Match was sent but the custom metric does not exist");

  const result = checkExpressionTree(parsed.ast, expressionContext(items.filter((i) => i.name !== name), name), "aggregate");
  if (!result.ok) throw expressionError(result.error, "body.expression");
  // Field names in the graph are harmless: no metric edge leaves a field.
  const cycle = findMetricCycle(name, result.referencedMetrics, toGraph(graph));
  if (cycle) throw invalid("body.expression", `Custom metrics may not reference each other in a cycle: ${cycle.join(" -> ")}`);
  if (input.dataType !== undefined && input.dataType !== result.dataType) {
    throw invalid("body.dataType", `dataType ${input.dataType} contradicts the type detected from the expression, ${result.dataType}`);
  }
  if (current && current.dataType !== result.dataType && users.length > 0) throw inUse(name, users, "change the type of");

  const body = metricBody(name, input);
  const revision = newRevision();
  const references = {
    sourceId,
    accountId: source.accountId,
    userName: name,
    userKind: "CUSTOM_METRIC" as const,
    usedNames: [...result.referencedFields, ...result.referencedMetrics],
  };
  const usedItems = items.filter((i) => references.usedNames.includes(i.name));
  const changesType = current !== undefined && current.dataType !== result.dataType;
  const consistent = stillConsistent(sourceId, name, usedItems, { kind: "CUSTOM_METRIC", via: result.referencedMetrics }, changesType);
  // An update keeps the stored creation members: storeItem only takes the last-modified ones.
  const row = { id: current?.id ?? crypto.randomUUID(), revision, sourceId, accountId: source.accountId, kind: "METRIC", name, dataType: result.dataType, body, ...auditForCreate(principal) };
  try {
    const stored = await storeItem(c, { current, row }, references, consistent);
    if (stored !== "lost") return stored;
    // Changed or deleted meanwhile, or the guard failed: one retry checks afresh (If-Match then answers 412).
    if (retried) throw new ApiError("PRECONDITION_FAILED", "The custom metric or what it uses changed concurrently; reload and retry");
  } catch (err) {
    if (!isConstraintError(err, "UNIQUE") || current) {
      if (isConstraintError(err, "FOREIGN KEY")) throw invalid("body.expression", "A field or metric the expression uses was deleted meanwhile; retry");
      throw err;
    }
    if (mode === "post" || retried) throw nameTaken(name, "field or custom metric");
  }
  return writeMetric(c, sourceId, name, input, mode, true);
}

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const page = await listItems(c, c.req.valid("param").sourceId, "METRIC", c.req.valid("query"));
  return c.json({ content: page.content.map(toMetric), pageInfo: page.pageInfo }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const input = c.req.valid("json");
  const { row } = await writeMetric(c, c.req.valid("param").sourceId, input.name, input, "post");
  c.header("Location", locationOf(c, row.name));
  c.header("ETag", etagOf(row.revision));
  return c.json(toMetric(row), 201);
};

export const put: AppRouteHandler<typeof routes.put> = async (c) => {
  const { sourceId, customMetricName } = c.req.valid("param");
  const input = c.req.valid("json");
  if (input.name !== undefined && input.name !== customMetricName) {
    throw invalid("body.name", "A custom metric's name is immutable: it must equal the name in the path");
  }
  const { row, created } = await writeMetric(c, sourceId, customMetricName, input, "put");
  c.header("ETag", etagOf(row.revision));
  if (!created) return c.json(toMetric(row), 200);
  c.header("Location", ownLocation(c));
  return c.json(toMetric(row), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { sourceId, customMetricName } = c.req.valid("param");
  const { item } = await loadItem(c, sourceId, "METRIC", customMetricName, "READ");
  c.header("ETag", etagOf(item.revision));
  return c.json(toMetric(item), 200);
};

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const { sourceId, customMetricName } = c.req.valid("param");
  const row = await setItemVisibility(c, sourceId, customMetricName, "METRIC", c.req.valid("json").visible);
  return c.json(toMetric(row), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { sourceId, customMetricName } = c.req.valid("param");
  await deleteItem(c, sourceId, customMetricName, "METRIC");
  return c.body(null, 204);
};

export const validate: AppRouteHandler<typeof routes.validate> = async (c) => {
  const result = await validateAgainstSource(c, c.req.valid("param").sourceId, c.req.valid("json").expression, "aggregate");
  return c.json(result, 200);
};
