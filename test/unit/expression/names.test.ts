import { describe, expect, it } from "vitest";
import { namesIn, parseExpression } from "../../../src/domain/expression";

const names = (text: string) => {
  const parsed = parseExpression(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return namesIn(parsed.ast);
};

describe("namesIn", () => {
  it("lists every referenced name once, in order of appearance", () => {
    expect(names("sum(amount) / count(*) + margin")).toEqual(["amount", "margin"]);
    expect(names("COUNT(x) WHERE code IN ('LAX', 'ORD') AND x > y")).toEqual(["x", "code", "y"]);
    expect(names("CASE WHEN a > 1 THEN b ELSE a END")).toEqual(["a", "b"]);
    expect(names('sum("my field") + sum(my_field)')).toEqual(["my field", "my_field"]);
    expect(names("1 + 2")).toEqual([]);
  });
});
