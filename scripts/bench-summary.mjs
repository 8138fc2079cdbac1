// npm run bench:summary [FILE ...]: each row's median over several runs of `npm run bench`, the rows
// below their target by it, and the worst row (scripts/bench-runs.mjs). FILEs are the runs' records
// (.json, as `npm run bench` saves them in bench-runs/) or what a run printed (its progress lines
// and CPU table). Without FILEs: the newest three records in bench-runs/. Given control runs
// (bench-runs/control/, BENCH_CONTROL=1), it also prints the verdict's odds under their noise (scripts/bench-odds.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { formatSummary, RUNS_DIRECTORY, runFromText, summarize } from "./bench-runs.mjs";
import { formatOdds, verdictOdds } from "./bench-odds.mjs";

const NEWEST = 3;
let files = process.argv.slice(2);
if (files.length === 0) {
  let saved = [];
  try {
    saved = readdirSync(RUNS_DIRECTORY).filter((name) => name.endsWith(".json")).sort();
  } catch {
    // No run saved yet: said below.
  }
  files = saved.slice(-NEWEST).map((name) => join(RUNS_DIRECTORY, name));
  if (files.length === 0) {
    console.error(`No run saved in ${RUNS_DIRECTORY}/: run npm run bench (three times, for the median of three), or name the runs' files.`);
    process.exit(2);
  }
}
const runs = files.map((file) => {
  const text = readFileSync(file, "utf8");
  return file.endsWith(".json") ? JSON.parse(text) : runFromText(text, file);
});
const summary = summarize(runs);
console.log(formatSummary(summary, files.map((file) => basename(file))));
// Control runs (BENCH_CONTROL=1): what their noise alone makes of the verdict.
if (runs.every((run) => run.knobs?.control)) {
  const TRIALS = 2000;
  const slices = runs.reduce((n, run) => n + run.rows.reduce((m, row) => m + row.rounds.length, 0), 0);
  console.log(`\n${formatOdds(verdictOdds(runs, { trials: TRIALS }), { slices, rows: summary.rows.length, trials: TRIALS })}`);
}
