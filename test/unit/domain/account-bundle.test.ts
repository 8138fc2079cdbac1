import { describe, expect, it } from "vitest";
import { canonicalJson, folderPaths, principalNamer, sortedBy, withoutEmpty } from "../../../src/domain/transfer/account-bundle";

describe("account bundle rules", () => {
  it("canonical JSON: members in code-point order at every depth, arrays kept, raw values as their text", () => {
    const data = {};
    const text = canonicalJson({ b: 1, a: { z: [3, { y: 1, x: 2 }], é: true, E: null }, d: data, u: undefined }, new Map([[data, '{"n":1.0, "big":12345678901234567890}']]));
    expect(text).toBe('{"a":{"E":null,"z":[3,{"x":2,"y":1}],"é":true},"b":1,"d":{"n":1.0, "big":12345678901234567890}}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it("sorts by code points, tuple keys in turn", () => {
    expect(sortedBy(["b", "B", "a", "ä"], (s) => s)).toEqual(["B", "a", "b", "ä"]);
    expect(sortedBy([["x", "2"], ["x", "10"], ["w"]], (k) => k)).toEqual([["w"], ["x", "10"], ["x", "2"]]);
    // A string key and a one-name tuple order alike; a shorter tuple first where the longer goes on.
    expect(sortedBy(["x", ["w", "a"], ["w"], "v"], (k) => k)).toEqual(["v", ["w"], ["w", "a"], "x"]);
    const one = [{ n: "a" }];
    expect(sortedBy(one, (o) => o.n)).not.toBe(one);
  });

  it("a folder's path is its names from the root; a name may hold a slash", () => {
    const paths = folderPaths([
      { id: "3", parentId: "2", name: "a/b" },
      { id: "1", parentId: null, name: "Sales" },
      { id: "2", parentId: "1", name: "Europe" },
    ]);
    expect(paths.get("3")).toEqual(["Sales", "Europe", "a/b"]);
    expect(paths.get("1")).toEqual(["Sales"]);
  });

  it("names grantees, and drops empty members", () => {
    const name = principalNamer([{ id: "u", name: "alice" }], [{ id: "g", name: "Analysts" }]);
    expect([name("USER", "u"), name("GROUP", "g"), name("GROUP", "u"), name("ROLE", "u")]).toEqual(["alice", "Analysts", undefined, undefined]);
    // Members keep their order (the bundle's text is its members in the order they are written).
    expect(Object.keys(withoutEmpty({ z: 1, a: null, b: undefined, c: 0, d: "" }))).toEqual(["z", "c", "d"]);
  });
});
