import type { Expression, ExpressionContext } from "../expression";

/**
 * What SQL generation needs to know about a data source, as plain data: the caller loads
 * it (from D1 or anywhere) and this module never touches a database.
 */
export interface SqlSource {
  readonly table: SqlTable;
  readonly fields: ReadonlyMap<string, SqlSourceField>;
  /** Custom metrics by name: parsed aggregate-level expressions. */
  readonly metrics: ReadonlyMap<string, Expression>;
  /**
   * The data types of the fields and metrics, for the expression checker. When given,
   * materializedViewQuery checks each member of a definition with it before writing it
   * (SUM over text, a text value compared with a number, a custom metric where a field
   * belongs). expressionToSql never reads it: types are the checker's business.
   */
  readonly types?: ExpressionContext;
}

export interface SqlTable {
  readonly schema?: string;
  readonly name: string;
}

/**
 * NATIVE: a column of the table (the field's `originalName`).
 * DERIVED: a parsed row-level expression over other fields, written inline wherever it is used.
 * Hierarchy fields have no SQL of their own and are simply not in the map.
 */
export type SqlSourceField =
  | { readonly kind: "NATIVE"; readonly column: string }
  | { readonly kind: "DERIVED"; readonly expression: Expression };

/** The names an expression can refer to; the table is not needed to print an expression. */
export type SqlNames = Pick<SqlSource, "fields" | "metrics">;
