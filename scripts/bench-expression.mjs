// CPU time of validating a ~1,000-character custom-metric expression, measured in Node on the
// same module the Worker uses (bundled on the fly with esbuild).
import { importTypeScriptOnce } from "./import-typescript.mjs";

export async function measureExpressionCpu() {
  const { checkExpression } = await importTypeScriptOnce(`export * from "./src/domain/expression/index.ts";`);
  const fields = new Map();
  for (let i = 0; i < 50; i++) fields.set(`field_${i}`, { dataType: i % 2 ? "NUMBER" : "ATTRIBUTE" });
  const metrics = new Map([["Volume", { dataType: "INTEGER" }]]);
  const terms = [];
  for (let i = 1; terms.join(" + ").length < 1000; i += 2) {
    terms.push(`CASE WHEN max(field_${i}) > 10 THEN sum(field_${i}) ELSE avg(field_${i}) * 2 END`);
    terms.push(`(count(field_${i - 1}) WHERE field_${i - 1} IN ('a', 'b'))`);
  }
  const expression = `(${terms.join(" + ")}) / Volume`;
  const context = { fields, metrics };
  const once = checkExpression(expression, context, "aggregate");
  if (!once.ok) throw new Error(`benchmark expression is invalid: ${once.error.message}`);
  for (let i = 0; i < 200; i++) checkExpression(expression, context, "aggregate");
  const iterations = 2000;
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) checkExpression(expression, context, "aggregate");
  const used = process.cpuUsage(before);
  return { length: expression.length, iterations, microseconds: (used.user + used.system) / iterations };
}
