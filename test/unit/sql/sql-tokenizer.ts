/**
 * A strict tokenizer for the SQL this module generates, written independently of it so the
 * tests can check what a database would read. It understands exactly what the generator
 * may emit and throws on anything else, in particular on every way out of a quoted
 * token: comments (`--`, `/*`), `;`, dollar quotes, prefixed literals (E'..', N'..', X'..'),
 * backslash escapes other than U&'s own `\\`, and two string literals with only
 * whitespace between them (which PostgreSQL would join into one).
 */

export type SqlToken =
  | { readonly kind: "identifier"; readonly value: string }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly text: string }
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "symbol"; readonly text: string };

const SYMBOLS = ["<>", "<=", ">=", "||", "(", ")", ",", ".", "*", "+", "-", "/", "=", "<", ">", "~"];
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const WORD = /^[A-Za-z_][A-Za-z0-9_]*/;

export interface TokenizeOptions {
  /**
   * Refuse a backslash inside a plain '...' literal. For PostgreSQL output: such a literal
   * would read differently were standard_conforming_strings off.
   */
  readonly backslashOnlyInUnicodeLiterals?: boolean;
}

export function tokenizeSql(sql: string, options: TokenizeOptions = {}): SqlToken[] {
  const tokens: SqlToken[] = [];
  let offset = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${offset}: ${JSON.stringify(sql.slice(Math.max(0, offset - 20), offset + 20))}`);
  };

  while (offset < sql.length) {
    const rest = sql.slice(offset);
    const character = sql[offset];
    if (character === " " || character === "\n") {
      offset += 1;
      continue;
    }
    if (rest.startsWith("--") || rest.startsWith("/*")) fail("Comment");

    if (character === '"') {
      const { value, end } = readQuoted(sql, offset, '"', fail);
      if (value === "") fail("Empty quoted identifier");
      tokens.push({ kind: "identifier", value });
      offset = end;
    } else if (character === "'" || rest.startsWith("U&'")) {
      const isUnicode = character === "U";
      if (tokens.at(-1)?.kind === "string") fail("Adjacent string literals");
      const { value, end } = readQuoted(sql, offset + (isUnicode ? 2 : 0), "'", fail);
      if (!isUnicode && options.backslashOnlyInUnicodeLiterals === true && value.includes("\\")) fail("Backslash in a plain literal");
      tokens.push({ kind: "string", value: isUnicode ? decodeUnicodeEscapes(value, fail) : value });
      offset = end;
    } else if (/[0-9.]/.test(character) && NUMBER.test(rest)) {
      const text = (NUMBER.exec(rest) as RegExpExecArray)[0];
      if (/^[A-Za-z0-9_'"]/.test(rest.slice(text.length))) fail("Junk after a number");
      tokens.push({ kind: "number", text });
      offset += text.length;
    } else if (WORD.test(rest)) {
      const text = (WORD.exec(rest) as RegExpExecArray)[0];
      if (/^['"&$]/.test(rest.slice(text.length))) fail("A word directly followed by a quote, & or $");
      tokens.push({ kind: "word", text: text.toUpperCase() });
      offset += text.length;
    } else {
      const symbol = SYMBOLS.find((candidate) => rest.startsWith(candidate)) ?? fail(`Unexpected character ${JSON.stringify(character)}`);
      tokens.push({ kind: "symbol", text: symbol });
      offset += symbol.length;
    }
  }
  return tokens;
}

/** Reads `quote ... quote` with the quote doubled inside; returns the raw content. */
function readQuoted(sql: string, start: number, quote: string, fail: (why: string) => never): { value: string; end: number } {
  let value = "";
  let index = start + 1;
  for (;;) {
    const closing = sql.indexOf(quote, index);
    if (closing < 0) fail("Unterminated quoted token");
    value += sql.slice(index, closing);
    if (sql[closing + 1] === quote) {
      value += quote;
      index = closing + 2;
    } else {
      return { value, end: closing + 1 };
    }
  }
}

/** The body of U&'...': only `\\` (a backslash) is expected; any other escape is a failure. */
function decodeUnicodeEscapes(body: string, fail: (why: string) => never): string {
  return body.replace(/\\(.?)/gs, (_, next: string) => (next === "\\" ? "\\" : fail("Unexpected escape in U& literal")));
}

/** Kinds and keywords only: what the query does, without its names and values. */
export function shapeOf(tokens: readonly SqlToken[]): string[] {
  return tokens.map((token) => (token.kind === "word" || token.kind === "symbol" ? token.text : token.kind));
}

/** Whether parentheses balance and never close more than they opened. */
export function parenthesesBalance(tokens: readonly SqlToken[]): boolean {
  let depth = 0;
  for (const token of tokens) {
    if (token.kind !== "symbol") continue;
    if (token.text === "(") depth += 1;
    if (token.text === ")") depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}
