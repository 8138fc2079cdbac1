import { describe, expect, it } from "vitest";
import { ansiDialect, dialectOf, materializedViewQuery, postgresqlDialect, sqlSourceOf, tableOfEntities, type StoredItem } from "../../../src/domain/sql";

const native = (name: string, dataType: string, column = name): StoredItem => ({ name, kind: "FIELD", dataType, body: { origin: { type: "NATIVE", nativeOrigin: { originalName: column } } } });

describe("tableOfEntities", () => {
  it("splits schema and table at the first dot, takes a bare table, and says why there is none", () => {
    expect(tableOfEntities(["public.orders"])).toEqual({ table: { schema: "public", name: "orders" } });
    expect(tableOfEntities(["a.b.c"])).toEqual({ table: { schema: "a", name: "b.c" } });
    expect(tableOfEntities(["orders"])).toEqual({ table: { name: "orders" } });
    expect(tableOfEntities([])).toEqual({ none: true });
    expect(tableOfEntities(["x.a", "y.b"])).toEqual({ several: ["x.a", "y.b"] });
  });
});

describe("dialectOf", () => {
  it("writes PostgreSQL for PostgreSQL's connectors and ANSI otherwise", () => {
    expect(dialectOf("postgresql")).toBe(postgresqlDialect);
    expect(dialectOf("postgresql-hyperdrive")).toBe(postgresqlDialect);
    expect(dialectOf("http-json")).toBe(ansiDialect);
    expect(dialectOf(undefined)).toBe(ansiDialect);
  });
});

describe("sqlSourceOf", () => {
  const items: StoredItem[] = [
    native("customer", "ATTRIBUTE", "customer_id"),
    native("amount", "NUMBER"),
    { name: "net", kind: "FIELD", dataType: "NUMBER", body: { origin: { type: "DERIVED", derivedOrigin: { expression: "amount * 0.8" } } } },
    { name: "Revenue", kind: "METRIC", dataType: "NUMBER", body: { expression: "sum(net)" } },
    { name: "broken", kind: "METRIC", dataType: "NUMBER", body: { expression: "sum(" } },
  ];

  it("writes native fields as their columns, parses derived fields and metrics, and types every item", () => {
    const source = sqlSourceOf({ name: "orders" }, items);
    expect(source.fields.get("customer")).toEqual({ kind: "NATIVE", column: "customer_id" });
    expect(source.fields.get("net")).toMatchObject({ kind: "DERIVED" });
    expect([...source.metrics.keys()]).toEqual(["Revenue"]);
    expect([...source.types!.fields.keys()]).toEqual(["customer", "amount", "net"]);
    expect([...source.types!.metrics.keys()]).toEqual(["Revenue", "broken"]);
  });

  it("gives materializedViewQuery what it writes a view's SQL from", () => {
    const query = materializedViewQuery(
      { type: "AGG", aggregations: [{ type: "TERMS", field: { name: "customer" } }], metrics: [{ formulaName: "Revenue" }, { type: "SUM", field: { name: "amount" } }] },
      sqlSourceOf({ schema: "sales", name: "orders" }, items),
      postgresqlDialect,
    );
    expect(query).toContain('"customer_id"');
    expect(query).toContain('"sales"."orders"');
    expect(query).toMatch(/0\.8/);
  });
});
