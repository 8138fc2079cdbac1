// The odds of issue 16's verdict (every row at target by its median over three runs) under the
// bench's noise alone, resampled from control runs (BENCH_CONTROL=1: the floor measured against a
// second floor, so each slice's ratio is noise around 1). `npm run bench:summary` prints them when the
// runs it combines are control runs (docs/performance.md, "The bench against itself").
import { median } from "./bench-harness/load.mjs";

/**
 * For each `factor` (a Worker whose every row is `factor` of its floor before noise), the share of
 * trials in which every row is at target, and the rows below it on average. A trial gives each row
 * of the runs `runsPerVerdict` runs of `rounds` slices, each slice a ratio drawn from all the control
 * runs' slices (every row's, pooled) times the factor, and reads the row as the bench and
 * bench:summary do: the median of its rounds, then the median of its runs, against its target.
 */
export function verdictOdds(runs, { factors = [1, 0.97, 0.95, 0.93], trials = 2000, rounds = 3, runsPerVerdict = 3, random = Math.random } = {}) {
  const slices = runs.flatMap((run) => run.rows.flatMap((row) => row.rounds));
  const targets = [...new Map(runs.flatMap((run) => run.rows.map((row) => [row.route, row.target]))).values()];
  if (slices.length === 0) throw new Error("no slice in the runs to resample");
  const draw = () => slices[Math.floor(random() * slices.length)];
  const rowMedian = (factor) => median(Array.from({ length: runsPerVerdict }, () => median(Array.from({ length: rounds }, () => draw() * factor))));
  return factors.map((factor) => {
    let allAtTarget = 0;
    let below = 0;
    for (let trial = 0; trial < trials; trial++) {
      // In whole millionths, as summarize decides a row's place against its target.
      const under = targets.filter((target) => !(Math.round(rowMedian(factor) * 1e6) / 1e6 >= target)).length;
      below += under;
      if (under === 0) allAtTarget++;
    }
    return { factor, allAtTarget: allAtTarget / trials, meanBelow: below / trials };
  });
}

/** The odds as bench:summary prints them. */
export function formatOdds(odds, { slices, rows, trials }) {
  const lines = [`Resampled from these control runs' ${slices} slices (${trials} trials; each of the ${rows} rows read from three runs of three slices):`];
  for (const { factor, allAtTarget, meanBelow } of odds) {
    lines.push(`  a Worker at ${factor.toFixed(2)} of its floor: every row at target in ${(allAtTarget * 100).toFixed(1)} % of verdicts; ${meanBelow.toFixed(1)} rows below on average`);
  }
  return lines.join("\n");
}
