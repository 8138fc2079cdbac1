// Types of scripts/bench-plan.mjs, for its unit test (test/unit/bench/bench-plan.test.ts).
export interface RecordedTrip {
  call: string;
  /** Where the service's D1 session started: "first-primary", "first-unconstrained" or "bookmark". */
  session?: string;
  statements: { sql: string; params: unknown[] }[];
  rows?: unknown[][];
}
export interface Sample {
  trips: RecordedTrip[];
  request: { path: string; body?: unknown };
}
export type PlanParam = { c: unknown } | { read: [number, number, number, string] } | { k: string } | { t: (string | { k: string } | { read: [number, number, number, string] })[] };
export interface Plan {
  trips: { call: string; session?: string; statements: { sql: string; params: PlanParam[] }[] }[];
  tokens: Record<string, { input?: string; uuid?: true; iso?: true; ms?: true; bytes?: number; unique?: string }>;
  varies: boolean;
}
export declare function requestInputs(request: { path: string; body?: unknown }): Map<string, string | number>;
export declare function compilePlan(a: Sample, b: Sample): Plan;
