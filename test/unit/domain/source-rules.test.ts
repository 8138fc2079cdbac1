import { describe, expect, it } from "vitest";
import {
  dataTypeOfNativeType,
  defaultMetricFor,
  FIELD_NAME_PATTERN,
  firstFreeName,
  labelFromName,
  nameFromText,
} from "../../../src/domain/source-fields";
import { canEditMetrics, effectivePermission } from "../../../src/domain/source-permissions";

describe("source permissions", () => {
  it("gives WRITE to admins, owners and WRITE grants, READ to READ grants, NONE otherwise", () => {
    expect(effectivePermission({ isAccountAdmin: true, isOwner: false, grants: [] })).toBe("WRITE");
    expect(effectivePermission({ isAccountAdmin: false, isOwner: true, grants: [] })).toBe("WRITE");
    expect(effectivePermission({ isAccountAdmin: false, isOwner: false, grants: ["READ", "WRITE"] })).toBe("WRITE");
    expect(effectivePermission({ isAccountAdmin: false, isOwner: false, grants: ["READ"] })).toBe("READ");
    expect(effectivePermission({ isAccountAdmin: false, isOwner: false, grants: [] })).toBe("NONE");
  });

  it("lets WRITE, or READ with ROLE_EDIT_FORMULAS, edit metrics (E1's four combinations)", () => {
    expect(canEditMetrics("WRITE", false)).toBe(true);
    expect(canEditMetrics("READ", true)).toBe(true);
    expect(canEditMetrics("READ", false)).toBe(false);
    expect(canEditMetrics("NONE", true)).toBe(false);
  });
});

describe("field naming", () => {
  it("makes valid names from free text", () => {
    expect(nameFromText("Order Date")).toBe("Order_Date");
    expect(nameFromText("  2024 revenue (€)  ")).toBe("_2024_revenue");
    expect(nameFromText("Straße.Ort")).toBe("Straße.Ort");
    expect(nameFromText("???")).toBe("");
    for (const text of ["a b", "1x", "é-ü", "x".repeat(400)]) {
      const name = nameFromText(text);
      expect(name).toMatch(FIELD_NAME_PATTERN);
      expect([...name].length).toBeLessThanOrEqual(255);
    }
  });

  it("picks the first free suffix", () => {
    expect(firstFreeName("amount", new Set())).toBe("amount");
    expect(firstFreeName("amount", new Set(["amount", "amount_2"]))).toBe("amount_3");
    expect(firstFreeName("", new Set())).toBe("field");
    expect([...firstFreeName("y".repeat(255), new Set(["y".repeat(255)]))].length).toBe(255);
  });

  it("generates labels from names", () => {
    expect(labelFromName("order_date")).toBe("Order Date");
    expect(labelFromName("orderDate")).toBe("Order Date");
    expect(labelFromName("_")).toBe("_");
  });
});

describe("field types", () => {
  it("maps native database types", () => {
    expect(dataTypeOfNativeType("BIGINT")).toBe("INTEGER");
    expect(dataTypeOfNativeType("decimal(10,2)")).toBe("NUMBER");
    expect(dataTypeOfNativeType("timestamp")).toBe("TIME");
    expect(dataTypeOfNativeType("VARCHAR(20)")).toBe("ATTRIBUTE");
    expect(dataTypeOfNativeType(undefined)).toBe("ATTRIBUTE");
  });

  it("defaults the metric to SUM for numbers and COUNT otherwise", () => {
    expect(defaultMetricFor("NUMBER")).toBe("sum");
    expect(defaultMetricFor("INTEGER")).toBe("sum");
    expect(defaultMetricFor("ATTRIBUTE")).toBe("count");
    expect(defaultMetricFor("TIME")).toBe("count");
  });
});
