import type { SqlDialect } from "./dialect";
import { SqlGenerationError } from "./errors";
import { STANDARD_FUNCTIONS } from "./standard-functions";
import { numberText, quoteByDoubling, requireTransmittableText, rowCountText } from "./text-safety";

/**
 * ISO SQL, the default: what a reader can check against the standard and what most
 * databases accept. It writes no function the standard cannot express exactly, so it
 * refuses LPAD, RPAD, TEXT_TO_NUM, TIME_DIFF, TRUNCATE_TIME, TIME_TO_UNIX_TIME,
 * EXTRACT(WEEK ...), FIRST_VALUE and LAST_VALUE.
 */
export const ansiDialect: SqlDialect = {
  name: "ANSI",

  quoteIdentifier(name) {
    if (name === "") throw new SqlGenerationError("UNSAFE_TEXT", "A name cannot be empty");
    requireTransmittableText(name, "A name");
    return quoteByDoubling(name, '"');
  },

  // In ISO SQL a backslash is an ordinary character; only the quote needs escaping.
  stringLiteral(value) {
    requireTransmittableText(value, "A text value");
    return quoteByDoubling(value, "'");
  },

  numberLiteral: numberText,
  booleanLiteral: (value) => (value ? "TRUE" : "FALSE"),
  nullLiteral: "NULL",

  // Exact numerics may divide as integers, and division by zero would fail the whole
  // query, so: a floating-point division that gives NULL for a zero divisor.
  divide: (dividend, divisor) => `CAST(${dividend.sql} AS DOUBLE PRECISION) / NULLIF(${divisor.sql}, 0)`,

  aggregateFilter: "CASE_INSIDE",
  functions: STANDARD_FUNCTIONS,

  limitClause: (rowCount) => `FETCH FIRST ${rowCountText(rowCount)} ROWS ONLY`,
};
