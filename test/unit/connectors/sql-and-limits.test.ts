import { describe, expect, it } from "vitest";
import { DEFAULT_PREVIEW_ROWS, MAX_PREVIEW_ROWS, previewRowLimit } from "../../../src/domain/connectors/preview-limit";
import { qualifiedName, quoteIdentifier } from "../../../src/domain/connectors/sql-identifiers";

describe("quoteIdentifier", () => {
  it.each([
    ["orders", '"orders"'],
    ["Orders", '"Orders"'],
    ['odd "name"', '"odd ""name"""'],
    ["a.b", '"a.b"'], // one name, not schema a and table b
    ['x"; DROP TABLE t; --', '"x""; DROP TABLE t; --"'],
    ['"', '""""'],
    ["名前 with spaces", '"名前 with spaces"'],
  ])("%j becomes %s", (name, quoted) => {
    expect(quoteIdentifier(name)).toBe(quoted);
  });

  it("refuses names PostgreSQL cannot have", () => {
    expect(() => quoteIdentifier("")).toThrow(RangeError);
    expect(() => quoteIdentifier("a\u0000b")).toThrow(RangeError);
  });

  it("qualifies a table by its schema", () => {
    expect(qualifiedName("sales", 'odd "t".x')).toBe('"sales"."odd ""t"".x"');
  });
});

describe("previewRowLimit", () => {
  it("defaults, caps, and refuses what is not a whole number from 1", () => {
    expect(previewRowLimit(undefined)).toBe(DEFAULT_PREVIEW_ROWS);
    expect(previewRowLimit(1)).toBe(1);
    expect(previewRowLimit(MAX_PREVIEW_ROWS)).toBe(1000);
    expect(previewRowLimit(1001)).toBe(1000);
    expect(previewRowLimit(Number.MAX_SAFE_INTEGER)).toBe(1000);
    for (const bad of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(previewRowLimit(bad)).toBeUndefined();
  });
});
