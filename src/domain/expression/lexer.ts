import type { SourcePosition } from "./ast";
import { ExpressionSyntaxError } from "./errors";
import { reservedKeywordOf, type Punctuation, type Token } from "./tokens";

// Sticky patterns are matched in place at `lastIndex`: no substring copies, one pass.
const NAME = /[\p{L}_][\p{L}_\p{N}.]*/uy;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME_CHARACTER = /[\p{L}_\p{N}.]/uy;
const UNICODE_WHITESPACE = /\s/;

const CODE = {
  tab: 9,
  lineFeed: 10,
  carriageReturn: 13,
  space: 32,
  bang: 33,
  doubleQuote: 34,
  singleQuote: 39,
  openParen: 40,
  closeParen: 41,
  star: 42,
  plus: 43,
  comma: 44,
  minus: 45,
  dot: 46,
  slash: 47,
  digit0: 48,
  digit9: 57,
  less: 60,
  equals: 61,
  greater: 62,
} as const;

const SINGLE_CHARACTER_PUNCTUATION: ReadonlyMap<number, Punctuation> = new Map([
  [CODE.openParen, "("],
  [CODE.closeParen, ")"],
  [CODE.comma, ","],
  [CODE.star, "*"],
  [CODE.slash, "/"],
  [CODE.plus, "+"],
  [CODE.minus, "-"],
  [CODE.equals, "="],
]);

/** Characters users plausibly try, with the way to say it in this language. */
const CHARACTER_HINTS: ReadonlyMap<string, string> = new Map([
  ["%", "use MOD(a, b) for the remainder"],
  ["|", "use CONCAT(a, b) to join text"],
  ["&", "use AND to combine conditions"],
  ["`", "quote names with double quotes"],
]);

function isDigit(code: number): boolean {
  return code >= CODE.digit0 && code <= CODE.digit9;
}

function isWhitespace(code: number): boolean {
  if (code === CODE.space || (code >= CODE.tab && code <= CODE.carriageReturn)) return true;
  return code > 127 && UNICODE_WHITESPACE.test(String.fromCharCode(code));
}

function displayCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  const printable = code > 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f) && !(code >= 0xd800 && code <= 0xdfff);
  return printable ? `'${character}'` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Produces tokens on demand, so a syntax error early in the text is reported before a
 * lexical error later in it. Every character is visited a bounded number of times.
 */
export class Lexer {
  private offset = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  next(): Token {
    this.skipWhitespace();
    const position = this.positionAt(this.offset);
    if (this.offset >= this.text.length) return { kind: "end", position };

    const code = this.text.charCodeAt(this.offset);
    if (isDigit(code) || (code === CODE.dot && isDigit(this.text.charCodeAt(this.offset + 1)))) {
      return this.readNumber(position);
    }
    if (code === CODE.singleQuote) {
      return { kind: "string", value: this.readQuoted("'", position, "Unterminated string literal"), position };
    }
    if (code === CODE.doubleQuote) {
      const name = this.readQuoted('"', position, "Unterminated quoted name");
      if (name === "") throw new ExpressionSyntaxError("A quoted name cannot be empty", position);
      return { kind: "quotedName", name, position };
    }
    const punctuation = this.readPunctuation(code);
    if (punctuation !== undefined) return { kind: "symbol", symbol: punctuation, position };

    NAME.lastIndex = this.offset;
    const match = NAME.exec(this.text);
    if (match !== null) {
      this.offset = NAME.lastIndex;
      const name = match[0];
      const keyword = reservedKeywordOf(name);
      return keyword === undefined ? { kind: "name", name, position } : { kind: "keyword", keyword, position };
    }
    throw this.unexpectedCharacter(position);
  }

  private skipWhitespace(): void {
    const { text } = this;
    while (this.offset < text.length) {
      const code = text.charCodeAt(this.offset);
      if (!isWhitespace(code)) return;
      this.offset += 1;
      this.noteLineBreak(code, this.offset);
    }
  }

  /** Treats LF, CRLF and a lone CR as one line break each. */
  private noteLineBreak(code: number, offsetAfter: number): void {
    const isBreak =
      code === CODE.lineFeed ||
      (code === CODE.carriageReturn && this.text.charCodeAt(offsetAfter) !== CODE.lineFeed);
    if (isBreak) {
      this.line += 1;
      this.lineStart = offsetAfter;
    }
  }

  private positionAt(offset: number): SourcePosition {
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  private readNumber(position: SourcePosition): Token {
    NUMBER.lastIndex = this.offset;
    const match = NUMBER.exec(this.text);
    // The dispatch in next() guarantees a digit here, so the pattern always matches.
    const text = match === null ? "" : match[0];
    this.offset += text.length;
    NAME_CHARACTER.lastIndex = this.offset;
    if (NAME_CHARACTER.test(this.text)) {
      throw new ExpressionSyntaxError(`Invalid number '${text}${this.text.charAt(this.offset)}...'`, position);
    }
    return { kind: "number", text, position };
  }

  /** Reads a quoted run where the quote is escaped by doubling it (`'it''s'`). */
  private readQuoted(quote: "'" | '"', position: SourcePosition, unterminatedMessage: string): string {
    const { text } = this;
    const parts: string[] = [];
    let segmentStart = this.offset + 1;
    for (;;) {
      const closing = text.indexOf(quote, segmentStart);
      if (closing < 0) throw new ExpressionSyntaxError(unterminatedMessage, position);
      parts.push(text.slice(segmentStart, closing));
      if (text.charAt(closing + 1) !== quote) {
        this.advanceOver(closing + 1);
        return parts.length === 1 ? parts[0] : parts.join(quote);
      }
      segmentStart = closing + 2;
    }
  }

  /** Moves to `end`, counting the line breaks inside the skipped text. */
  private advanceOver(end: number): void {
    const { text } = this;
    for (let index = this.offset; index < end; index += 1) {
      const code = text.charCodeAt(index);
      if (code === CODE.lineFeed || code === CODE.carriageReturn) this.noteLineBreak(code, index + 1);
    }
    this.offset = end;
  }

  private readPunctuation(code: number): Punctuation | undefined {
    const following = this.text.charCodeAt(this.offset + 1);
    let punctuation: Punctuation | undefined;
    if (code === CODE.less) {
      punctuation = following === CODE.equals ? "<=" : following === CODE.greater ? "<>" : "<";
    } else if (code === CODE.greater) {
      punctuation = following === CODE.equals ? ">=" : ">";
    } else if (code === CODE.bang && following === CODE.equals) {
      punctuation = "!=";
    } else {
      punctuation = SINGLE_CHARACTER_PUNCTUATION.get(code);
    }
    if (punctuation !== undefined) this.offset += punctuation.length;
    return punctuation;
  }

  private unexpectedCharacter(position: SourcePosition): ExpressionSyntaxError {
    const character = String.fromCodePoint(this.text.codePointAt(this.offset) ?? 0);
    const hint = CHARACTER_HINTS.get(character);
    const message = `Unexpected character ${displayCharacter(character)}${hint === undefined ? "" : `; ${hint}`}`;
    return new ExpressionSyntaxError(message, position);
  }
}
