import { expect } from "vitest";
import { parseExpression, type Expression, type ExpressionLevel } from "../../../src/domain/expression";
import { expressionToSql, SqlGenerationError, type SqlDialect, type SqlErrorReason, type SqlSource, type SqlSourceField } from "../../../src/domain/sql";

/** Parses text that must be valid. */
export function parseOk(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`Expected ${JSON.stringify(text)} to parse: ${result.error.message}`);
  return result.ast;
}

export function native(column: string): SqlSourceField {
  return { kind: "NATIVE", column };
}

export function derived(expression: string): SqlSourceField {
  return { kind: "DERIVED", expression: parseOk(expression) };
}

/**
 * Flights: native fields whose columns are named differently from the fields (so the
 * tests see that columns, not field names, reach the SQL), a derived field built on
 * another derived field, and custom metrics that use each other.
 */
export function flightsSource(): SqlSource {
  return {
    table: { schema: "travel", name: "flights" },
    fields: new Map<string, SqlSourceField>([
      ["carrier", native("carrier_code")],
      ["price", native("price_eur")],
      ["seats", native("seat_count")],
      ["departure", native("departs_at")],
      ["arrival", native("arrives_at")],
      ["route", native("route")],
      ["price_per_seat", derived("price / seats")],
      ["discounted", derived("price_per_seat * 0.9")],
      ["label", derived("CONCAT(carrier, '-', route)")],
    ]),
    metrics: new Map<string, Expression>([
      ["Volume", parseOk("COUNT(*)")],
      ["Revenue", parseOk("SUM(price)")],
      ["Revenue per flight", parseOk("Revenue / Volume")],
    ]),
  };
}

/** The SQL of an expression over the flights source. */
export function sqlOf(text: string, dialect: SqlDialect, level: ExpressionLevel = "row", source: SqlSource = flightsSource()): string {
  return expressionToSql(parseOk(text), level, source, dialect);
}

/** Runs `work`, which must throw a SqlGenerationError for `reason`; returns it. */
export function expectSqlError(work: () => unknown, reason: SqlErrorReason): SqlGenerationError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(SqlGenerationError);
    expect((error as SqlGenerationError).reason).toBe(reason);
    return error as SqlGenerationError;
  }
  throw new Error(`Expected a SqlGenerationError (${reason}), but nothing was thrown`);
}
