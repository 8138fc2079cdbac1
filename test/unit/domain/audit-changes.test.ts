import { describe, expect, it } from "vitest";
import { diffMembers, sameJson, secretChanged } from "../../../src/domain/audit/changes";

/** The JSON text with object members in key order: what "the same JSON" means. */
function canonicalText(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}

describe("sameJson", () => {
  it("compares objects by their members in any order, and undefined members as absent", () => {
    expect(sameJson({ a: 1, b: [1, { c: "x", d: null }] }, { b: [1, { d: null, c: "x" }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameJson({}, [])).toBe(false);
  });

  it("compares arrays by their elements in order", () => {
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson([[1], { a: [2] }], [[1], { a: [2] }])).toBe(true);
  });

  it("takes undefined and null for the same, and numbers as JSON writes them", () => {
    expect(sameJson(undefined, null)).toBe(true);
    expect(sameJson(0, -0)).toBe(true);
    expect(sameJson(1, "1")).toBe(false);
    expect(sameJson(true, 1)).toBe(false);
    expect(sameJson("", null)).toBe(false);
  });

  it("agrees with comparing key-ordered JSON texts", () => {
    const values: unknown[] = [null, 0, 1, 1.5, "", "a", true, false, [], {}, [1, "a"], ["a", 1], { a: 1 }, { a: "1" }, { a: [1, 2], b: { c: null } }, { b: { c: null }, a: [1, 2] }, { a: [2, 1] }, [{ a: 1 }, { b: 2 }], [{ b: 2 }, { a: 1 }], { x: { y: { z: [true] } } }, { x: { y: { z: [false] } } }];
    for (const a of values) for (const b of values) expect(sameJson(a, b), `${canonicalText(a)} vs ${canonicalText(b)}`).toBe(canonicalText(a) === canonicalText(b));
  });
});

describe("diffMembers", () => {
  it("lists the members that changed, in name order, without bookkeeping members", () => {
    const before = { name: "a", tags: ["x"], revision: "r1", lastModifiedDate: "d1", meta: { k: 1 } };
    const after = { tags: ["x", "y"], name: "b", revision: "r2", lastModifiedDate: "d2", meta: { k: 1 } };
    expect(diffMembers(before, after)).toEqual([
      { member: "name", before: "a", after: "b" },
      { member: "tags", before: ["x"], after: ["x", "y"] },
    ]);
  });

  it("shows a secret member as changed, never its values, and leaves ignored members out", () => {
    expect(diffMembers({ password: "p1", note: "n1", x: 1 }, { password: "p2", note: "n2", x: 2 }, { secret: ["password"], ignore: ["note"] })).toEqual([
      { member: "password", changed: true },
      { member: "x", before: 1, after: 2 },
    ]);
    expect(secretChanged("password")).toEqual({ member: "password", changed: true });
  });

  it("shows a member that appears or goes away against null", () => {
    expect(diffMembers({ a: 1 }, { b: 2 })).toEqual([
      { member: "a", before: 1, after: null },
      { member: "b", before: null, after: 2 },
    ]);
    expect(diffMembers({ a: undefined }, { a: null })).toEqual([]);
  });
});
