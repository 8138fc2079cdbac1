import type { MaterializedViewRow } from "../../db/materialized-views";
import { namesIn, parseExpression } from "../../domain/expression";
import {
  dialectOf,
  SQL_FILTER_OPERATION,
  sqlDefinition,
  sqlSourceOf,
  tableOfEntities,
  type FilterOperation,
  type SqlTable,
} from "../../domain/sql";
import { ApiError, invalid } from "../../lib/errors";
import { auditOut } from "../../lib/http";
import { expressionError } from "../sources/expressions";
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

// Every filter operation the API's schema takes has its spelling in the SQL module (checked when compiled).
SQL_FILTER_OPERATION satisfies Record<ViewFilterOperation, FilterOperation>;

export { dialectOf, sqlDefinition, sqlSourceOf };

const SOURCE_MEMBER = "body.definition.sourceId";

/** The table a source's fields come from (tableOfEntities); none, or several: a 400. */
export function tableOf(dataEntityIds: readonly string[]): SqlTable {
  const found = tableOfEntities(dataEntityIds);
  if ("table" in found) return found.table;
  if ("none" in found) {
    throw invalid(SOURCE_MEMBER, "The source's native fields name no table (origin.nativeOrigin.dataEntityId): a materialized view needs the table its data comes from");
  }
  const [only, other] = found.several;
  throw invalid(SOURCE_MEMBER, `The source's native fields come from several tables ('${only}', '${other}'): a materialized view reads one`);
}

/**
 * SQL generation's refusals name members of the definition (`definition.metrics[0].formula`) or
 * the source's table (`source.table`); the API names the body's members.
 */
export function definitionProblem(member: string | undefined, message: string): ApiError {
  return invalid(member?.startsWith("definition") ? `body.${member}` : SOURCE_MEMBER, message);
}
