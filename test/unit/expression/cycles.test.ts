import { describe, expect, it } from "vitest";
import { findMetricCycle } from "../../../src/domain/expression";

const graphOf = (entries: Record<string, string[]>): ReadonlyMap<string, readonly string[]> => new Map(Object.entries(entries));

describe("findMetricCycle", () => {
  it("returns null when no cycle is created", () => {
    expect(findMetricCycle("a", [], graphOf({}))).toBeNull();
    expect(findMetricCycle("a", ["b", "c"], graphOf({ b: ["c"], c: [] }))).toBeNull();
    expect(findMetricCycle("a", ["b", "c"], graphOf({ b: ["d"], c: ["d"], d: [] }))).toBeNull();
  });

  it("reports a self reference", () => {
    expect(findMetricCycle("a", ["a"], graphOf({}))).toEqual(["a", "a"]);
  });

  it("reports a cycle through other metrics as a path", () => {
    expect(findMetricCycle("a", ["b"], graphOf({ b: ["a"] }))).toEqual(["a", "b", "a"]);
    expect(findMetricCycle("a", ["x", "b"], graphOf({ x: [], b: ["c"], c: ["a"] }))).toEqual(["a", "b", "c", "a"]);
  });

  it("reports the shortest cycle", () => {
    const graph = graphOf({ b: ["c"], c: ["d"], d: ["a"], e: ["a"] });
    expect(findMetricCycle("a", ["b", "e"], graph)).toEqual(["a", "e", "a"]);
  });

  it("uses the new references instead of the graph's old entry for the metric", () => {
    const graph = graphOf({ a: ["b"], b: ["c"], c: [] });
    expect(findMetricCycle("a", ["c"], graph)).toBeNull();
    expect(findMetricCycle("c", ["a"], graph)).toEqual(["c", "a", "b", "c"]);
  });

  it("ignores cycles that do not pass through the metric", () => {
    expect(findMetricCycle("a", ["b"], graphOf({ b: ["c"], c: ["b"] }))).toBeNull();
  });

  it("handles long chains without recursion", () => {
    const length = 20_000;
    const entries = new Map<string, readonly string[]>();
    for (let index = 0; index < length; index += 1) entries.set(`m${index}`, [`m${index + 1}`]);
    entries.set(`m${length}`, ["start"]);
    const cycle = findMetricCycle("start", ["m0"], entries);
    expect(cycle).toHaveLength(length + 3);
    expect(cycle?.[0]).toBe("start");
    expect(cycle?.at(-1)).toBe("start");
    expect(findMetricCycle("other", ["m0"], entries)).toBeNull();
  });
});
