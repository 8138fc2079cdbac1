import type { TimeUnit } from "../expression";
import { SqlGenerationError } from "./errors";

/**
 * What differs between SQL databases, as one small interface. Each dialect lives in its
 * own file (ansi.ts, postgresql.ts) and is a plain object: adding one is adding a file.
 */
export interface SqlDialect {
  /** Shown in error messages, e.g. "PostgreSQL". */
  readonly name: string;

  /** A table, schema, column or alias name, always quoted. Throws UNSAFE_TEXT for a name the dialect cannot hold. */
  quoteIdentifier(name: string): string;
  /** A text value, always quoted. Throws UNSAFE_TEXT for text that cannot be sent. */
  stringLiteral(value: string): string;
  /** A finite number or decimal text. A negative number comes back with its leading `-`. */
  numberLiteral(value: number | string): string;
  booleanLiteral(value: boolean): string;
  readonly nullLiteral: string;

  /**
   * The expression language's `/`, whose result is always a NUMBER. The result must bind at
   * least as tightly as `*` and `/` do.
   */
  divide(dividend: SqlArgument, divisor: SqlArgument): string;

  /**
   * How `AGG(x) WHERE condition` is written:
   * FILTER_CLAUSE: `AGG(x) FILTER (WHERE condition)` (ISO SQL feature T612);
   * CASE_INSIDE: `AGG(CASE WHEN condition THEN x END)`, which every database understands
   * because aggregates skip the NULLs that CASE gives for the other rows.
   */
  readonly aggregateFilter: "FILTER_CLAUSE" | "CASE_INSIDE";

  /**
   * How each function of the expression language is written, by its upper-case name
   * (see src/domain/expression/functions.ts). A function missing here is refused with
   * UNSUPPORTED_FUNCTION rather than guessed at.
   */
  readonly functions: ReadonlyMap<string, FunctionRenderer>;

  /** The clause, placed at the end of a query, that keeps only its first `rowCount` rows. */
  limitClause(rowCount: number): string;
}

/** One argument of a function call, already in SQL. */
export interface SqlArgument {
  /** As written inside a function's parentheses or a CASE. */
  readonly sql: string;
  /** The same, parenthesised unless it is a single term: safe beside any operator. */
  readonly operand: string;
}

export interface SqlFunctionCall {
  /** The expression language's upper-case name, e.g. "COUNTD". */
  readonly name: string;
  /** The value arguments in order; the time unit and COUNT's `*` are not among them. */
  readonly args: readonly SqlArgument[];
  /** The unit of EXTRACT, TIME_ADD, TIME_DIFF and TRUNCATE_TIME; null for other functions. */
  readonly unit: TimeUnit | null;
  /** True for `COUNT(*)`. */
  readonly star: boolean;
  readonly dialect: SqlDialect;
}

/**
 * Writes one call in a dialect. The result must be a single term (a call, `CASE ... END`,
 * or a parenthesised expression), because the printer places it beside operators as it
 * is. An aggregate must be a single aggregate call, so that a FILTER clause can follow it.
 */
export type FunctionRenderer = (call: SqlFunctionCall) => string;

/** Stops generation for a function the dialect cannot express faithfully; `why` completes the message. */
export function refuseFunction(call: SqlFunctionCall, why = ""): never {
  throw new SqlGenerationError("UNSUPPORTED_FUNCTION", `Function ${call.name} is not supported in ${call.dialect.name} SQL${why === "" ? "" : `: ${why}`}`);
}

/** The SQL for the call's time unit from `table`; a unit missing from the table is refused. */
export function unitIn(call: SqlFunctionCall, table: Partial<Readonly<Record<TimeUnit, string>>>): string {
  const { unit } = call;
  if (unit === null) {
    throw new SqlGenerationError("INVALID_EXPRESSION", `Function ${call.name} needs a time unit as its first argument`);
  }
  // hasOwn: a unit arriving from a hand-built tree must not find Object.prototype members.
  const sql = Object.hasOwn(table, unit) ? table[unit] : undefined;
  if (sql === undefined) {
    throw new SqlGenerationError("UNSUPPORTED_FUNCTION", `${call.name} with unit ${String(unit)} is not supported in ${call.dialect.name} SQL`);
  }
  return sql;
}

/** The argument at `index`, which the printer has checked exists. */
export function argumentAt(call: SqlFunctionCall, index: number): SqlArgument {
  const argument = call.args[index];
  if (argument === undefined) {
    throw new SqlGenerationError("INVALID_EXPRESSION", `Function ${call.name} is missing argument ${index + 1}`);
  }
  return argument;
}

/** Every argument as written inside parentheses, comma-separated. */
export function argumentList(call: SqlFunctionCall): string {
  return call.args.map((argument) => argument.sql).join(", ");
}
