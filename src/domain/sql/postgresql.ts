import type { TimeUnit } from "../expression";
import { argumentAt, argumentList, unitIn, type FunctionRenderer, type SqlArgument, type SqlDialect, type SqlFunctionCall } from "./dialect";
import { SqlGenerationError } from "./errors";
import { sameName, STANDARD_FUNCTIONS, standardExtract } from "./standard-functions";
import { numberText, quoteByDoubling, requireTransmittableText, rowCountText } from "./text-safety";

/**
 * PostgreSQL (checked against 18; nothing here is newer than 12). Refuses FIRST_VALUE and
 * LAST_VALUE only, which need the source's time order.
 */

/** PostgreSQL silently cuts longer names to 63 bytes, so two distinct names could become one. */
const MAX_IDENTIFIER_BYTES = 63;

const utf8 = new TextEncoder();

function quoteIdentifier(name: string): string {
  if (name === "") throw new SqlGenerationError("UNSAFE_TEXT", "A name cannot be empty");
  requireTransmittableText(name, "A name");
  if (utf8.encode(name).length > MAX_IDENTIFIER_BYTES) {
    throw new SqlGenerationError("UNSAFE_TEXT", `A name longer than ${MAX_IDENTIFIER_BYTES} bytes in UTF-8 cannot be used in PostgreSQL`);
  }
  return quoteByDoubling(name, '"');
}

/**
 * A plain literal reads a backslash as itself only while standard_conforming_strings is on
 * (the default since 9.1). A session that turned it off would read `\'` as an escaped quote
 * and end the literal elsewhere. So text with a backslash is written as a Unicode escape
 * literal, U&'...', where the backslash is U&'s own escape character and is doubled:
 * PostgreSQL rejects U& literals outright when the setting is off, so the worst case is an
 * error, never a different query. E'...' literals are never written.
 */
function stringLiteral(value: string): string {
  requireTransmittableText(value, "A text value");
  if (!value.includes("\\")) return quoteByDoubling(value, "'");
  return `U&${quoteByDoubling(value.replaceAll("\\", "\\\\"), "'")}`;
}

/**
 * PostgreSQL functions such as LPAD, SUBSTRING and ROUND's second argument take a 4-byte
 * integer and do not accept a BIGINT column. A small integer literal is kept as it is.
 */
function asInteger(argument: SqlArgument): string {
  return /^\d{1,9}$/.test(argument.sql) ? argument.sql : `CAST(${argument.sql} AS INTEGER)`;
}

/** MOD exists for integers and NUMERIC, not for DOUBLE PRECISION (which a column or a division may be). */
function asNumeric(argument: SqlArgument): string {
  return /^\d+(\.\d*)?$/.test(argument.sql) ? argument.sql : `CAST(${argument.sql} AS NUMERIC)`;
}

/** ROUND(x, n) exists for NUMERIC only, not for DOUBLE PRECISION. */
function round(call: SqlFunctionCall): string {
  const value = argumentAt(call, 0).sql;
  return call.args.length < 2 ? `ROUND(${value})` : `ROUND(CAST(${value} AS NUMERIC), ${asInteger(argumentAt(call, 1))})`;
}

function pad(name: "LPAD" | "RPAD"): FunctionRenderer {
  return (call) => {
    const parts = [argumentAt(call, 0).sql, asInteger(argumentAt(call, 1)), ...call.args.slice(2).map((argument) => argument.sql)];
    return `${name}(${parts.join(", ")})`;
  };
}

function substring(call: SqlFunctionCall): string {
  const text = argumentAt(call, 0).sql;
  const start = asInteger(argumentAt(call, 1));
  return call.args.length < 3 ? `SUBSTRING(${text} FROM ${start})` : `SUBSTRING(${text} FROM ${start} FOR ${asInteger(argumentAt(call, 2))})`;
}

function locate(call: SqlFunctionCall): string {
  const substring = argumentAt(call, 0).sql;
  const text = argumentAt(call, 1).sql;
  if (call.args.length < 3) return `STRPOS(${text}, ${substring})`;
  const start = asInteger(argumentAt(call, 2));
  const found = `STRPOS(SUBSTRING(${text} FROM ${start}), ${substring})`;
  return `CASE WHEN ${found} = 0 THEN 0 ELSE ${found} + ${start} - 1 END`;
}

/** A number in text, with optional sign, fraction, exponent and surrounding spaces: what CAST reads. */
const NUMERIC_TEXT_PATTERN = "^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$";

/** TEXT_TO_NUM gives NULL, not an error, for text that is not a number. */
function textToNumber(call: SqlFunctionCall): string {
  const text = argumentAt(call, 0);
  return `CASE WHEN ${text.operand} ~ ${stringLiteral(NUMERIC_TEXT_PATTERN)} THEN CAST(${text.sql} AS NUMERIC) END`;
}

function extract(call: SqlFunctionCall): string {
  const time = argumentAt(call, 0).operand;
  if (call.unit === "WEEK") return `EXTRACT(WEEK FROM ${time})`; // ISO 8601 week number
  if (call.unit === "QUARTER") return `EXTRACT(QUARTER FROM ${time})`;
  return standardExtract(call);
}

/** DATE_TRUNC's field names. */
const TRUNCATION_FIELDS: Readonly<Record<TimeUnit, string>> = {
  MILLISECOND: "milliseconds",
  SECOND: "second",
  MINUTE: "minute",
  HOUR: "hour",
  DAY: "day",
  WEEK: "week",
  MONTH: "month",
  QUARTER: "quarter",
  YEAR: "year",
};

function truncateTime(call: SqlFunctionCall): string {
  return `DATE_TRUNC(${stringLiteral(unitIn(call, TRUNCATION_FIELDS))}, ${argumentAt(call, 0).sql})`;
}

/**
 * Whole units elapsed from start to end, truncated toward zero. Fixed-length units divide
 * the difference in epoch seconds (which works for DATE and both TIMESTAMP kinds);
 * months, quarters and years count calendar months with AGE.
 */
function timeDifference(call: SqlFunctionCall): string {
  const start = argumentAt(call, 0).sql;
  const end = argumentAt(call, 1).sql;
  const seconds = `(EXTRACT(EPOCH FROM ${argumentAt(call, 1).operand}) - EXTRACT(EPOCH FROM ${argumentAt(call, 0).operand}))`;
  const age = `AGE(${end}, ${start})`;
  const months = `(EXTRACT(YEAR FROM ${age}) * 12 + EXTRACT(MONTH FROM ${age}))`;
  const whole = (sql: string): string => `CAST(TRUNC(${sql}) AS BIGINT)`;
  return unitIn(call, {
    MILLISECOND: whole(`${seconds} * 1000`),
    SECOND: whole(seconds),
    MINUTE: whole(`${seconds} / 60`),
    HOUR: whole(`${seconds} / 3600`),
    DAY: whole(`${seconds} / 86400`),
    WEEK: whole(`${seconds} / 604800`),
    MONTH: `CAST(${months} AS BIGINT)`,
    QUARTER: whole(`${months} / 3`),
    YEAR: `CAST(EXTRACT(YEAR FROM ${age}) AS BIGINT)`,
  });
}

const POSTGRESQL_FUNCTIONS: ReadonlyMap<string, FunctionRenderer> = new Map<string, FunctionRenderer>([
  ...STANDARD_FUNCTIONS,
  ["MOD", (call) => `MOD(${asNumeric(argumentAt(call, 0))}, ${asNumeric(argumentAt(call, 1))})`],
  ["ROUND", round],
  ["COT", sameName("COT")],
  ["PI", () => "PI()"],
  ["DEGREES", sameName("DEGREES")],
  ["RADIANS", sameName("RADIANS")],
  ["CONCAT", (call) => `CONCAT(${argumentList(call)})`], // turns any value into text; NULL counts as ''
  ["LENGTH", sameName("LENGTH")],
  ["LOCATE", locate],
  ["LPAD", pad("LPAD")],
  ["RPAD", pad("RPAD")],
  ["LTRIM", sameName("LTRIM")],
  ["RTRIM", sameName("RTRIM")],
  ["SUBSTRING", substring],
  ["TEXT_TO_NUM", textToNumber],
  ["NUM_TO_TEXT", (call) => `CAST(${argumentAt(call, 0).sql} AS TEXT)`],
  ["EXTRACT", extract],
  ["TIME_DIFF", timeDifference],
  ["TRUNCATE_TIME", truncateTime],
  ["TIME_TO_UNIX_TIME", (call) => `CAST(FLOOR(EXTRACT(EPOCH FROM ${argumentAt(call, 0).operand})) AS BIGINT)`],
]);

export const postgresqlDialect: SqlDialect = {
  name: "PostgreSQL",
  quoteIdentifier,
  stringLiteral,
  numberLiteral: numberText,
  booleanLiteral: (value) => (value ? "TRUE" : "FALSE"),
  nullLiteral: "NULL",

  // Integers would divide as integers (7 / 2 = 3), and a zero divisor would fail the whole
  // query, so: NUMERIC division, exact and unbounded, that gives NULL for a zero divisor.
  divide: (dividend, divisor) => `CAST(${dividend.sql} AS NUMERIC) / NULLIF(${divisor.sql}, 0)`,

  aggregateFilter: "FILTER_CLAUSE",
  functions: POSTGRESQL_FUNCTIONS,
  limitClause: (rowCount) => `LIMIT ${rowCountText(rowCount)}`,
};
