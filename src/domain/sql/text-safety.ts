import { SqlGenerationError } from "./errors";

/**
 * The building blocks every dialect quotes with. Names and values are never spliced into
 * SQL as they are: they are checked here, then wrapped in quotes with every embedded
 * quote character doubled, which is the one escape both ISO SQL and PostgreSQL share.
 */

// With the `u` flag a well-formed surrogate pair is one code point, so only lone halves match.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Refuses characters that cannot travel inside a quoted name or literal unchanged.
 * NUL: PostgreSQL cannot store it, and C-based drivers end the text there, cutting the
 * query short. A lone surrogate has no UTF-8 form: it would arrive as U+FFFD, a different value.
 */
export function requireTransmittableText(text: string, subject: string): void {
  if (text.includes("\u0000")) {
    throw new SqlGenerationError("UNSAFE_TEXT", `${subject} contains a NUL character (U+0000), which cannot be sent to the database`);
  }
  if (LONE_SURROGATE.test(text)) {
    throw new SqlGenerationError("UNSAFE_TEXT", `${subject} contains an unpaired UTF-16 surrogate, which is not valid Unicode`);
  }
}

/** `text` between `quote`s, each `quote` inside doubled: `it's` -> `'it''s'`. */
export function quoteByDoubling(text: string, quote: "'" | '"'): string {
  return quote + text.replaceAll(quote, quote + quote) + quote;
}

/** The expression language's number syntax, which is also valid SQL in every dialect here. */
const DECIMAL_NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * SQL text of a number: a finite JavaScript number, or decimal text such as an expression's
 * number literal (kept verbatim, so no digit is lost to floating point). Anything else
 * is refused, so a number can never carry other SQL with it.
 */
export function numberText(value: number | string): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new SqlGenerationError("INVALID_NUMBER", `${String(value)} is not a finite number`);
    // String() writes finite numbers as [-]digits[.digits][e±digits]; -0 becomes "0".
    const text = String(value);
    if (!DECIMAL_NUMBER.test(text.startsWith("-") ? text.slice(1) : text)) {
      throw new SqlGenerationError("INVALID_NUMBER", `${text} cannot be written as an SQL number`);
    }
    return text;
  }
  if (!DECIMAL_NUMBER.test(value)) throw new SqlGenerationError("INVALID_NUMBER", `'${value.slice(0, 40)}' is not a decimal number`);
  return value;
}

/** A row count is a whole number of rows; anything else could not be a safe literal. */
export function rowCountText(rowCount: number): string {
  if (!Number.isSafeInteger(rowCount) || rowCount < 0) {
    throw new SqlGenerationError("INVALID_NUMBER", `A row limit must be a whole number of at least 0, got ${String(rowCount)}`);
  }
  return String(rowCount);
}
