// Types of scripts/bench-runs.mjs, for its unit test (test/unit/bench/bench-runs.test.ts).
export interface RunRow {
  route: string;
  target: number;
  ratio: number;
  rounds: number[];
  rps?: number;
  floorRps?: number;
  trips?: number;
  failed?: number;
  cpu?: { service: number; floor: number };
}
export interface Run {
  time?: string;
  commit?: string;
  knobs?: { seconds: number; rounds: number; concurrency: number; routes: string | null; control?: boolean };
  rows: RunRow[];
}
export interface SummaryRow {
  route: string;
  target: number;
  ratios: number[];
  median: number;
  cpuGap?: number;
  below: boolean;
}
export interface Summary {
  runs: number;
  rows: SummaryRow[];
  below: SummaryRow[];
  worst?: SummaryRow;
  worstSingle?: { route: string; target: number; ratio: number; run: number };
  median: number;
  warnings: string[];
}
export declare const RUNS_DIRECTORY: string;
export declare const CONTROL_RUNS_DIRECTORY: string;
export declare function targetOf(method: string): number;
export declare function runRecord(rows: unknown[], meta: { time: string; commit?: string; knobs: Run["knobs"] }): Run;
export declare function saveRun(record: Run, directory?: string): string;
export declare function currentCommit(): string | undefined;
export declare function runFromText(text: string, name: string): Run;
export declare function summarize(runs: Run[]): Summary;
export declare function formatSummary(summary: Summary, names: string[]): string;
export declare function ratioText(ratio: number): string;
