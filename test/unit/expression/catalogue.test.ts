import { describe, expect, it } from "vitest";
import {
  checkExpression,
  expressionSyntaxCatalogue,
  FUNCTION_DEFINITIONS,
  lookupFunction,
  parseExpression,
  type FunctionDefinition,
} from "../../../src/domain/expression";
import { parseOk, sampleContext } from "./helpers";

/** Every function the product notes name. */
const REQUIRED_FUNCTIONS = [
  ...["SUM", "AVG", "COUNT", "COUNTD", "MIN", "MAX", "MEDIAN", "FIRST_VALUE", "LAST_VALUE", "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP"],
  "COALESCE",
  ...["POWER", "MOD", "SQRT", "LN", "LOG10", "EXP", "CEIL", "FLOOR", "ROUND", "SIGN", "SIN", "COS", "TAN", "COT", "ASIN", "ACOS", "ATAN", "PI"],
  ...["DEGREES", "RADIANS"],
  ...["CONCAT", "LENGTH", "LOCATE", "LOWER", "UPPER", "LPAD", "RPAD", "LTRIM", "RTRIM", "SUBSTRING", "TEXT_TO_NUM", "NUM_TO_TEXT"],
  ...["EXTRACT", "NOW", "TIME_ADD", "TIME_DIFF", "TRUNCATE_TIME", "TIME_TO_UNIX_TIME", "UNIX_TIME_TO_TIME"],
];

/** A call with the minimum number of arguments, units where the registry wants them. */
function minimalCall(definition: FunctionDefinition, spelling: string): string {
  const args = definition.arguments
    .filter((parameter) => parameter.optional !== true)
    .map((parameter) => (parameter.types.includes("TIME_UNIT") ? "day" : "x"));
  return `${spelling}(${args.join(", ")})`;
}

describe("function registry", () => {
  it("holds every function of the product notes, once", () => {
    const names = FUNCTION_DEFINITIONS.map((definition) => definition.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...REQUIRED_FUNCTIONS].sort());
  });

  it("has well-formed signatures", () => {
    for (const definition of FUNCTION_DEFINITIONS) {
      const parameters = definition.arguments;
      expect(definition.description.length, definition.name).toBeGreaterThan(0);
      expect(definition.returns.description.length, definition.name).toBeGreaterThan(0);
      parameters.forEach((parameter, index) => {
        expect(parameter.types.length, `${definition.name}.${parameter.name}`).toBeGreaterThan(0);
        if (parameter.variadic === true) expect(index, `${definition.name}: variadic must be last`).toBe(parameters.length - 1);
        if (parameter.optional === true) {
          expect(parameters.slice(index).every((later) => later.optional === true), `${definition.name}: optional must trail`).toBe(true);
        }
        if (parameter.types.includes("TIME_UNIT")) expect(index, `${definition.name}: unit comes first`).toBe(0);
      });
    }
  });

  it("is what the parser knows: every name parses as a call, in any case", () => {
    for (const definition of FUNCTION_DEFINITIONS) {
      for (const spelling of [definition.name, definition.name.toLowerCase()]) {
        const result = parseExpression(minimalCall(definition, spelling));
        expect(result.ok, spelling).toBe(true);
        if (result.ok) expect(result.ast).toMatchObject({ kind: "call", name: definition.name });
        expect(lookupFunction(spelling)).toBe(definition);
      }
    }
  });

  it("has syntax examples that parse and check at the function's level", () => {
    const context = sampleContext();
    for (const definition of FUNCTION_DEFINITIONS) {
      const level = definition.level === "aggregate" ? "aggregate" : "row";
      const result = checkExpression(definition.syntax, context, level);
      expect(result, definition.syntax).toMatchObject({ ok: true });
      expect(parseOk(definition.syntax)).toMatchObject({ kind: "call", name: definition.name });
    }
  });
});

describe("expressionSyntaxCatalogue", () => {
  const catalogue = expressionSyntaxCatalogue();

  it("lists every registry function with its signature", () => {
    expect(catalogue.functions.map((entry) => entry.name)).toEqual(FUNCTION_DEFINITIONS.map((definition) => definition.name));
    expect(catalogue.functions.find((entry) => entry.name === "ROUND")).toEqual({
      name: "ROUND",
      category: "NUMERIC",
      level: "both",
      arguments: [
        { name: "value", types: ["INTEGER", "NUMBER"] },
        { name: "decimals", types: ["INTEGER"], optional: true },
      ],
      returnType: "same as argument 'value'",
      description: "Value rounded to the given number of decimal places (default 0).",
      syntax: "ROUND(price, 2)",
    });
    expect(catalogue.functions.find((entry) => entry.name === "COUNT")).toMatchObject({ category: "AGGREGATE", level: "aggregate", returnType: "INTEGER" });
    expect(catalogue.functions.find((entry) => entry.name === "CONCAT")?.arguments).toEqual([
      { name: "value", types: ["INTEGER", "NUMBER", "TEXT", "ATTRIBUTE", "TIME"], variadic: true },
    ]);
    expect(catalogue.functions.find((entry) => entry.name === "EXTRACT")).toMatchObject({
      arguments: [{ name: "unit", types: ["TIME_UNIT"] }, { name: "time", types: ["TIME"] }],
      syntax: "EXTRACT(YEAR FROM order_date)",
    });
  });

  it("lists operators, keywords and time units", () => {
    expect(catalogue.operators.map((operator) => operator.operator)).toEqual(
      expect.arrayContaining(["OR", "AND", "NOT", "=", "!=", "<", "<=", ">", ">=", "IN", "NOT IN", "BETWEEN", "IS NULL", "+", "-", "*", "/"]),
    );
    expect(catalogue.keywords.filter((keyword) => keyword.reserved).map((keyword) => keyword.keyword)).toEqual(
      expect.arrayContaining(["AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "WHERE", "IN", "BETWEEN", "IS", "NULL", "TRUE", "FALSE"]),
    );
    expect(catalogue.keywords.every((keyword) => keyword.description.length > 0)).toBe(true);
    expect(catalogue.timeUnits).toEqual(["MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]);
  });

  it("gives operator examples that parse", () => {
    for (const operator of catalogue.operators) expect(parseExpression(operator.syntax).ok, operator.syntax).toBe(true);
  });

  it("is JSON-serialisable without loss", () => {
    expect(JSON.parse(JSON.stringify(catalogue))).toEqual(catalogue);
  });

  it("returns a fresh copy each time", () => {
    const first = expressionSyntaxCatalogue();
    first.functions.length = 0;
    expect(expressionSyntaxCatalogue().functions.length).toBe(FUNCTION_DEFINITIONS.length);
  });
});
