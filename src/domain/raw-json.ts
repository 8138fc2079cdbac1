/**
 * Finds a member's value in JSON text without parsing it, so that the value can be stored exactly
 * as it was sent: JSON.parse would turn 12345678901234567890 into 12345678901234567000 and 1.0
 * into 1, and re-serialising would change spacing and escapes.
 *
 * The text must already be known to be valid JSON (the request-body middleware parsed it): the
 * scanner only skips values, it does not validate them. It reads each character at most once,
 * so a 5 MB body costs one pass.
 */

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]

const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
const endsScalar = (code: number) => code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY || isWhitespace(code);

/**
 * The exact source text of the value of `member` in the top-level object `json`, or undefined when
 * the object has no such member. When a member name repeats, the last one counts, as in JSON.parse.
 * Member names are compared after unescaping (`"d\u0061ta"` is `data`). Throws when `json` is not
 * a JSON object.
 */
export function rawMemberText(json: string, member: string): string | undefined {
  let found: [start: number, end: number] | undefined;
  let i = skipWhitespace(json, 0);
  requireChar(json, i, OPEN_OBJECT);
  i = skipWhitespace(json, i + 1);
  if (json.charCodeAt(i) === CLOSE_OBJECT) return undefined;
  for (;;) {
    requireChar(json, i, QUOTE);
    const nameEnd = skipString(json, i);
    const name = json.slice(i + 1, nameEnd - 1);
    i = skipWhitespace(json, nameEnd);
    requireChar(json, i, COLON);
    const valueStart = skipWhitespace(json, i + 1);
    const valueEnd = skipValue(json, valueStart);
    // Escaped names are rare: decode only those.
    if ((name.includes("\\") ? (JSON.parse(`"${name}"`) as string) : name) === member) found = [valueStart, valueEnd];
    i = skipWhitespace(json, valueEnd);
    const next = json.charCodeAt(i);
    if (next === CLOSE_OBJECT) break;
    requireChar(json, i, COMMA);
    i = skipWhitespace(json, i + 1);
  }
  return found && json.slice(found[0], found[1]);
}

function requireChar(json: string, at: number, code: number): void {
  if (json.charCodeAt(at) !== code) {
    throw new SyntaxError(`Expected '${String.fromCharCode(code)}' at offset ${at} of the JSON text`);
  }
}

function skipWhitespace(json: string, from: number): number {
  let i = from;
  while (isWhitespace(json.charCodeAt(i))) i++;
  return i;
}

/** From an opening quote to just after its closing quote. */
function skipString(json: string, openingQuote: number): number {
  let from = openingQuote + 1;
  for (;;) {
    const quote = json.indexOf('"', from);
    if (quote < 0) throw new SyntaxError("Unterminated string in the JSON text");
    // A quote preceded by an odd number of backslashes is escaped.
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** From the first character of a value to just after its last. */
function skipValue(json: string, start: number): number {
  const first = json.charCodeAt(start);
  if (first === QUOTE) return skipString(json, start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null: runs to the next delimiter.
    let i = start;
    while (i < json.length && !endsScalar(json.charCodeAt(i))) i++;
    if (i === start) throw new SyntaxError(`Expected a value at offset ${start} of the JSON text`);
    return i;
  }
  let depth = 0;
  let i = start;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(json, i);
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  throw new SyntaxError("Unterminated object or array in the JSON text");
}
