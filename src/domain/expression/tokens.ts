import type { SourcePosition } from "./ast";

/**
 * Reserved words: never read as names unless double-quoted. Function names, time
 * units and FROM are deliberately not reserved, so a field called `year` or `sum`
 * still works wherever a value is expected.
 */
export const RESERVED_KEYWORDS = [
  "AND",
  "BETWEEN",
  "CASE",
  "ELSE",
  "END",
  "FALSE",
  "IN",
  "IS",
  "NOT",
  "NULL",
  "OR",
  "THEN",
  "TRUE",
  "WHEN",
  "WHERE",
] as const;

export type ReservedKeyword = (typeof RESERVED_KEYWORDS)[number];

/** Written as bare keywords in a function's unit argument, e.g. `TRUNCATE_TIME(MONTH, t)`. */
export const TIME_UNITS = [
  "MILLISECOND",
  "SECOND",
  "MINUTE",
  "HOUR",
  "DAY",
  "WEEK",
  "MONTH",
  "QUARTER",
  "YEAR",
] as const;

export type TimeUnit = (typeof TIME_UNITS)[number];

/** Contextual keyword of `EXTRACT(YEAR FROM t)`; an ordinary name everywhere else. */
export const FROM_KEYWORD = "FROM";

/** The product's pattern for field and metric names; such names need no quoting. */
export const BARE_NAME_PATTERN = /^[\p{L}_][\p{L}_\p{N}.]*$/u;

export type Punctuation = "(" | ")" | "," | "*" | "/" | "+" | "-" | "=" | "!=" | "<>" | "<" | "<=" | ">" | ">=";

export type Token =
  | { readonly kind: "number"; readonly text: string; readonly position: SourcePosition }
  | { readonly kind: "string"; readonly value: string; readonly position: SourcePosition }
  | { readonly kind: "name"; readonly name: string; readonly position: SourcePosition }
  | { readonly kind: "quotedName"; readonly name: string; readonly position: SourcePosition }
  | { readonly kind: "keyword"; readonly keyword: ReservedKeyword; readonly position: SourcePosition }
  | { readonly kind: "symbol"; readonly symbol: Punctuation; readonly position: SourcePosition }
  | { readonly kind: "end"; readonly position: SourcePosition };

const reservedKeywordSet: ReadonlySet<string> = new Set(RESERVED_KEYWORDS);
const timeUnitSet: ReadonlySet<string> = new Set(TIME_UNITS);

/**
 * Upper-cases ASCII letters only. `toUpperCase` would map `ı` to `I` and `ſ` to `S`,
 * turning names such as `ın` into the keyword IN.
 */
export function asciiUpperCase(text: string): string {
  return text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

export function reservedKeywordOf(name: string): ReservedKeyword | undefined {
  const upper = asciiUpperCase(name);
  return reservedKeywordSet.has(upper) ? (upper as ReservedKeyword) : undefined;
}

export function timeUnitOf(name: string): TimeUnit | undefined {
  const upper = asciiUpperCase(name);
  return timeUnitSet.has(upper) ? (upper as TimeUnit) : undefined;
}

/** True when the name can be written without double quotes. */
export function isBareName(name: string): boolean {
  return BARE_NAME_PATTERN.test(name) && reservedKeywordOf(name) === undefined;
}

const MAX_DESCRIBED_LENGTH = 30;

function shorten(text: string): string {
  return text.length > MAX_DESCRIBED_LENGTH ? `${text.slice(0, MAX_DESCRIBED_LENGTH)}...` : text;
}

/** How a token is named in syntax error messages. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case "number":
      return `number ${shorten(token.text)}`;
    case "string":
      return `string '${shorten(token.value)}'`;
    case "name":
      return `name '${shorten(token.name)}'`;
    case "quotedName":
      return `name "${shorten(token.name)}"`;
    case "keyword":
      return token.keyword;
    case "symbol":
      return `'${token.symbol}'`;
    case "end":
      return "end of expression";
  }
}
