// SQL generation: the expression language and materialized view definitions in SQL, for
// one dialect at a time. Pure TypeScript: no HTTP, database or runtime APIs.
export type { FunctionRenderer, SqlArgument, SqlDialect, SqlFunctionCall } from "./dialect";
export { ansiDialect } from "./ansi";
export { postgresqlDialect } from "./postgresql";
export type { SqlErrorReason } from "./errors";
export { SqlGenerationError } from "./errors";
export { expressionToSql, expressionToSqlOperand, MAX_EXPRESSION_SQL_LENGTH } from "./expression-to-sql";
export type {
  FieldReference,
  FilterOperation,
  MaterializedViewDefinition,
  ViewAggregation,
  ViewFilter,
  ViewMetric,
} from "./materialized-view";
export { FILTER_OPERATIONS, materializedViewQuery, MAX_VIEW_QUERY_LENGTH, SIMPLE_METRIC_TYPES } from "./materialized-view";
export type { SqlNames, SqlSource, SqlSourceField, SqlTable } from "./source";
export { dialectOf, SQL_FILTER_OPERATION, sqlDefinition, sqlSourceOf, tableOfEntities, type StoredItem } from "./view-source";
