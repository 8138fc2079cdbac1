import { describe, expect, it } from "vitest";
import { formatOdds, verdictOdds } from "../../../scripts/bench-odds.mjs";

/** A control run: each row's slices as measured (the floor against itself). */
const controlRun = (rows: Array<[string, number[]]>) => ({
  knobs: { seconds: 1.5, rounds: 3, concurrency: 8, routes: null, control: true },
  rows: rows.map(([route, rounds]) => ({ route, target: route.startsWith("GET ") ? 0.9 : 0.85, ratio: rounds[1], rounds })),
});

/** A random source that walks through `values` in turn: the draws are known. */
const cycling = (values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length];
};

describe("the verdict's odds under the bench's noise (scripts/bench-odds.mjs)", () => {
  it("reads every row at target when no slice strays, and a factor under a read's target puts the reads below, not the writes", () => {
    const runs = [controlRun([["GET /a", [1, 1, 1]], ["GET /b", [1, 1, 1]], ["POST /c", [1, 1, 1]]])];
    expect(verdictOdds(runs, { factors: [1, 0.88], trials: 50 })).toEqual([
      { factor: 1, allAtTarget: 1, meanBelow: 0 },
      { factor: 0.88, allAtTarget: 0, meanBelow: 2 },
    ]);
  });

  it("takes the median of a run's rounds, then of the runs: one low slice in each run does not put a row below", () => {
    // Slices 0.5, 1 and 1 in turn: every run of three draws one of each, so each run's median is 1.
    const runs = [controlRun([["GET /a", [0.5, 1, 1]]])];
    const [odds] = verdictOdds(runs, { factors: [1], trials: 10, random: cycling([0, 0.4, 0.9]) });
    expect(odds).toEqual({ factor: 1, allAtTarget: 1, meanBelow: 0 });
  });

  it("puts a row below when most of its slices are low", () => {
    // Draws 0.5, 0.5, 1 in turn: each run's median is 0.5, so is the row's.
    const runs = [controlRun([["GET /a", [0.5, 1, 1]]])];
    const [odds] = verdictOdds(runs, { factors: [1], trials: 10, random: cycling([0, 0.1, 0.9]) });
    expect(odds).toEqual({ factor: 1, allAtTarget: 0, meanBelow: 1 });
  });

  it("pools the slices of every run and row, and counts each row once however many runs measured it", () => {
    const runs = [controlRun([["GET /a", [0.5, 0.5, 0.5]]]), controlRun([["GET /a", [1, 1, 1]], ["POST /b", [1, 1, 1]]])];
    // Draws always from the last slice of the pool (the second run's POST, 1): both rows at target.
    expect(verdictOdds(runs, { factors: [1], trials: 5, random: () => 0.999 })).toEqual([{ factor: 1, allAtTarget: 1, meanBelow: 0 }]);
    // Always from the first (the first run's GET, 0.5): both rows below.
    expect(verdictOdds(runs, { factors: [1], trials: 5, random: () => 0 })).toEqual([{ factor: 1, allAtTarget: 0, meanBelow: 2 }]);
  });

  it("prints each factor's share of verdicts with every row at target", () => {
    const text = formatOdds([{ factor: 0.95, allAtTarget: 0.125, meanBelow: 7.25 }], { slices: 1161, rows: 129, trials: 2000 });
    expect(text).toContain("1161 slices (2000 trials; each of the 129 rows read from three runs of three slices)");
    expect(text).toContain("a Worker at 0.95 of its floor: every row at target in 12.5 % of verdicts; 7.3 rows below on average");
  });
});
