// CPU time of a materialized view's SQL (sqlSourceOf, then materializedViewQuery): the real work of
// a view's create and PUT, which their floor does too (scripts/bench-floor). Measured in Node on the
// same module the Worker uses (bundled on the fly with esbuild), as the expression check is.
import { importTypeScriptOnce } from "./import-typescript.mjs";

export async function measureViewSqlCpu() {
  const { materializedViewQuery, sqlSourceOf, postgresqlDialect } = await importTypeScriptOnce(`export * from "./src/domain/sql/index.ts";`);
  // A source of 20 native fields, 2 derived fields and 2 custom metrics; a view grouping by two
  // fields with three metrics (one a formula) and two filters.
  const native = (name, dataType) => ({ name, kind: "FIELD", dataType, body: { origin: { type: "NATIVE", nativeOrigin: { originalName: name } } } });
  const items = [
    ...Array.from({ length: 20 }, (_, i) => native(`field_${i}`, i % 2 ? "NUMBER" : "ATTRIBUTE")),
    { name: "margin", kind: "FIELD", dataType: "NUMBER", body: { origin: { type: "DERIVED", derivedOrigin: { expression: "field_1 - field_3 * 0.2" } } } },
    { name: "label", kind: "FIELD", dataType: "ATTRIBUTE", body: { origin: { type: "DERIVED", derivedOrigin: { expression: "CASE WHEN field_5 > 10 THEN 'big' ELSE 'small' END" } } } },
    { name: "Revenue", kind: "METRIC", dataType: "NUMBER", body: { expression: "sum(field_1) - sum(margin)" } },
    { name: "Orders", kind: "METRIC", dataType: "INTEGER", body: { expression: "count(field_0)" } },
  ];
  const definition = {
    type: "AGG",
    aggregations: [{ type: "TERMS", field: { name: "field_0" } }, { type: "TERMS", field: { name: "label" } }],
    metrics: [{ type: "SUM", field: { name: "margin" } }, { formulaName: "Revenue" }, { formulaName: "per_order", formula: "Revenue / Orders" }],
    filters: [{ path: { name: "field_2" }, operation: "IN", value: ["a", "b"] }, { path: { name: "field_7" }, operation: "GT", value: 5 }],
  };
  const once = () => materializedViewQuery(definition, sqlSourceOf({ schema: "public", name: "orders" }, items), postgresqlDialect);
  const query = once();
  for (let i = 0; i < 300; i++) once();
  const iterations = 3000;
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) once();
  const used = process.cpuUsage(before);
  return { length: query.length, iterations, microseconds: (used.user + used.system) / iterations };
}
