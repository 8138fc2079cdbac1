import { describe, expect, it } from "vitest";
import { inferColumns, isIsoDateTime, recordsOfDocument, rowsOfRecords, typeOfValue } from "../../../src/domain/connectors/json-columns";

describe("typeOfValue", () => {
  it.each([
    [1, "INTEGER"],
    [-0, "INTEGER"],
    [1.5, "NUMBER"],
    [1e20, "NUMBER"], // beyond exact integers
    [true, "BOOLEAN"],
    ["text", "TEXT"],
    ["2024-01-15", "TIME"],
    ["2024-01-15T10:00:00Z", "TIME"],
    ["2024-01-15 10:00:00.123+01:00", "TIME"],
    [{ a: 1 }, "JSON"],
    [[1, 2], "JSON"],
  ])("%j is %s", (value, type) => {
    expect(typeOfValue(value)).toBe(type);
  });
});

describe("isIsoDateTime", () => {
  it.each(["2024-02-29", "2024-12-31T23:59:59Z", "2024-01-15T10:00", "2024-01-15T10:00:00.123456789-05:30", "2024-01-15T10:00:00+0100"])("%s is a date", (text) => {
    expect(isIsoDateTime(text)).toBe(true);
  });

  it.each(["2023-02-29", "2024-13-01", "2024-00-10", "2024-01-32", "2024-01-15T24:00", "2024-01-15T10:60", "15/01/2024", "2024-1-5", "20240115", "2024-01-15T10", "yesterday", ""])(
    "%j is not",
    (text) => {
      expect(isIsoDateTime(text)).toBe(false);
    },
  );
});

describe("inferColumns", () => {
  it("keeps the order of first appearance and widens types", () => {
    const columns = inferColumns([
      { id: 1, amount: 2, when: "2024-01-01", label: "a", flag: true },
      { id: 2, amount: 2.5, when: "not a date", label: 3, extra: "x", flag: false },
    ]);
    expect(columns).toEqual([
      { name: "id", nativeType: "INTEGER", nullable: false },
      { name: "amount", nativeType: "NUMBER", nullable: false },
      { name: "when", nativeType: "TEXT", nullable: false },
      { name: "label", nativeType: "TEXT", nullable: false },
      { name: "flag", nativeType: "BOOLEAN", nullable: false },
      { name: "extra", nativeType: "TEXT", nullable: true },
    ]);
  });

  it("is nullable when a member is null or missing; an all-null column is TEXT", () => {
    expect(inferColumns([{ a: null, b: 1 }, { a: null }])).toEqual([
      { name: "a", nativeType: "TEXT", nullable: true },
      { name: "b", nativeType: "INTEGER", nullable: true },
    ]);
  });

  it("makes JSON of any mix with objects or arrays", () => {
    expect(inferColumns([{ v: 1 }, { v: { x: 1 } }])[0].nativeType).toBe("JSON");
    expect(inferColumns([{ v: [1] }, { v: "s" }])[0].nativeType).toBe("JSON");
    expect(inferColumns([{ v: true }, { v: 1 }])[0].nativeType).toBe("TEXT");
  });

  it("has no columns for no records", () => {
    expect(inferColumns([])).toEqual([]);
  });

  it("treats member names as data, __proto__ included", () => {
    const record = JSON.parse('{"__proto__": 1, "constructor": "x"}') as Record<string, unknown>;
    expect(inferColumns([record]).map((c) => c.name)).toEqual(["__proto__", "constructor"]);
  });
});

describe("recordsOfDocument", () => {
  it("reads an array of objects as its records", () => {
    expect(recordsOfDocument([{ a: 1 }, { a: 2 }])).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it("reads an object's first member that is an array of objects as its records", () => {
    expect(recordsOfDocument({ total: 2, tags: ["x"], rows: [{ a: 1 }, { a: 2 }], more: [{ b: 1 }] })).toEqual([{ a: 1 }, { a: 2 }]);
    expect(recordsOfDocument({ rows: [] })).toEqual([]);
  });

  it("reads an object without such a member as one record, and anything else as none", () => {
    expect(recordsOfDocument({ name: "Ada", tags: [1, 2] })).toEqual([{ name: "Ada", tags: [1, 2] }]);
    expect(recordsOfDocument([1, 2])).toEqual([]);
    expect(recordsOfDocument("text")).toEqual([]);
    expect(recordsOfDocument(null)).toEqual([]);
  });
});

describe("rowsOfRecords", () => {
  it("gives the first rows in the order of the columns of all records, null where a record lacks a member", () => {
    const records = [{ a: 1 }, { b: "x", a: 2 }, { c: true }];
    expect(rowsOfRecords(records, 2)).toEqual({
      columns: inferColumns(records),
      rows: [
        [1, null, null],
        [2, "x", null],
      ],
    });
  });
});
