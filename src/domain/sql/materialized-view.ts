import { checkExpressionTree, parseExpression, type CallArgument, type Expression, type ExpressionLevel, type SourcePosition } from "../expression";
import { ansiDialect } from "./ansi";
import type { SqlDialect } from "./dialect";
import { attributeTo, SqlGenerationError } from "./errors";
import { expressionToSql, expressionToSqlOperand } from "./expression-to-sql";
import type { SqlSource } from "./source";

/**
 * The SQL behind a materialized view (its `definitionQuery`): one aggregate query over
 * the source's table.
 *
 *   SELECT <TERMS fields> AS <field name>, <metrics> AS <metric column>
 *   FROM <table>
 *   WHERE <filters, joined with AND>
 *   GROUP BY <TERMS fields>
 *
 * Problems come back as SqlGenerationError whose `member` names the definition member at
 * fault, e.g. `definition.aggregations[0].field.name`, or `source.table` for the table.
 * When the source carries its data types (`SqlSource.types`), every member is also checked
 * by the expression checker before it is written: a TERMS field, a filter's field and value,
 * a metric's aggregate over its field, a formula.
 */

/**
 * The longest query a view may have, in characters: fields and metrics are written inline, so a
 * few names can stand for a great deal of SQL, and the query is stored with the view.
 */
export const MAX_VIEW_QUERY_LENGTH = 65_536;

/** Only AGG definitions have a query; the API's other variant is not described. */
export interface MaterializedViewDefinition {
  readonly type: string;
  readonly sourceId?: string;
  readonly filters?: readonly ViewFilter[];
  readonly aggregations?: readonly ViewAggregation[];
  readonly metrics?: readonly ViewMetric[];
}

export interface FieldReference {
  readonly name: string;
}

/** See FILTER_OPERATIONS for the operations and the value each takes. */
export interface ViewFilter {
  readonly path: FieldReference;
  readonly operation: string;
  readonly value?: unknown;
}

/** TERMS: one group per distinct value of the field. */
export interface ViewAggregation {
  readonly type: string;
  readonly field: FieldReference;
}

/**
 * Three kinds, tried in this order:
 * - formula metric: `formula` (an aggregate-level expression) named by `formulaName`;
 *   `type` is not used;
 * - custom metric: `formulaName` alone names one of the source's custom metrics;
 * - simple metric: `type` (COUNT, SUM, AVG, MIN, MAX, COUNTD) over `field`; COUNT
 *   without a field counts rows.
 * `rollup` says how the stored data may be combined later; it does not change the query.
 */
export interface ViewMetric {
  readonly type?: string;
  readonly field?: FieldReference;
  readonly rollup?: boolean;
  readonly formulaName?: string;
  readonly formula?: string;
}

export const SIMPLE_METRIC_TYPES = ["COUNT", "SUM", "AVG", "MIN", "MAX", "COUNTD"] as const;

export function materializedViewQuery(definition: MaterializedViewDefinition, source: SqlSource, dialect: SqlDialect = ansiDialect): string {
  if (definition.type !== "AGG") {
    throw definitionError("definition.type", `Only AGG definitions have an SQL query, got ${describe(definition.type)}`);
  }
  const aggregations = definition.aggregations ?? [];
  const metrics = definition.metrics ?? [];
  if (aggregations.length === 0 && metrics.length === 0) {
    throw definitionError("definition.metrics", "A definition needs at least one aggregation or metric");
  }

  const budget = new LengthBudget();
  const columns = new SelectList(dialect, budget);
  const groupBy: string[] = [];
  aggregations.forEach((aggregation, index) => {
    const member = `definition.aggregations[${index}]`;
    if (aggregation.type !== "TERMS") {
      throw definitionError(`${member}.type`, `Only TERMS aggregations are supported, got ${describe(aggregation.type)}`);
    }
    const fieldName = referencedName(aggregation.field, `${member}.field`);
    checkTypes(nameNode(fieldName), "row", source, `${member}.field.name`);
    const sql = attributeTo(`${member}.field.name`, () => expressionToSql(nameNode(fieldName), "row", source, dialect));
    columns.add(sql, fieldName, `${member}.field.name`);
    // Written twice: in the select list and in GROUP BY.
    groupBy.push(budget.spend(sql, `${member}.field.name`));
  });

  metrics.forEach((metric, index) => {
    const { sql, column, member } = metricColumn(metric, `definition.metrics[${index}]`, source, dialect);
    columns.add(sql, column, member);
  });

  const conditions = (definition.filters ?? []).map((filter, index) => {
    const member = `definition.filters[${index}]`;
    return budget.spend(filterCondition(filter, member, source, dialect), member);
  });

  const lines = [`SELECT ${columns.sql()}`, `FROM ${attributeTo("source.table", () => tableName(source, dialect))}`];
  if (conditions.length > 0) lines.push(`WHERE ${conditions.join(" AND ")}`);
  if (groupBy.length > 0) lines.push(`GROUP BY ${groupBy.join(", ")}`);
  return lines.join("\n");
}

function tableName(source: SqlSource, dialect: SqlDialect): string {
  const { schema, name } = source.table;
  const table = dialect.quoteIdentifier(name);
  return schema === undefined ? table : `${dialect.quoteIdentifier(schema)}.${table}`;
}

/** Counts the query's characters as its pieces are written, and stops at MAX_VIEW_QUERY_LENGTH. */
class LengthBudget {
  private used = 0;

  /** Answers `sql`, or refuses it (TOO_LARGE, at `member`) when the query would pass the limit. */
  spend(sql: string, member: string): string {
    this.used += sql.length;
    if (this.used > MAX_VIEW_QUERY_LENGTH) {
      throw new SqlGenerationError("TOO_LARGE", `The view's query would be longer than ${MAX_VIEW_QUERY_LENGTH} characters`, member);
    }
    return sql;
  }
}

/** The select list, refusing two columns of one name (a view cannot have them). */
class SelectList {
  private readonly items: string[] = [];
  private readonly memberByColumn = new Map<string, string>();

  constructor(
    private readonly dialect: SqlDialect,
    private readonly budget: LengthBudget,
  ) {}

  add(sql: string, column: string, member: string): void {
    const taken = this.memberByColumn.get(column);
    if (taken !== undefined) {
      throw new SqlGenerationError("DUPLICATE_COLUMN", `The column name '${column}' is already used by ${taken}`, member);
    }
    this.memberByColumn.set(column, member);
    this.items.push(this.budget.spend(`${sql} AS ${attributeTo(member, () => this.dialect.quoteIdentifier(column))}`, member));
  }

  sql(): string {
    return this.items.join(", ");
  }
}

interface MetricColumn {
  readonly sql: string;
  /** formulaName, or "count", or "<type>_<field>" such as "sum_price" and "countd_customer". */
  readonly column: string;
  /** Where a clash of column names is reported. */
  readonly member: string;
}

function metricColumn(metric: ViewMetric, member: string, source: SqlSource, dialect: SqlDialect): MetricColumn {
  if (metric.rollup !== undefined && typeof metric.rollup !== "boolean") {
    throw definitionError(`${member}.rollup`, "rollup must be true or false");
  }
  if (metric.formula !== undefined) {
    const column = requireFormulaName(metric, member);
    const formula = parseFormula(metric.formula, `${member}.formula`);
    checkTypes(formula, "aggregate", source, `${member}.formula`, { showPosition: true });
    return { sql: attributeTo(`${member}.formula`, () => expressionToSql(formula, "aggregate", source, dialect)), column, member: `${member}.formulaName` };
  }
  if (metric.formulaName !== undefined) {
    const column = requireFormulaName(metric, member);
    // A bare name at aggregate level is a custom metric of the source.
    checkTypes(nameNode(column), "aggregate", source, `${member}.formulaName`);
    const sql = attributeTo(`${member}.formulaName`, () => expressionToSql(nameNode(column), "aggregate", source, dialect));
    return { sql, column, member: `${member}.formulaName` };
  }

  const type = metric.type;
  if (!isSimpleMetricType(type)) {
    throw definitionError(`${member}.type`, `Metric type must be one of ${SIMPLE_METRIC_TYPES.join(", ")}, or the metric needs a formula; got ${describe(type)}`);
  }
  if (metric.field === undefined) {
    if (type !== "COUNT") throw definitionError(`${member}.field`, `A ${type} metric needs a field`);
    return { sql: expressionToSql(callNode("COUNT", { kind: "star", position: NOWHERE }), "aggregate", source, dialect), column: "count", member: `${member}.type` };
  }
  const fieldName = referencedName(metric.field, `${member}.field`);
  // The field first (does it exist, is it a field), then whether the aggregate takes its type.
  checkTypes(nameNode(fieldName), "row", source, `${member}.field.name`);
  checkTypes(callNode(type, nameNode(fieldName)), "aggregate", source, `${member}.type`);
  const sql = attributeTo(`${member}.field.name`, () => expressionToSql(callNode(type, nameNode(fieldName)), "aggregate", source, dialect));
  return { sql, column: `${type.toLowerCase()}_${fieldName}`, member: `${member}.field.name` };
}

/** The name in a `{name}` member, which a loosely validated body might lack. */
function referencedName(reference: FieldReference | undefined, member: string): string {
  const name: unknown = reference?.name;
  if (typeof name !== "string" || name === "") throw definitionError(`${member}.name`, "A field name is required");
  return name;
}

function requireFormulaName(metric: ViewMetric, member: string): string {
  const name = metric.formulaName;
  if (typeof name !== "string" || name === "") {
    throw definitionError(`${member}.formulaName`, "A formula metric needs a formulaName, which names its column");
  }
  return name;
}

function parseFormula(text: string, member: string): Expression {
  const parsed = parseExpression(text);
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    throw new SqlGenerationError("INVALID_EXPRESSION", `${message} (line ${line}, column ${column})`, member);
  }
  return parsed.ast;
}

function isSimpleMetricType(type: unknown): type is (typeof SIMPLE_METRIC_TYPES)[number] {
  return (SIMPLE_METRIC_TYPES as readonly unknown[]).includes(type);
}

// Filters

/**
 * The filter operations and the `value` each takes:
 *
 * | operation            | value                                   | SQL                                  |
 * |----------------------|-----------------------------------------|--------------------------------------|
 * | EQUALS, NOT_EQUALS   | a scalar                                | `f = v`, `f <> v`                    |
 * | GT, GTE, LT, LTE     | a scalar                                | `f > v`, `f >= v`, `f < v`, `f <= v` |
 * | IN, NOT_IN           | a non-empty array of scalars            | `f IN (v, ...)`, `f NOT IN (...)`    |
 * | BETWEEN              | an array of two scalars [low, high]     | `f BETWEEN low AND high` (inclusive) |
 * | IS_NULL, IS_NOT_NULL | omitted or null                         | `f IS NULL`, `f IS NOT NULL`         |
 * | CONTAINS             | text, matched literally, case-sensitive | `f LIKE '%text%' ESCAPE '!'`         |
 *
 * A scalar is text, a finite number or a boolean; times are ISO 8601 text. A null
 * scalar is refused: `f = NULL` is never true, so IS_NULL says what is meant.
 */
export const FILTER_OPERATIONS = [
  "EQUALS",
  "NOT_EQUALS",
  "GT",
  "GTE",
  "LT",
  "LTE",
  "IN",
  "NOT_IN",
  "BETWEEN",
  "IS_NULL",
  "IS_NOT_NULL",
  "CONTAINS",
] as const;

export type FilterOperation = (typeof FILTER_OPERATIONS)[number];

const COMPARISONS = { EQUALS: "=", NOT_EQUALS: "!=", GT: ">", GTE: ">=", LT: "<", LTE: "<=" } as const;

/** Escapes LIKE's wildcards; `!` rather than a backslash, which some servers also read as a string escape. */
const LIKE_ESCAPE = "!";

function filterCondition(filter: ViewFilter, member: string, source: SqlSource, dialect: SqlDialect): string {
  const operation = filter.operation;
  if (!(FILTER_OPERATIONS as readonly string[]).includes(operation)) {
    throw definitionError(`${member}.operation`, `Filter operation must be one of ${FILTER_OPERATIONS.join(", ")}; got ${describe(operation)}`);
  }
  const field = nameNode(referencedName(filter.path, `${member}.path`));
  const fieldMember = `${member}.path.name`;
  const valueMember = `${member}.value`;
  // Field problems are reported at the path, value problems at the value.
  checkTypes(field, "row", source, fieldMember);
  attributeTo(fieldMember, () => expressionToSql(field, "row", source, dialect));
  const condition = (expression: Expression): string => {
    // A condition is checked as what it is: the WHERE of the view's aggregates.
    checkTypes(callNode("COUNT", { kind: "star", position: NOWHERE }, expression), "aggregate", source, valueMember);
    return attributeTo(valueMember, () => expressionToSql(expression, "row", source, dialect));
  };
  const { value } = filter;

  switch (operation as FilterOperation) {
    case "EQUALS":
    case "NOT_EQUALS":
    case "GT":
    case "GTE":
    case "LT":
    case "LTE": {
      const operator = COMPARISONS[operation as keyof typeof COMPARISONS];
      return condition({ kind: "binary", operator, left: field, right: scalarNode(value, valueMember), position: NOWHERE });
    }
    case "IN":
    case "NOT_IN": {
      if (!Array.isArray(value) || value.length === 0) throw definitionError(valueMember, `${operation} needs a non-empty array of values`);
      const values = value.map((item: unknown, index) => scalarNode(item, `${valueMember}[${index}]`));
      return condition({ kind: "in", negated: operation === "NOT_IN", operand: field, values, position: NOWHERE });
    }
    case "BETWEEN": {
      if (!Array.isArray(value) || value.length !== 2) throw definitionError(valueMember, "BETWEEN needs an array of two values, [low, high]");
      const [low, high] = [scalarNode(value[0], `${valueMember}[0]`), scalarNode(value[1], `${valueMember}[1]`)];
      return condition({ kind: "between", negated: false, operand: field, low, high, position: NOWHERE });
    }
    case "IS_NULL":
    case "IS_NOT_NULL":
      if (value !== undefined && value !== null) throw definitionError(valueMember, `${operation} takes no value`);
      return condition({ kind: "isNull", negated: operation === "IS_NOT_NULL", operand: field, position: NOWHERE });
    case "CONTAINS": {
      if (typeof value !== "string") throw definitionError(valueMember, "CONTAINS needs a text value");
      const fieldType = source.types?.fields.get(field.name)?.dataType;
      if (fieldType !== undefined && fieldType !== "TEXT" && fieldType !== "ATTRIBUTE") {
        throw new SqlGenerationError("INVALID_EXPRESSION", `CONTAINS needs a text field; '${field.name}' is ${fieldType}`, fieldMember);
      }
      const pattern = `%${escapeLikeWildcards(value)}%`;
      const operand = expressionToSqlOperand(field, "row", source, dialect);
      const literal = attributeTo(valueMember, () => dialect.stringLiteral(pattern));
      return `${operand} LIKE ${literal} ESCAPE ${dialect.stringLiteral(LIKE_ESCAPE)}`;
    }
  }
}

function escapeLikeWildcards(text: string): string {
  return text.replace(/[%_!]/g, (character) => LIKE_ESCAPE + character);
}

// Building expression trees, so that filters and simple metrics are printed (and quoted)
// by the same code as formulas.

const NOWHERE: SourcePosition = { offset: 0, line: 1, column: 1 };

function nameNode(name: string): Expression & { kind: "name" } {
  return { kind: "name", name, position: NOWHERE };
}

function callNode(name: string, argument: CallArgument, filter: Expression | null = null): Expression {
  return { kind: "call", name, args: [argument], filter, position: NOWHERE };
}

/**
 * With the source's types, checks `expression` as the checker checks a custom metric
 * ("aggregate") or a derived field ("row"). The trees built here from a definition's members
 * have no place in any text, so only a formula's errors say where (line and column).
 */
function checkTypes(expression: Expression, level: ExpressionLevel, source: SqlSource, member: string, options: { showPosition?: boolean } = {}): void {
  if (source.types === undefined) return;
  const result = checkExpressionTree(expression, source.types, level);
  if (result.ok) return;
  const { message, line, column } = result.error;
  throw new SqlGenerationError("INVALID_EXPRESSION", options.showPosition ? `${message} (line ${line}, column ${column})` : message, member);
}

function scalarNode(value: unknown, member: string): Expression {
  switch (typeof value) {
    case "string":
      return { kind: "string", value, position: NOWHERE };
    case "boolean":
      return { kind: "boolean", value, position: NOWHERE };
    case "number": {
      if (!Number.isFinite(value)) throw new SqlGenerationError("INVALID_NUMBER", `${String(value)} is not a finite number`, member);
      // Negative numbers are a minus applied to a literal, as in the expression language.
      const literal: Expression = { kind: "number", text: String(Math.abs(value)), position: NOWHERE };
      return value < 0 ? { kind: "unary", operator: "-", operand: literal, position: NOWHERE } : literal;
    }
    default:
      throw definitionError(member, `A filter value must be text, a number or a boolean; got ${value === null ? "null" : typeof value}`);
  }
}

function definitionError(member: string, message: string): SqlGenerationError {
  return new SqlGenerationError("INVALID_DEFINITION", message, member);
}

/** A value in an error message: JSON for the unexpected, so nothing is hidden or mistaken. */
function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
