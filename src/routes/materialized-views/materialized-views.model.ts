import type { MaterializedViewRow } from "../../db/materialized-views";
import { expressionContext, type ItemRef } from "../../db/source-items";
import { namesIn, parseExpression, type Expression } from "../../domain/expression";
import {
  ansiDialect,
  postgresqlDialect,
  type FilterOperation,
  type MaterializedViewDefinition,
  type SqlDialect,
  type SqlSource,
  type SqlSourceField,
  type SqlTable,
} from "../../domain/sql";
import { ApiError, invalid } from "../../lib/errors";
import { auditOut } from "../../lib/http";
import { expressionError } from "../sources/expressions";
import type { StoredOrigin } from "../source-fields/fields.model";
import type { MaterializedViewInput, ViewFilterOperation } from "./materialized-views.schemas";

/**
 * A materialized view between the API and its storage and SQL: no database or HTTP here. The
 * handlers load the rows; these functions turn them into the answer, or into what SQL
 * generation (src/domain/sql) needs.
 */
export type Definition = MaterializedViewInput["definition"];
type StorageSettings = NonNullable<MaterializedViewInput["storageSettings"]>;

export function toView(row: MaterializedViewRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    enabled: row.enabled,
    definition: row.definition as Definition,
    storageSettings: (row.storageSettings ?? null) as StorageSettings | null,
    referencedSourceIds: [row.sourceId],
    definitionQuery: row.definitionQuery,
    ...auditOut(row),
  };
}

/**
 * Every formula parsed, before anything is read: a syntax error is a 400 at once. Answers the
 * names the definition mentions (fields, metrics, and the names inside formulas), which are all
 * that needs loading, with what they use in turn.
 */
export function namesOfDefinition(definition: Definition): string[] {
  const names: (string | undefined)[] = [...definition.aggregations.map((a) => a.field.name), ...definition.filters.map((f) => f.path.name)];
  definition.metrics.forEach((metric, i) => {
    names.push(metric.field?.name);
    if (metric.formula === undefined) {
      names.push(metric.formulaName);
      return;
    }
    const parsed = parseExpression(metric.formula);
    if (!parsed.ok) throw expressionError(parsed.error, `body.definition.metrics[${i}].formula`);
    names.push(...namesIn(parsed.ast));
  });
  return [...new Set(names.filter((name) => name !== undefined))];
}

/** The API's filter operations (the reference product's spellings) in the SQL module's. */
const SQL_OPERATION: Record<ViewFilterOperation, FilterOperation> = {
  EQUALS: "EQUALS",
  NOTEQUALS: "NOT_EQUALS",
  GT: "GT",
  GE: "GTE",
  LT: "LT",
  LE: "LTE",
  IN: "IN",
  NOTIN: "NOT_IN",
  BETWEEN: "BETWEEN",
  ISNULL: "IS_NULL",
  ISNOTNULL: "IS_NOT_NULL",
  CONTAINS_CS: "CONTAINS",
};

export function sqlDefinition(definition: Definition): MaterializedViewDefinition {
  return { ...definition, filters: definition.filters.map((f) => ({ ...f, operation: SQL_OPERATION[f.operation] })) };
}

/** PostgreSQL for a source whose connection's connector is one of PostgreSQL's; ANSI otherwise (no connection, HTTP JSON, JSON datasets). */
export function dialectOf(connectorId: string | undefined): SqlDialect {
  return connectorId === "postgresql" || connectorId === "postgresql-hyperdrive" ? postgresqlDialect : ansiDialect;
}

const SOURCE_MEMBER = "body.definition.sourceId";

/**
 * The table a source's fields come from: the one `dataEntityId` (`schema.table`, split at its
 * first dot; without a dot, a bare table) its native fields name. None, or several: a 400.
 */
export function tableOf(dataEntityIds: readonly string[]): SqlTable {
  const [only, other] = dataEntityIds;
  if (only === undefined) {
    throw invalid(SOURCE_MEMBER, "The source's native fields name no table (origin.nativeOrigin.dataEntityId): a materialized view needs the table its data comes from");
  }
  if (other !== undefined) throw invalid(SOURCE_MEMBER, `The source's native fields come from several tables ('${only}', '${other}'): a materialized view reads one`);
  const dot = only.indexOf(".");
  return dot < 0 ? { name: only } : { schema: only.slice(0, dot), name: only.slice(dot + 1) };
}

type LoadedItem = ItemRef & { body: Record<string, unknown> };

/** The source as SQL generation sees it: its table, the loaded fields and metrics written as SQL, and their types for the checker. */
export function sqlSourceOf(table: SqlTable, items: readonly LoadedItem[]): SqlSource {
  const fields = new Map<string, SqlSourceField>();
  const metrics = new Map<string, Expression>();
  for (const item of items) {
    if (item.kind === "METRIC") {
      const parsed = parseExpression(String(item.body.expression ?? ""));
      if (parsed.ok) metrics.set(item.name, parsed.ast);
      continue;
    }
    const origin = item.body.origin as StoredOrigin;
    if (origin.type === "NATIVE") fields.set(item.name, { kind: "NATIVE", column: origin.nativeOrigin.originalName });
    if (origin.type === "DERIVED") {
      const parsed = parseExpression(origin.derivedOrigin.expression);
      if (parsed.ok) fields.set(item.name, { kind: "DERIVED", expression: parsed.ast });
    }
    // A hierarchy has no SQL of its own: the checker refuses it by its type.
  }
  return { table, fields, metrics, types: expressionContext(items) };
}

/**
 * SQL generation's refusals name members of the definition (`definition.metrics[0].formula`) or
 * the source's table (`source.table`); the API names the body's members.
 */
export function definitionProblem(member: string | undefined, message: string): ApiError {
  return invalid(member?.startsWith("definition") ? `body.${member}` : SOURCE_MEMBER, message);
}
