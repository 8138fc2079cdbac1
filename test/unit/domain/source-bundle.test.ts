import { describe, expect, it } from "vitest";
import { actionFor, checkBundledItems, insertionFor, statusOf } from "../../../src/domain/source-bundle";

const native = (name: string, originalType = "INT") => ({ name, origin: { type: "NATIVE" as const, nativeOrigin: { originalName: name, originalType } } });
const derived = (name: string, expression: string) => ({ name, origin: { type: "DERIVED" as const, derivedOrigin: { expression } } });

describe("source bundle rules", () => {
  it("takes the most specific strategy, and the default without settings", () => {
    const settings = { globalLevel: { ifExists: "UPDATE", ifDoesNotExist: "CREATE" }, objectLevel: { sources: { s1: { ifExists: "REUSE", ifDoesNotExist: "CREATE" } } } } as const;
    expect(insertionFor(settings, "sources", "s1").ifExists).toBe("REUSE");
    expect(insertionFor(settings, "sources", "s2").ifExists).toBe("UPDATE");
    expect(insertionFor(undefined, "connections", "c1")).toEqual({ ifExists: "REUSE", ifDoesNotExist: "CREATE" });
  });

  it("refuses CREATE over a taken name and REUSE/UPDATE of nothing; names dry-run statuses as the reference does", () => {
    expect(actionFor({ ifExists: "CREATE", ifDoesNotExist: "CREATE" }, true, "source", "S")).toHaveProperty("problem");
    expect(actionFor({ ifExists: "REUSE", ifDoesNotExist: "UPDATE" }, false, "source", "S")).toHaveProperty("problem");
    expect(actionFor({ ifExists: "UPDATE", ifDoesNotExist: "CREATE" }, true, "source", "S")).toBe("UPDATE");
    expect([statusOf("CREATE", true), statusOf("REUSE", false), statusOf(undefined, true)]).toEqual(["CAN_BE_CREATED", "REUSED", "FAILED"]);
  });

  it("checks items in dependency order, whatever order the bundle lists them in", () => {
    const { items, problems } = checkBundledItems([derived("b", "a * 2"), native("a")], [{ name: "m2", expression: "m1 + 1" }, { name: "m1", expression: "sum(b)" }]);
    expect(problems).toEqual([]);
    expect(items.map((i) => i.name)).toEqual(["a", "b", "m1", "m2"]);
    expect(items.find((i) => i.name === "m2")?.references).toEqual({ kind: "CUSTOM_METRIC", names: ["m1"] });
  });

  it("names cycles, unknown names, duplicates and contradicting types", () => {
    expect(checkBundledItems([derived("x", "y + 1"), derived("y", "x + 1")], []).problems.length).toBeGreaterThan(0);
    expect(checkBundledItems([native("a")], [{ name: "m", expression: "sum(nope)" }]).problems[0]?.member).toBe("customMetrics[0].expression");
    expect(checkBundledItems([native("a")], [{ name: "a", expression: "count(*)" }]).problems[0]?.member).toBe("customMetrics[0].name");
    expect(checkBundledItems([{ ...native("a"), dataType: "TIME" }], []).problems).toEqual([]);
    expect(checkBundledItems([native("a")], [{ name: "m", expression: "sum(a)", dataType: "TIME" }]).problems[0]?.member).toBe("customMetrics[0].dataType");
  });
});
