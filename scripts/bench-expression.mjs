// CPU time of validating a ~1,000-character custom-metric expression, measured in Node on the
// same module the Worker uses (bundled on the fly with esbuild).
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export async function measureExpressionCpu() {
  const dir = mkdtempSync(join(tmpdir(), "amapi-expr-"));
  try {
    const outfile = join(dir, "expression.mjs");
    await build({ entryPoints: ["src/domain/expression/index.ts"], bundle: true, format: "esm", platform: "neutral", outfile, logLevel: "silent" });
    const { checkExpression } = await import(pathToFileURL(outfile).href);
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
