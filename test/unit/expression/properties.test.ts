import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkExpression,
  MAX_NESTING_DEPTH,
  MAX_TREE_HEIGHT,
  parseExpression,
  printExpression,
  withoutPositions,
  type ExpressionError,
} from "../../../src/domain/expression";
import { expressionTree, GRAMMAR_TOKENS } from "./arbitraries";
import { sampleContext } from "./helpers";

const context = sampleContext();

function expectWellFormedSyntaxError(error: ExpressionError, text: string): void {
  expect(error.type).toBe("SYNTAX");
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.line).toBeGreaterThanOrEqual(1);
  expect(error.column).toBeGreaterThanOrEqual(1);
  expect(error.column).toBeLessThanOrEqual(text.length + 1);
}

/** Parsing, checking at both levels and re-printing never throw and stay consistent. */
function exercise(text: string): void {
  const parsed = parseExpression(text);
  if (!parsed.ok) {
    expectWellFormedSyntaxError(parsed.error, text);
    return;
  }
  for (const level of ["aggregate", "row"] as const) {
    const checked = checkExpression(text, context, level);
    if (!checked.ok) expect(checked.error.type).toBe("VALIDATION");
  }
  const reparsed = parseExpression(printExpression(parsed.ast));
  // Printing may add parentheses around a filtered aggregate, which can only hit the depth cap.
  if (reparsed.ok) expect(withoutPositions(reparsed.ast)).toEqual(withoutPositions(parsed.ast));
  else expect(reparsed.error.message).toMatch(/nested too deeply/);
}

describe("round trip", () => {
  it("parse(print(tree)) gives the tree back", () => {
    fc.assert(
      fc.property(expressionTree(6), (tree) => {
        const text = printExpression(tree);
        const reparsed = parseExpression(text);
        if (!reparsed.ok) throw new Error(`${JSON.stringify(text)}: ${reparsed.error.message}`);
        expect(withoutPositions(reparsed.ast)).toEqual(withoutPositions(tree));
        expect(printExpression(reparsed.ast)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });
});

describe("robustness: any string gives a result or a syntax error", () => {
  it("arbitrary unicode, including lone surrogates and control characters", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 3000 }), exercise), { numRuns: 150 });
  });

  it("arbitrary ASCII", () => {
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 500 }), exercise), { numRuns: 300 });
  });

  it("strings built from grammar tokens", () => {
    const soup = fc.tuple(fc.array(fc.constantFrom(...GRAMMAR_TOKENS), { maxLength: 120 }), fc.constantFrom(" ", "")).map(([tokens, glue]) => tokens.join(glue));
    fc.assert(fc.property(soup, exercise), { numRuns: 1500 });
  });

  it("printed random trees, cut at a random point", () => {
    const cut = fc.tuple(expressionTree(5), fc.double({ min: 0, max: 1, noNaN: true })).map(([tree, fraction]) => {
      const text = printExpression(tree);
      return text.slice(0, Math.floor(text.length * fraction));
    });
    fc.assert(fc.property(cut, exercise), { numRuns: 300 });
  });
});

describe("deep and long input (correctness only, no timing)", () => {
  const TEN_KB = 10_000;

  it.each([
    ["opening parentheses", "(".repeat(TEN_KB)],
    ["balanced parentheses", `${"(".repeat(TEN_KB / 2)}1${")".repeat(TEN_KB / 2)}`],
    ["nested calls", `${"SUM(".repeat(TEN_KB / 4)}x${")".repeat(TEN_KB / 4)}`],
    ["NOT chains", `${"NOT ".repeat(TEN_KB / 4)}a`],
    ["unary minus chains", `${"-".repeat(TEN_KB)}1`],
    ["nested CASE", "CASE WHEN ".repeat(TEN_KB / 10)],
    ["nested IN lists", "a IN (".repeat(TEN_KB / 6)],
  ])("%s stop at the nesting limit", (_label, text) => {
    const result = parseExpression(text);
    expect(result).toMatchObject({ ok: false, error: { type: "SYNTAX", message: `Expression is nested too deeply (maximum ${MAX_NESTING_DEPTH} levels)` } });
  });

  it("long operator chains stop at the tree height limit", () => {
    for (const operator of ["+", "*", " AND ", " OR "]) {
      const text = Array.from({ length: TEN_KB / 2 }, () => "a").join(operator);
      const result = parseExpression(text);
      expect(result, operator).toMatchObject({ ok: false, error: { type: "SYNTAX" } });
      if (!result.ok) expect(result.error.message).toMatch(new RegExp(`^Expression is too complex \\(more than ${MAX_TREE_HEIGHT} levels`));
    }
  });

  it("chains below the height limit parse, check and print", () => {
    const text = Array.from({ length: MAX_TREE_HEIGHT - 1 }, () => "quantity").join(" + ");
    expect(checkExpression(text, context, "row")).toMatchObject({ ok: true, dataType: "INTEGER", referencedFields: ["quantity"] });
    const parsed = parseExpression(text);
    expect(parsed.ok && printExpression(parsed.ast)).toBe(text);
    expect(parseExpression(`${text} + quantity + quantity`)).toMatchObject({ ok: false });
  });

  it("wide input is fine: 10 KB IN lists, CASE branches, strings, names and whitespace", () => {
    const inList = `CASE WHEN quantity IN (${Array.from({ length: 2000 }, (_, index) => index).join(", ")}) THEN 1 END`;
    expect(checkExpression(inList, context, "row")).toMatchObject({ ok: true, dataType: "INTEGER" });
    const branches = `CASE ${Array.from({ length: 500 }, (_, index) => `WHEN quantity = ${index} THEN ${index}`).join(" ")} END`;
    expect(checkExpression(branches, context, "row")).toMatchObject({ ok: true, dataType: "INTEGER" });
    const concat = `CONCAT(${Array.from({ length: 1000 }, () => "city").join(", ")})`;
    expect(checkExpression(concat, context, "row")).toMatchObject({ ok: true, dataType: "ATTRIBUTE", referencedFields: ["city"] });
    expect(parseExpression(`'${"x''".repeat(TEN_KB / 3)}'`)).toMatchObject({ ok: true, ast: { kind: "string" } });
    expect(parseExpression(`"${"n".repeat(TEN_KB)}"`)).toMatchObject({ ok: true, ast: { kind: "name" } });
    expect(parseExpression("n".repeat(TEN_KB))).toMatchObject({ ok: true, ast: { kind: "name" } });
    expect(parseExpression(`${" \n".repeat(TEN_KB / 2)}1`)).toMatchObject({ ok: true });
  });

  it("long runs of quotes and unterminated literals give syntax errors", () => {
    expect(parseExpression("'".repeat(TEN_KB + 1))).toMatchObject({ ok: false, error: { message: "Unterminated string literal", column: 1 } });
    expect(parseExpression("'".repeat(TEN_KB))).toMatchObject({ ok: true, ast: { kind: "string", value: "'".repeat(TEN_KB / 2 - 1) } });
    expect(parseExpression(`a + "${"x".repeat(TEN_KB)}`)).toMatchObject({ ok: false, error: { message: "Unterminated quoted name" } });
    expect(parseExpression(")".repeat(TEN_KB))).toMatchObject({ ok: false });
  });

  it("random nesting depths either parse or hit the nesting limit, at the right boundary", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.constantFrom("(", "ROUND(", "COALESCE(", "-(", "NOT ("), (depth, opener) => {
        const text = `${opener.repeat(depth)}1${")".repeat(opener.includes("(") ? depth : 0)}`;
        const levelsPerOpener = opener === "-(" || opener === "NOT (" ? 2 : 1;
        const result = parseExpression(text);
        if (depth * levelsPerOpener <= MAX_NESTING_DEPTH) expect(result.ok).toBe(true);
        else expect(result).toMatchObject({ ok: false, error: { message: `Expression is nested too deeply (maximum ${MAX_NESTING_DEPTH} levels)` } });
      }),
      { numRuns: 200 },
    );
  });
});
