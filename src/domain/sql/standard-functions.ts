import type { TimeUnit } from "../expression";
import { argumentAt, argumentList, unitIn, type FunctionRenderer, type SqlFunctionCall } from "./dialect";

/**
 * The expression language's functions written in ISO SQL (SQL:2016 with features T612
 * advanced OLAP and T622/T623 math functions), plus ROUND and SIGN, which the standard
 * lacks but every major database spells this way. Functions the standard lacks are built
 * from standard parts where the result is exact (PI is ACOS(-1)); the rest are left out,
 * and dialects refuse what they leave out. Dialects start from this table and override.
 */

/** `NAME(arg, ...)` under a fixed name, never the caller's text. */
export function sameName(name: string): FunctionRenderer {
  return (call) => `${name}(${argumentList(call)})`;
}

function first(call: SqlFunctionCall): string {
  return argumentAt(call, 0).sql;
}

/** Amount-of-one-unit intervals in standard interval literal syntax, which PostgreSQL also reads. */
export const STANDARD_INTERVALS: Readonly<Record<TimeUnit, string>> = {
  MILLISECOND: "INTERVAL '0.001' SECOND",
  SECOND: "INTERVAL '1' SECOND",
  MINUTE: "INTERVAL '1' MINUTE",
  HOUR: "INTERVAL '1' HOUR",
  DAY: "INTERVAL '1' DAY",
  WEEK: "INTERVAL '7' DAY",
  MONTH: "INTERVAL '1' MONTH",
  QUARTER: "INTERVAL '3' MONTH",
  YEAR: "INTERVAL '1' YEAR",
};

/** EXTRACT for the fields ISO SQL has; SECOND drops its fraction, as the result is an INTEGER. */
export function standardExtract(call: SqlFunctionCall): string {
  const time = argumentAt(call, 0).operand;
  return unitIn(call, {
    YEAR: `EXTRACT(YEAR FROM ${time})`,
    QUARTER: `CAST(FLOOR((EXTRACT(MONTH FROM ${time}) + 2) / 3) AS INTEGER)`,
    MONTH: `EXTRACT(MONTH FROM ${time})`,
    DAY: `EXTRACT(DAY FROM ${time})`,
    HOUR: `EXTRACT(HOUR FROM ${time})`,
    MINUTE: `EXTRACT(MINUTE FROM ${time})`,
    SECOND: `FLOOR(EXTRACT(SECOND FROM ${time}))`,
    MILLISECOND: `MOD(CAST(FLOOR(EXTRACT(SECOND FROM ${time}) * 1000) AS INTEGER), 1000)`,
    // WEEK: ISO SQL has no week-of-year field.
  });
}

/** LOCATE(substring, text [, start]): 1-based, 0 when absent. */
function locate(call: SqlFunctionCall): string {
  const substring = argumentAt(call, 0).sql;
  const text = argumentAt(call, 1).sql;
  if (call.args.length < 3) return `POSITION(${substring} IN ${text})`;
  const start = argumentAt(call, 2);
  const found = `POSITION(${substring} IN SUBSTRING(${text} FROM ${start.sql}))`;
  return `CASE WHEN ${found} = 0 THEN 0 ELSE ${found} + ${start.operand} - 1 END`;
}

function substring(call: SqlFunctionCall): string {
  const text = argumentAt(call, 0).sql;
  const start = argumentAt(call, 1).sql;
  return call.args.length < 3 ? `SUBSTRING(${text} FROM ${start})` : `SUBSTRING(${text} FROM ${start} FOR ${argumentAt(call, 2).sql})`;
}

export const STANDARD_FUNCTIONS: ReadonlyMap<string, FunctionRenderer> = new Map<string, FunctionRenderer>([
  // Aggregates
  ["SUM", sameName("SUM")],
  ["AVG", sameName("AVG")],
  ["COUNT", (call) => (call.star ? "COUNT(*)" : `COUNT(${first(call)})`)],
  ["COUNTD", (call) => `COUNT(DISTINCT ${first(call)})`],
  ["MIN", sameName("MIN")],
  ["MAX", sameName("MAX")],
  ["MEDIAN", (call) => `PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY ${first(call)})`],
  ["STDDEV_POP", sameName("STDDEV_POP")],
  ["STDDEV_SAMP", sameName("STDDEV_SAMP")],
  ["VAR_POP", sameName("VAR_POP")],
  ["VAR_SAMP", sameName("VAR_SAMP")],
  // FIRST_VALUE, LAST_VALUE: they follow the source's time order, which a query over the
  // table alone does not know.

  ["COALESCE", sameName("COALESCE")],

  // Numeric
  ["POWER", sameName("POWER")],
  ["MOD", sameName("MOD")],
  ["SQRT", sameName("SQRT")],
  ["LN", sameName("LN")],
  ["LOG10", sameName("LOG10")],
  ["EXP", sameName("EXP")],
  ["CEIL", sameName("CEIL")],
  ["FLOOR", sameName("FLOOR")],
  ["ROUND", sameName("ROUND")],
  ["SIGN", sameName("SIGN")],
  ["SIN", sameName("SIN")],
  ["COS", sameName("COS")],
  ["TAN", sameName("TAN")],
  ["COT", (call) => `(1 / TAN(${first(call)}))`],
  ["ASIN", sameName("ASIN")],
  ["ACOS", sameName("ACOS")],
  ["ATAN", sameName("ATAN")],
  ["PI", () => "ACOS(-1)"],
  ["DEGREES", (call) => `(${argumentAt(call, 0).operand} * 180 / ACOS(-1))`],
  ["RADIANS", (call) => `(${argumentAt(call, 0).operand} * ACOS(-1) / 180)`],

  // Text. CONCAT relies on the database to turn non-text operands of || into text.
  ["CONCAT", (call) => `(${call.args.map((argument) => argument.operand).join(" || ")})`],
  ["LENGTH", (call) => `CHAR_LENGTH(${first(call)})`],
  ["LOCATE", locate],
  ["LOWER", sameName("LOWER")],
  ["UPPER", sameName("UPPER")],
  ["LTRIM", (call) => `TRIM(LEADING ' ' FROM ${first(call)})`],
  ["RTRIM", (call) => `TRIM(TRAILING ' ' FROM ${first(call)})`],
  ["SUBSTRING", substring],
  ["NUM_TO_TEXT", (call) => `CAST(${first(call)} AS VARCHAR(100))`],

  // Time
  ["EXTRACT", standardExtract],
  ["NOW", () => "CURRENT_TIMESTAMP"],
  [
    "TIME_ADD",
    (call) => `(${argumentAt(call, 1).operand} + ${argumentAt(call, 0).operand} * ${unitIn(call, STANDARD_INTERVALS)})`,
  ],
  ["UNIX_TIME_TO_TIME", (call) => `(TIMESTAMP '1970-01-01 00:00:00' + ${argumentAt(call, 0).operand} * INTERVAL '1' SECOND)`],
]);
