import { describe, expect, it } from "vitest";
import { applyMergePatch } from "../../../src/domain/merge-patch";

describe("applyMergePatch (RFC 7396)", () => {
  it("replaces the members the patch names and keeps the others", () => {
    expect(applyMergePatch({ a: 1, b: "x" }, { a: 2 })).toEqual({ a: 2, b: "x" });
  });

  it("deletes a member set to null", () => {
    expect(applyMergePatch({ a: 1, b: 2 }, { a: null })).toEqual({ b: 2 });
    expect(applyMergePatch({ a: { b: 1, c: 2 } }, { a: { b: null } })).toEqual({ a: { c: 2 } });
  });

  it("merges nested objects", () => {
    expect(applyMergePatch({ a: { b: 1, c: { d: 1, e: 2 } } }, { a: { c: { d: 9 } } })).toEqual({ a: { b: 1, c: { d: 9, e: 2 } } });
  });

  it("replaces arrays whole", () => {
    expect(applyMergePatch({ a: [1, 2, 3] }, { a: [4] })).toEqual({ a: [4] });
    expect(applyMergePatch({ a: [{ b: 1, c: 2 }] }, { a: [{ b: 3 }] })).toEqual({ a: [{ b: 3 }] });
  });

  it("an object patch replacing a non-object member drops its own nulls", () => {
    expect(applyMergePatch({ a: "text" }, { a: { b: 1, c: null } })).toEqual({ a: { b: 1 } });
  });

  it("a patch that is not an object replaces the target", () => {
    expect(applyMergePatch({ a: 1 }, ["x"])).toEqual(["x"]);
    expect(applyMergePatch({ a: 1 }, "x")).toBe("x");
    expect(applyMergePatch({ a: 1 }, null)).toBeNull();
  });

  it("leaves its arguments unchanged", () => {
    const target = { a: { b: 1 } };
    const patch = { a: { b: null, c: 2 } };
    applyMergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { b: null, c: 2 } });
  });

  // The examples of RFC 7396 appendix A.
  it.each([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("RFC 7396 example %#", (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });
});
