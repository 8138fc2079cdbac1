import { describe, expect, it } from "vitest";
import type { Expression, FunctionCall } from "../../../src/domain/expression";
import {
  ansiDialect,
  expressionToSql,
  expressionToSqlOperand,
  MAX_EXPRESSION_SQL_LENGTH,
  postgresqlDialect,
  type SqlSource,
} from "../../../src/domain/sql";
import { derived, expectSqlError, flightsSource, native, parseOk, sqlOf } from "./helpers";

const ansi = (text: string, level: "row" | "aggregate" = "row") => sqlOf(text, ansiDialect, level);
const postgres = (text: string, level: "row" | "aggregate" = "row") => sqlOf(text, postgresqlDialect, level);

describe("literals", () => {
  it("numbers keep their text; strings are single-quoted with quotes doubled", () => {
    expect(ansi("1e3 + .5 + 2. + 007")).toBe("1e3 + .5 + 2. + 007");
    expect(ansi("CONCAT(route, 'it''s')")).toBe(`("route" || 'it''s')`);
    expect(postgres("CONCAT(route, 'it''s')")).toBe(`CONCAT("route", 'it''s')`);
  });

  it("booleans and null", () => {
    expect(ansi("CASE WHEN TRUE THEN NULL ELSE price END")).toBe(`CASE WHEN TRUE THEN NULL ELSE "price_eur" END`);
    expect(ansi("NOT FALSE")).toBe("NOT FALSE");
  });

  it("PostgreSQL writes text with a backslash as a U& literal with the backslash doubled", () => {
    expect(postgres(String.raw`CONCAT(route, 'a\b')`)).toBe(String.raw`CONCAT("route", U&'a\\b')`);
    expect(ansi(String.raw`CONCAT(route, 'a\b')`)).toBe(String.raw`("route" || 'a\b')`);
  });
});

describe("names", () => {
  it("a native field is its quoted column", () => {
    expect(ansi("carrier")).toBe(`"carrier_code"`);
  });

  it("a derived field is expanded inline, recursively, parenthesised only where needed", () => {
    expect(ansi("price_per_seat")).toBe(`CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0)`);
    expect(ansi("discounted")).toBe(`CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0) * 0.9`);
    expect(postgres("discounted + 1")).toBe(`CAST("price_eur" AS NUMERIC) / NULLIF("seat_count", 0) * 0.9 + 1`);
    const source = withFields(["total", derived("price + seats")]);
    expect(expressionToSql(parseOk("total * 2"), "row", source, ansiDialect)).toBe(`("price_eur" + "seat_count") * 2`);
    expect(expressionToSql(parseOk("2 - total"), "row", source, ansiDialect)).toBe(`2 - ("price_eur" + "seat_count")`);
  });

  it("at aggregate level a name is a custom metric, expanded inline, and fields inside aggregates are columns", () => {
    expect(ansi('"Revenue per flight"', "aggregate")).toBe(`CAST(SUM("price_eur") AS DOUBLE PRECISION) / NULLIF(COUNT(*), 0)`);
    expect(ansi("Revenue - SUM(seats)", "aggregate")).toBe(`SUM("price_eur") - SUM("seat_count")`);
  });

  it("unknown names are refused", () => {
    expect(expectSqlError(() => ansi("prise"), "UNKNOWN_NAME").message).toBe("Field 'prise' not found");
    expect(expectSqlError(() => ansi("Revenu", "aggregate"), "UNKNOWN_NAME").message).toBe("Custom metric 'Revenu' not found");
    expect(expectSqlError(() => ansi("price", "aggregate"), "INVALID_EXPRESSION").message).toMatch(/Field 'price' must be aggregated/);
    expect(expectSqlError(() => ansi("Volume"), "UNKNOWN_NAME").message).toBe("Field 'Volume' not found");
  });

  it("an error inside a derived field or metric names the innermost one", () => {
    const source = withFields(["inner", derived("nothing + 1")], ["outer", derived("inner * 2")]);
    const error = expectSqlError(() => expressionToSql(parseOk("outer"), "row", source, ansiDialect), "UNKNOWN_NAME");
    expect(error.message).toBe("Field 'nothing' not found (in derived field 'inner')");
  });

  it("cycles of derived fields and of metrics are refused", () => {
    const fields = withFields(["a", derived("b + 1")], ["b", derived("a * 2")]);
    expect(expectSqlError(() => expressionToSql(parseOk("a"), "row", fields, ansiDialect), "CIRCULAR_REFERENCE").message).toBe(
      "Circular reference: derived field 'a' -> derived field 'b' -> derived field 'a'",
    );
    const metrics: SqlSource = { ...flightsSource(), metrics: new Map([["m", parseOk("m + 1")]]) };
    expectSqlError(() => expressionToSql(parseOk("m"), "aggregate", metrics, ansiDialect), "CIRCULAR_REFERENCE");
  });

  it("a field used many times is expanded once, and runaway expansion is refused", () => {
    // Each level doubles the text: 40 levels would be a trillion characters.
    const fields: [string, ReturnType<typeof derived>][] = [["level0", native("x")]];
    for (let i = 1; i <= 40; i++) fields.push([`level${i}`, derived(`level${i - 1} + level${i - 1}`)]);
    const source = withFields(...fields);
    expect(expressionToSql(parseOk("level3"), "row", source, ansiDialect)).toBe(`"x" + "x" + ("x" + "x") + ("x" + "x" + ("x" + "x"))`);
    const error = expectSqlError(() => expressionToSql(parseOk("level40"), "row", source, ansiDialect), "TOO_LARGE");
    expect(error.message).toContain(String(MAX_EXPRESSION_SQL_LENGTH));
  });
});

describe("operators and precedence", () => {
  it("writes != as <>, and parenthesises only what the tree needs", () => {
    expect(ansi("price != 1")).toBe(`"price_eur" <> 1`);
    expect(ansi("(price + 1) * 2")).toBe(`("price_eur" + 1) * 2`);
    expect(ansi("price + 1 * 2")).toBe(`"price_eur" + 1 * 2`);
    expect(ansi("price - (seats - 1)")).toBe(`"price_eur" - ("seat_count" - 1)`);
    expect(ansi("price - seats - 1")).toBe(`"price_eur" - "seat_count" - 1`);
    expect(ansi("(price > 1 OR seats > 2) AND route = 'x'")).toBe(`("price_eur" > 1 OR "seat_count" > 2) AND "route" = 'x'`);
    expect(ansi("price > 1 OR seats > 2 AND route = 'x'")).toBe(`"price_eur" > 1 OR "seat_count" > 2 AND "route" = 'x'`);
    expect(ansi("NOT (price > 1 AND seats > 2)")).toBe(`NOT ("price_eur" > 1 AND "seat_count" > 2)`);
  });

  it("comparisons never take a comparison as operand", () => {
    const comparisonOfComparisons: Expression = {
      kind: "binary",
      operator: "=",
      left: parseOk("price > 1"),
      right: parseOk("seats IS NULL"),
      position: { offset: 0, line: 1, column: 1 },
    };
    expect(expressionToSql(comparisonOfComparisons, "row", flightsSource(), ansiDialect)).toBe(`("price_eur" > 1) = ("seat_count" IS NULL)`);
    expect(ansi("(price > 1) IS NULL")).toBe(`("price_eur" > 1) IS NULL`);
  });

  it("unary minus never writes -- (a comment in SQL)", () => {
    expect(ansi("-price")).toBe(`-"price_eur"`);
    expect(ansi("- -price")).toBe(`-(-"price_eur")`);
    expect(ansi("-(price + 1)")).toBe(`-("price_eur" + 1)`);
    expect(ansi("price - -1")).toBe(`"price_eur" - -1`);
  });

  it("division is a dialect's: never integer division, NULL for a zero divisor", () => {
    expect(ansi("price / seats / 2")).toBe(`CAST(CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0) AS DOUBLE PRECISION) / NULLIF(2, 0)`);
    expect(postgres("price * (seats / 2)")).toBe(`"price_eur" * (CAST("seat_count" AS NUMERIC) / NULLIF(2, 0))`);
    expect(postgres("(price + 1) / (seats - 1)")).toBe(`CAST("price_eur" + 1 AS NUMERIC) / NULLIF("seat_count" - 1, 0)`);
  });

  it("IN, NOT IN, BETWEEN and IS [NOT] NULL", () => {
    expect(ansi("carrier IN ('LH', 'AF')")).toBe(`"carrier_code" IN ('LH', 'AF')`);
    expect(ansi("carrier NOT IN ('LH')")).toBe(`"carrier_code" NOT IN ('LH')`);
    expect(ansi("price + 1 BETWEEN 10 AND seats * 2")).toBe(`"price_eur" + 1 BETWEEN 10 AND "seat_count" * 2`);
    expect(ansi("price NOT BETWEEN -1 AND 1")).toBe(`"price_eur" NOT BETWEEN -1 AND 1`);
    expect(ansi("route IS NULL OR route IS NOT NULL")).toBe(`"route" IS NULL OR "route" IS NOT NULL`);
  });

  it("CASE, searched and simple", () => {
    expect(ansi("CASE WHEN price > 100 THEN 'high' WHEN price > 10 THEN 'mid' ELSE 'low' END")).toBe(
      `CASE WHEN "price_eur" > 100 THEN 'high' WHEN "price_eur" > 10 THEN 'mid' ELSE 'low' END`,
    );
    expect(ansi("CASE carrier WHEN 'LH' THEN 1 END + 1")).toBe(`CASE "carrier_code" WHEN 'LH' THEN 1 END + 1`);
  });
});

describe("aggregates", () => {
  it("COUNT(*), COUNTD and the plain aggregates", () => {
    expect(ansi("COUNT(*) + COUNT(route) + COUNTD(carrier)", "aggregate")).toBe(`COUNT(*) + COUNT("route") + COUNT(DISTINCT "carrier_code")`);
    expect(ansi("AVG(price) + MIN(price) + MAX(price) + STDDEV_SAMP(price) + VAR_POP(seats)", "aggregate")).toBe(
      `AVG("price_eur") + MIN("price_eur") + MAX("price_eur") + STDDEV_SAMP("price_eur") + VAR_POP("seat_count")`,
    );
    expect(postgres("MEDIAN(price)", "aggregate")).toBe(`PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY "price_eur")`);
  });

  it("a WHERE filter: CASE inside the aggregate in ANSI, a FILTER clause in PostgreSQL", () => {
    const text = "SUM(price) WHERE carrier IN ('LH', 'AF') AND seats > 2";
    expect(ansi(text, "aggregate")).toBe(`SUM(CASE WHEN "carrier_code" IN ('LH', 'AF') AND "seat_count" > 2 THEN "price_eur" END)`);
    expect(postgres(text, "aggregate")).toBe(`SUM("price_eur") FILTER (WHERE "carrier_code" IN ('LH', 'AF') AND "seat_count" > 2)`);
    expect(ansi("COUNT(*) WHERE seats > 2", "aggregate")).toBe(`COUNT(CASE WHEN "seat_count" > 2 THEN 1 END)`);
    expect(ansi("COUNTD(route) WHERE seats > 2", "aggregate")).toBe(`COUNT(DISTINCT CASE WHEN "seat_count" > 2 THEN "route" END)`);
    expect(ansi("MEDIAN(price) WHERE seats > 2", "aggregate")).toBe(
      `PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY CASE WHEN "seat_count" > 2 THEN "price_eur" END)`,
    );
    expect(postgres("(COUNT(*) WHERE seats > 2) / Volume", "aggregate")).toBe(
      `CAST(COUNT(*) FILTER (WHERE "seat_count" > 2) AS NUMERIC) / NULLIF(COUNT(*), 0)`,
    );
  });

  it("misplaced aggregates and filters are refused", () => {
    expectSqlError(() => ansi("SUM(price)"), "INVALID_EXPRESSION");
    expectSqlError(() => ansi("SUM(MAX(price))", "aggregate"), "INVALID_EXPRESSION");
    expectSqlError(() => ansi("SUM(price) WHERE COUNT(*) > 1", "aggregate"), "INVALID_EXPRESSION");
    const filteredRound: Expression = { ...(parseOk("ROUND(price)") as FunctionCall), filter: parseOk("price > 1") };
    expectSqlError(() => expressionToSql(filteredRound, "row", flightsSource(), ansiDialect), "INVALID_EXPRESSION");
    expectSqlError(() => ansi("NO_SUCH_FUNCTION(price)"), "INVALID_EXPRESSION");
  });

  it("argument shapes are checked even for trees that were never checked", () => {
    expectSqlError(() => ansi("ROUND()"), "INVALID_EXPRESSION");
    expectSqlError(() => ansi("SUM(*)", "aggregate"), "INVALID_EXPRESSION");
    const extract = parseOk("EXTRACT(YEAR FROM departure)") as FunctionCall;
    const [unit, time] = extract.args;
    const withoutUnit: Expression = { ...extract, args: [time, time] };
    expectSqlError(() => expressionToSql(withoutUnit, "row", flightsSource(), ansiDialect), "INVALID_EXPRESSION");
    const roundWithUnit: Expression = { ...(parseOk("ROUND(price)") as FunctionCall), args: [unit] };
    expectSqlError(() => expressionToSql(roundWithUnit, "row", flightsSource(), ansiDialect), "INVALID_EXPRESSION");
  });
});

describe("operand form", () => {
  it("parenthesises anything that is not a single term", () => {
    expect(expressionToSqlOperand(parseOk("price + 1"), "row", flightsSource(), ansiDialect)).toBe(`("price_eur" + 1)`);
    expect(expressionToSqlOperand(parseOk("LOWER(route)"), "row", flightsSource(), ansiDialect)).toBe(`LOWER("route")`);
  });
});

function withFields(...fields: [string, ReturnType<typeof native>][]): SqlSource {
  return { table: { name: "t" }, fields: new Map([...flightsSource().fields, ...fields]), metrics: new Map() };
}
