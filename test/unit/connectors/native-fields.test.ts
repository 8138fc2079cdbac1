import { describe, expect, it } from "vitest";
import { nativeFieldsOf } from "../../../src/domain/connectors/native-fields";
import { FIELD_NAME_PATTERN } from "../../../src/domain/source-fields";

describe("nativeFieldsOf", () => {
  it("makes valid, unique field names, keeps the column's own name and type, and names the table", () => {
    const fields = nativeFieldsOf("sales", "orders", [
      { name: "Order Date", nativeType: "timestamp without time zone" },
      { name: "Order-Date", nativeType: "date" },
      { name: "Volume", nativeType: "integer" },
      { name: "amount", nativeType: "numeric(10,2)" },
      { name: "2nd", nativeType: "text" },
      { name: 'a "quoted" column', nativeType: "character varying(20)" },
    ], ["Volume"]);
    expect(fields.map((f) => f.name)).toEqual(["Order_Date", "Order_Date_2", "Volume_2", "amount", "_2nd", "a_quoted_column"]);
    for (const field of fields) expect(field.name).toMatch(FIELD_NAME_PATTERN);
    expect(fields.map((f) => f.dataType)).toEqual(["TIME", "TIME", "INTEGER", "NUMBER", "TEXT", "ATTRIBUTE"]);
    expect(fields[0]).toEqual({
      name: "Order_Date",
      label: "Order Date",
      dataType: "TIME",
      origin: { type: "NATIVE", nativeOrigin: { originalName: "Order Date", originalType: "timestamp without time zone", dataEntityId: "sales.orders" } },
    });
  });

  it("gives a column whose name is not one line of text a label made from its field name", () => {
    const [field] = nativeFieldsOf("s", "t", [{ name: "line\nbreak", nativeType: "text" }], []);
    expect(field).toMatchObject({ name: "line_break", label: "Line Break" });
  });
});
