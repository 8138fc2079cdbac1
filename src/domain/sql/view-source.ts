import { expressionContext, parseExpression, type Expression } from "../expression";
import { ansiDialect } from "./ansi";
import type { SqlDialect } from "./dialect";
import type { FilterOperation, MaterializedViewDefinition } from "./materialized-view";
import { postgresqlDialect } from "./postgresql";
import type { SqlSource, SqlSourceField, SqlTable } from "./source";

/**
 * What a materialized view's SQL needs of its source, from the source's stored rows: the table, the
 * fields and metrics written as SQL, the dialect. The service (routes/materialized-views) and the
 * bench's floor (scripts/bench-floor), which does the same work after the same reads, both call it.
 */

/** A field or custom metric of a source as stored: its body is the API's object. */
export interface StoredItem {
  name: string;
  kind: string;
  dataType: string;
  body: Record<string, unknown>;
}

/** The filter operations as the API spells them (the reference product's), in the SQL module's spelling. */
export const SQL_FILTER_OPERATION = {
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
} as const satisfies Record<string, FilterOperation>;

/** A definition as the API writes it, its filter operations in the SQL module's spelling. */
export function sqlDefinition(definition: MaterializedViewDefinition): MaterializedViewDefinition {
  const operation = (name: string): string => SQL_FILTER_OPERATION[name as keyof typeof SQL_FILTER_OPERATION] ?? name;
  return { ...definition, filters: (definition.filters ?? []).map((f) => ({ ...f, operation: operation(f.operation) })) };
}

/** PostgreSQL for a source whose connection's connector is one of PostgreSQL's; ANSI otherwise (no connection, HTTP JSON, JSON datasets). */
export function dialectOf(connectorId: string | undefined): SqlDialect {
  return connectorId === "postgresql" || connectorId === "postgresql-hyperdrive" ? postgresqlDialect : ansiDialect;
}

/**
 * The table a source's fields come from: the one `dataEntityId` (`schema.table`, split at its first
 * dot; without a dot, a bare table) its native fields name; or why there is none: no such id, or two.
 */
export function tableOfEntities(dataEntityIds: readonly string[]): { table: SqlTable } | { none: true } | { several: [string, string] } {
  const [only, other] = dataEntityIds;
  if (only === undefined) return { none: true };
  if (other !== undefined) return { several: [only, other] };
  const dot = only.indexOf(".");
  return { table: dot < 0 ? { name: only } : { schema: only.slice(0, dot), name: only.slice(dot + 1) } };
}

type StoredOrigin = { type: "NATIVE"; nativeOrigin: { originalName: string } } | { type: "DERIVED"; derivedOrigin: { expression: string } } | { type: string };

/** The source as SQL generation sees it: its table, the loaded fields and metrics written as SQL, and their types for the checker. */
export function sqlSourceOf(table: SqlTable, items: readonly StoredItem[]): SqlSource {
  const fields = new Map<string, SqlSourceField>();
  const metrics = new Map<string, Expression>();
  for (const item of items) {
    if (item.kind === "METRIC") {
      const parsed = parseExpression(String(item.body.expression ?? ""));
      if (parsed.ok) metrics.set(item.name, parsed.ast);
      continue;
    }
    const origin = item.body.origin as StoredOrigin;
    if (origin.type === "NATIVE" && "nativeOrigin" in origin) fields.set(item.name, { kind: "NATIVE", column: origin.nativeOrigin.originalName });
    if (origin.type === "DERIVED" && "derivedOrigin" in origin) {
      const parsed = parseExpression(origin.derivedOrigin.expression);
      if (parsed.ok) fields.set(item.name, { kind: "DERIVED", expression: parsed.ast });
    }
    // A hierarchy has no SQL of its own: the checker refuses it by its type.
  }
  return { table, fields, metrics, types: expressionContext(items) };
}
