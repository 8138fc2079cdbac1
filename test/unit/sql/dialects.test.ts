import { describe, expect, it } from "vitest";
import { FUNCTION_DEFINITIONS, TIME_UNITS, namesIn, type Expression, type FunctionCall, type TimeUnit } from "../../../src/domain/expression";
import { ansiDialect, expressionToSql, postgresqlDialect, type SqlDialect, type SqlSource } from "../../../src/domain/sql";
import { expectSqlError, native, parseOk, sqlOf } from "./helpers";
import { tokenizeSql } from "./sql-tokenizer";

const DIALECTS: readonly SqlDialect[] = [ansiDialect, postgresqlDialect];

describe.each(DIALECTS)("$name: quoting", (dialect) => {
  it("quotes every identifier, doubling embedded double quotes", () => {
    expect(dialect.quoteIdentifier("price")).toBe(`"price"`);
    expect(dialect.quoteIdentifier(`say "hi"`)).toBe(`"say ""hi"""`);
    expect(dialect.quoteIdentifier(`a'b\\c;--`)).toBe(`"a'b\\c;--"`);
  });

  it("refuses names that cannot be quoted faithfully", () => {
    expectSqlError(() => dialect.quoteIdentifier(""), "UNSAFE_TEXT");
    expect(expectSqlError(() => dialect.quoteIdentifier("a\u0000b"), "UNSAFE_TEXT").message).toMatch(/NUL/);
    expect(expectSqlError(() => dialect.quoteIdentifier("a\uD800b"), "UNSAFE_TEXT").message).toMatch(/surrogate/);
  });

  it("single-quotes text, doubling embedded quotes, and keeps unicode", () => {
    expect(dialect.stringLiteral("it's")).toBe(`'it''s'`);
    expect(dialect.stringLiteral("")).toBe(`''`);
    expect(dialect.stringLiteral(`"x" -- /* 𝄞 é`)).toBe(`'"x" -- /* 𝄞 é'`);
  });

  it("refuses NUL and lone surrogates in text", () => {
    expectSqlError(() => dialect.stringLiteral("a\u0000"), "UNSAFE_TEXT");
    expectSqlError(() => dialect.stringLiteral("\uDC00"), "UNSAFE_TEXT");
  });

  it("writes only finite numbers, and only plain decimal text", () => {
    expect(dialect.numberLiteral(42)).toBe("42");
    expect(dialect.numberLiteral(-1.5)).toBe("-1.5");
    expect(dialect.numberLiteral(-0)).toBe("0");
    expect(dialect.numberLiteral(1e21)).toBe("1e+21");
    expect(dialect.numberLiteral(5e-324)).toBe("5e-324");
    expect(dialect.numberLiteral("1.50")).toBe("1.50");
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expectSqlError(() => dialect.numberLiteral(bad), "INVALID_NUMBER");
    for (const bad of ["", "-1", "1 OR 1=1", "0x10", "1e", "Infinity", "1;"]) expectSqlError(() => dialect.numberLiteral(bad), "INVALID_NUMBER");
  });

  it("booleans and null", () => {
    expect([dialect.booleanLiteral(true), dialect.booleanLiteral(false), dialect.nullLiteral]).toEqual(["TRUE", "FALSE", "NULL"]);
  });

  it("refuses row limits that are not whole numbers of at least 0", () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) expectSqlError(() => dialect.limitClause(bad), "INVALID_NUMBER");
  });
});

describe("dialect differences", () => {
  it("backslashes: ordinary in ANSI, a U& literal in PostgreSQL", () => {
    expect(ansiDialect.stringLiteral(String.raw`\'`)).toBe(String.raw`'\'''`);
    expect(postgresqlDialect.stringLiteral(String.raw`\'`)).toBe(String.raw`U&'\\'''`);
    expect(postgresqlDialect.stringLiteral(String.raw`C:\dir\\x`)).toBe(String.raw`U&'C:\\dir\\\\x'`);
  });

  it("PostgreSQL refuses names longer than 63 bytes, which it would silently cut", () => {
    const euro63Bytes = "€".repeat(21);
    expect(postgresqlDialect.quoteIdentifier(euro63Bytes)).toBe(`"${euro63Bytes}"`);
    expect(expectSqlError(() => postgresqlDialect.quoteIdentifier(`${euro63Bytes}x`), "UNSAFE_TEXT").message).toMatch(/63 bytes/);
    expect(ansiDialect.quoteIdentifier("x".repeat(300))).toHaveLength(302);
  });

  it("LIMIT", () => {
    expect(ansiDialect.limitClause(10)).toBe("FETCH FIRST 10 ROWS ONLY");
    expect(postgresqlDialect.limitClause(0)).toBe("LIMIT 0");
  });
});

/** Every name a function's catalogue example uses, as a native column of the same name. */
function exampleSource(): SqlSource {
  const names = FUNCTION_DEFINITIONS.flatMap((definition) => namesIn(parseOk(definition.syntax)));
  return { table: { name: "t" }, fields: new Map(names.map((name) => [name, native(name)])), metrics: new Map() };
}

/** The function's catalogue example, with the unit replaced when it takes one. */
function exampleCall(syntax: string, unit: TimeUnit | null): Expression {
  const call = parseOk(syntax) as FunctionCall;
  if (unit === null) return call;
  return { ...call, args: call.args.map((argument) => (argument.kind === "timeUnit" ? { ...argument, unit } : argument)) };
}

const REFUSED_FUNCTIONS: Record<string, readonly string[]> = {
  ANSI: ["FIRST_VALUE", "LAST_VALUE", "LPAD", "RPAD", "TEXT_TO_NUM", "TIME_DIFF", "TIME_TO_UNIX_TIME", "TRUNCATE_TIME"],
  PostgreSQL: ["FIRST_VALUE", "LAST_VALUE"],
};

const REFUSED_UNITS: Record<string, readonly string[]> = {
  ANSI: ["EXTRACT(WEEK)"],
  PostgreSQL: [],
};

describe.each(DIALECTS)("$name: every function of the expression language", (dialect) => {
  const source = exampleSource();

  it("is written, or refused with UNSUPPORTED_FUNCTION; exactly the documented ones are refused", () => {
    const refusedFunctions: string[] = [];
    const refusedUnits: string[] = [];
    for (const definition of FUNCTION_DEFINITIONS) {
      const takesUnit = definition.arguments[0]?.types.includes("TIME_UNIT") === true;
      const level = definition.level === "aggregate" ? "aggregate" : "row";
      for (const unit of takesUnit ? TIME_UNITS : [null]) {
        try {
          const sql = expressionToSql(exampleCall(definition.syntax, unit), level, source, dialect);
          expect(() => tokenizeSql(sql), `${definition.name} ${unit ?? ""}: ${sql}`).not.toThrow();
        } catch (error) {
          expect((error as { reason?: string }).reason, `${definition.name} ${unit ?? ""}: ${String(error)}`).toBe("UNSUPPORTED_FUNCTION");
          if (dialect.functions.has(definition.name)) refusedUnits.push(`${definition.name}(${unit})`);
          else if (!refusedFunctions.includes(definition.name)) refusedFunctions.push(definition.name);
        }
      }
    }
    expect(refusedFunctions.sort()).toEqual(REFUSED_FUNCTIONS[dialect.name]);
    expect(refusedUnits).toEqual(REFUSED_UNITS[dialect.name]);
  });

  it("a refusal names the function and the dialect", () => {
    const error = expectSqlError(() => expressionToSql(parseOk("FIRST_VALUE(price)"), "aggregate", source, dialect), "UNSUPPORTED_FUNCTION");
    expect(error.message).toBe(`Function FIRST_VALUE is not supported in ${dialect.name} SQL`);
  });
});

/** Table-driven examples: expression over the flights source -> SQL. */
const ANSI_EXAMPLES: readonly [string, string][] = [
  ["COALESCE(route, carrier, 'none')", `COALESCE("route", "carrier_code", 'none')`],
  ["POWER(price, 2) + MOD(seats, 3)", `POWER("price_eur", 2) + MOD("seat_count", 3)`],
  ["SQRT(price) + LN(price) + LOG10(price) + EXP(price)", `SQRT("price_eur") + LN("price_eur") + LOG10("price_eur") + EXP("price_eur")`],
  ["CEIL(price) + FLOOR(price) + ROUND(price, 2) + SIGN(price)", `CEIL("price_eur") + FLOOR("price_eur") + ROUND("price_eur", 2) + SIGN("price_eur")`],
  ["COT(price) * PI()", `(1 / TAN("price_eur")) * ACOS(-1)`],
  ["DEGREES(price + 1)", `(("price_eur" + 1) * 180 / ACOS(-1))`],
  ["RADIANS(price)", `("price_eur" * ACOS(-1) / 180)`],
  ["LENGTH(CONCAT(carrier, route))", `CHAR_LENGTH(("carrier_code" || "route"))`],
  ["LOCATE('-', route)", `POSITION('-' IN "route")`],
  [
    "LOCATE('-', route, seats + 1)",
    `CASE WHEN POSITION('-' IN SUBSTRING("route" FROM "seat_count" + 1)) = 0 THEN 0 ELSE POSITION('-' IN SUBSTRING("route" FROM "seat_count" + 1)) + ("seat_count" + 1) - 1 END`,
  ],
  ["LTRIM(UPPER(route))", `TRIM(LEADING ' ' FROM UPPER("route"))`],
  ["RTRIM(LOWER(route))", `TRIM(TRAILING ' ' FROM LOWER("route"))`],
  ["SUBSTRING(route, 2)", `SUBSTRING("route" FROM 2)`],
  ["SUBSTRING(route, 2, 3)", `SUBSTRING("route" FROM 2 FOR 3)`],
  ["NUM_TO_TEXT(price)", `CAST("price_eur" AS VARCHAR(100))`],
  ["EXTRACT(YEAR FROM departure)", `EXTRACT(YEAR FROM "departs_at")`],
  ["EXTRACT(QUARTER FROM departure)", `CAST(FLOOR((EXTRACT(MONTH FROM "departs_at") + 2) / 3) AS INTEGER)`],
  ["EXTRACT(SECOND FROM departure)", `FLOOR(EXTRACT(SECOND FROM "departs_at"))`],
  ["EXTRACT(MILLISECOND FROM departure)", `MOD(CAST(FLOOR(EXTRACT(SECOND FROM "departs_at") * 1000) AS INTEGER), 1000)`],
  ["NOW()", "CURRENT_TIMESTAMP"],
  ["TIME_ADD(WEEK, -2, departure)", `("departs_at" + (-2) * INTERVAL '7' DAY)`],
  ["TIME_ADD(MILLISECOND, seats + 1, departure)", `("departs_at" + ("seat_count" + 1) * INTERVAL '0.001' SECOND)`],
  ["UNIX_TIME_TO_TIME(seats)", `(TIMESTAMP '1970-01-01 00:00:00' + "seat_count" * INTERVAL '1' SECOND)`],
];

const POSTGRESQL_EXAMPLES: readonly [string, string][] = [
  ["MOD(seats, 3) + MOD(price, 1.5)", `MOD(CAST("seat_count" AS NUMERIC), 3) + MOD(CAST("price_eur" AS NUMERIC), 1.5)`],
  ["ROUND(price) + ROUND(price, 2) + ROUND(price, seats)", `ROUND("price_eur") + ROUND(CAST("price_eur" AS NUMERIC), 2) + ROUND(CAST("price_eur" AS NUMERIC), CAST("seat_count" AS INTEGER))`],
  ["COT(price) * PI() + DEGREES(price) + RADIANS(price)", `COT("price_eur") * PI() + DEGREES("price_eur") + RADIANS("price_eur")`],
  ["LENGTH(CONCAT(carrier, seats))", `LENGTH(CONCAT("carrier_code", "seat_count"))`],
  ["LOCATE('-', route)", `STRPOS("route", '-')`],
  ["LOCATE('-', route, 2)", `CASE WHEN STRPOS(SUBSTRING("route" FROM 2), '-') = 0 THEN 0 ELSE STRPOS(SUBSTRING("route" FROM 2), '-') + 2 - 1 END`],
  ["SUBSTRING(route, seats, 3)", `SUBSTRING("route" FROM CAST("seat_count" AS INTEGER) FOR 3)`],
  ["LTRIM(route)", `LTRIM("route")`],
  [
    "TEXT_TO_NUM(route)",
    `CASE WHEN "route" ~ '^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$' THEN CAST("route" AS NUMERIC) END`,
  ],
  ["NUM_TO_TEXT(price)", `CAST("price_eur" AS TEXT)`],
  ["EXTRACT(WEEK FROM departure) + EXTRACT(QUARTER FROM departure)", `EXTRACT(WEEK FROM "departs_at") + EXTRACT(QUARTER FROM "departs_at")`],
  ["TRUNCATE_TIME(MONTH, departure)", `DATE_TRUNC('month', "departs_at")`],
  ["TRUNCATE_TIME(MILLISECOND, departure)", `DATE_TRUNC('milliseconds', "departs_at")`],
  ["TIME_TO_UNIX_TIME(departure)", `CAST(FLOOR(EXTRACT(EPOCH FROM "departs_at")) AS BIGINT)`],
  [
    "TIME_DIFF(HOUR, departure, arrival)",
    `CAST(TRUNC((EXTRACT(EPOCH FROM "arrives_at") - EXTRACT(EPOCH FROM "departs_at")) / 3600) AS BIGINT)`,
  ],
  [
    "TIME_DIFF(MONTH, departure, arrival)",
    `CAST((EXTRACT(YEAR FROM AGE("arrives_at", "departs_at")) * 12 + EXTRACT(MONTH FROM AGE("arrives_at", "departs_at"))) AS BIGINT)`,
  ],
  ["TIME_DIFF(YEAR, departure, arrival)", `CAST(EXTRACT(YEAR FROM AGE("arrives_at", "departs_at")) AS BIGINT)`],
  ["TIME_ADD(QUARTER, 1, departure)", `("departs_at" + 1 * INTERVAL '3' MONTH)`],
];

describe("function examples", () => {
  it.each(ANSI_EXAMPLES)("ANSI: %s", (text, sql) => {
    expect(sqlOf(text, ansiDialect)).toBe(sql);
  });

  it.each(POSTGRESQL_EXAMPLES)("PostgreSQL: %s", (text, sql) => {
    expect(sqlOf(text, postgresqlDialect)).toBe(sql);
  });

  it("PostgreSQL: LPAD and RPAD take a 4-byte integer length", () => {
    expect(sqlOf("LPAD(route, 6)", postgresqlDialect)).toBe(`LPAD("route", 6)`);
    expect(sqlOf("RPAD(route, seats, '.')", postgresqlDialect)).toBe(`RPAD("route", CAST("seat_count" AS INTEGER), '.')`);
  });

  it("ANSI refuses what ISO SQL cannot say, naming the unit when only the unit is the problem", () => {
    expect(expectSqlError(() => sqlOf("EXTRACT(WEEK FROM departure)", ansiDialect), "UNSUPPORTED_FUNCTION").message).toBe(
      "EXTRACT with unit WEEK is not supported in ANSI SQL",
    );
    expectSqlError(() => sqlOf("TRUNCATE_TIME(DAY, departure)", ansiDialect), "UNSUPPORTED_FUNCTION");
  });
});
