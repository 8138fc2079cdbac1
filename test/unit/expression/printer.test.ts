import { describe, expect, it } from "vitest";
import { printExpression, withoutPositions } from "../../../src/domain/expression";
import { parseOk } from "./helpers";

const canonical = (text: string): string => printExpression(parseOk(text));

describe("printExpression", () => {
  it.each([
    ["sum( price )where code in('LAX','ORD')", "SUM(price) WHERE code IN ('LAX', 'ORD')"],
    ["1+2*3", "1 + 2 * 3"],
    ["(1+2)*3", "(1 + 2) * 3"],
    ["1-(2-3)", "1 - (2 - 3)"],
    ["(1-2)-3", "1 - 2 - 3"],
    ["a or (b or c)", "a OR (b OR c)"],
    ["(a or b) and not c", "(a OR b) AND NOT c"],
    ["not (a and b)", "NOT (a AND b)"],
    ["(not a) = b", "(NOT a) = b"],
    ["(a = b) = c", "(a = b) = c"],
    ["a <> b", "a != b"],
    ["-(-a)", "--a"],
    ["-(a+b)", "-(a + b)"],
    ["x not between 1 and 2", "x NOT BETWEEN 1 AND 2"],
    ["(x between 1 and 2) is null", "(x BETWEEN 1 AND 2) IS NULL"],
    ["x is not null", "x IS NOT NULL"],
    ["case when a then 'it''s' end", "CASE WHEN a THEN 'it''s' END"],
    ["case x when 1 then 2 else 3 end", "CASE x WHEN 1 THEN 2 ELSE 3 END"],
    ["count(*)", "COUNT(*)"],
    ["extract(year, d)", "EXTRACT(YEAR FROM d)"],
    ["time_add(day, 1, d)", "TIME_ADD(DAY, 1, d)"],
    ["(SUM(x) WHERE a = 1) / SUM(y)", "(SUM(x) WHERE a = 1) / SUM(y)"],
    ["ROUND(SUM(x) WHERE a = 1, 2)", "ROUND(SUM(x) WHERE a = 1, 2)"],
    ["1 + SUM(x) WHERE a = 1", "1 + (SUM(x) WHERE a = 1)"],
    ['"my field" + "AND" + "a""b" + größe + "year"', '"my field" + "AND" + "a""b" + größe + year'],
    ["1e3 + .5 + 5.", "1e3 + .5 + 5."],
  ])("%s prints as %s", (text, expected) => {
    expect(canonical(text)).toBe(expected);
  });

  it("prints text that parses back to the same tree", () => {
    const samples = [
      "CASE WHEN SUM(x) WHERE a IN (1, 2) THEN (COUNT(*) WHERE b) ELSE -(-1) END",
      "NOT NOT a OR b AND c IS NULL",
      "x IN (a OR b, SUM(y) WHERE z, 3)",
      "EXTRACT(YEAR FROM from) + TIME_DIFF(DAY, a, b)",
      "'line\nbreak' = \"tab\there\"",
    ];
    for (const text of samples) {
      const tree = parseOk(text);
      expect(withoutPositions(parseOk(printExpression(tree))), text).toEqual(withoutPositions(tree));
    }
  });
});
