// Types of scripts/bench-odds.mjs, for its unit test (test/unit/bench/bench-odds.test.ts).
import type { Run } from "./bench-runs.d.mts";
export interface Odds {
  factor: number;
  allAtTarget: number;
  meanBelow: number;
}
export declare function verdictOdds(runs: Run[], options?: { factors?: number[]; trials?: number; rounds?: number; runsPerVerdict?: number; random?: () => number }): Odds[];
export declare function formatOdds(odds: Odds[], counts: { slices: number; rows: number; trials: number }): string;
