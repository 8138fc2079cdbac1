import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONTROL_RUNS_DIRECTORY, formatSummary, RUNS_DIRECTORY, ratioText, runFromText, runRecord, saveRun, summarize, targetOf } from "../../../scripts/bench-runs.mjs";

/** A bench row as scripts/bench.mjs leaves it after its rounds: each round's service and floor req/s. */
function measured(key: string, rounds: Array<[number, number]>, cpu?: { service: number; floor: number }) {
  const ratios = rounds.map(([s, f]) => s / f).sort((a, b) => a - b);
  return {
    op: { key, method: key.split(" ")[0] },
    target: targetOf(key.split(" ")[0]),
    ratio: ratios[ratios.length >> 1],
    rounds: rounds.map(([s, f]) => ({ s: { rps: s }, f: { rps: f } })),
    rps: 0,
    floorRps: 0,
    measuredTrips: 1,
    failed: 0,
    floorFailed: 0,
    cpu: cpu && { ...cpu, serviceClient: 0, floorClient: 0 },
  };
}

const knobs = { seconds: 1.5, rounds: 3, concurrency: 8, routes: null };
const run = (commit: string, rows: ReturnType<typeof measured>[]) => runRecord(rows, { time: "2026-12-01T04:00:00.000Z", commit, knobs });

describe("the bench's runs combined (scripts/bench-runs.mjs)", () => {
  it("keeps each row's ratio, its rounds' ratios and its CPU on each side", () => {
    const record = run("abc", [measured("GET /api/accounts", [[90, 100], [80, 100], [100, 100]], { service: 6000, floor: 5000 })]);
    expect(record.rows).toEqual([
      { route: "GET /api/accounts", target: 0.9, ratio: 0.9, rounds: [0.9, 0.8, 1], rps: 0, floorRps: 0, trips: 1, failed: 0, cpu: { service: 6000, floor: 5000 } },
    ]);
  });

  it("saves a run by its start, a control run apart from the service's (bench:summary's newest three are the service's)", () => {
    expect(CONTROL_RUNS_DIRECTORY).toBe(join(RUNS_DIRECTORY, "control"));
    const directory = mkdtempSync(join(tmpdir(), "bench-runs-"));
    try {
      const record = run("abc", [measured("GET /api/groups", [[100, 100]])]);
      const file = saveRun(record, join(directory, "control"));
      expect(file).toBe(join(directory, "control", "2026-12-01T04-00-00-000Z.json"));
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(record);
      // What bench:summary lists of the runs' directory: no control run among them.
      expect(readdirSync(directory).filter((name) => name.endsWith(".json"))).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("gives each row's median over the runs, the rows below target by it, and the worst row", () => {
    const runs = [
      run("abc", [measured("GET /a", [[95, 100]], { service: 3100, floor: 3000 }), measured("PUT /b", [[80, 100]])]),
      run("abc", [measured("GET /a", [[70, 100]], { service: 3500, floor: 3000 }), measured("PUT /b", [[88, 100]])]),
      run("abc", [measured("GET /a", [[92, 100]], { service: 3200, floor: 3000 }), measured("PUT /b", [[84, 100]])]),
    ];
    const summary = summarize(runs);
    const byRoute = Object.fromEntries(summary.rows.map((r) => [r.route, r]));
    expect(byRoute["GET /a"]).toMatchObject({ median: 0.92, below: false, cpuGap: 200 });
    expect(byRoute["PUT /b"]).toMatchObject({ median: 0.84, below: true, cpuGap: undefined });
    expect(summary.below.map((r) => r.route)).toEqual(["PUT /b"]);
    expect(summary.worst?.route).toBe("PUT /b");
    // One run's 0.70 is the worst single reading, though its row is at target by the median.
    expect(summary.worstSingle).toMatchObject({ route: "GET /a", ratio: 0.7, run: 1 });
    expect(summary.warnings).toEqual([]);
    expect(formatSummary(summary, ["one", "two", "three"])).toContain("2 rows: 1 at target, 1 below");
  });

  it("counts a median at its target as at target, though the mean of two printed ratios is not exactly it in binary", () => {
    const runs = [0.86, 0.94].map((ratio) => ({ rows: [{ route: "GET /a", target: 0.9, ratio, rounds: [ratio] }] }));
    expect(summarize(runs).rows[0]).toMatchObject({ below: false });
  });

  it("prints a ratio cut to three decimals, never rounded up to its target", () => {
    expect([0.8998, 0.9, 0.8999999999999999, 0.57, 0.895, 1.234567].map(ratioText)).toEqual(["0.899", "0.90", "0.90", "0.57", "0.895", "1.234"]);
  });

  it("says when the runs measured different code or used different knobs, or missed rows", () => {
    const a = run("abc", [measured("GET /a", [[95, 100]]), measured("GET /b", [[95, 100]])]);
    const b = { ...run("def", [measured("GET /a", [[95, 100]])]), knobs: { ...knobs, rounds: 5 } };
    const warnings = summarize([a, b]).warnings.join("\n");
    expect(warnings).toContain("different commits (abc, def)");
    expect(warnings).toContain("different knobs");
    expect(warnings).toContain("1 row(s) are missing from some runs");
  });

  it("reads a run from what the bench printed: its progress lines and its CPU table", () => {
    const text = [
      "Measuring 2 operations: 3 rounds of 1.5 s on the service then on the floor, concurrency 8 ...",
      "  GET /api/accounts: 0.86 (rounds 0.65 0.90 0.86)",
      "  GET /api/audit-events (an account of 100,000 events): 0.91 (rounds 0.91 0.88 0.95)",
      "| GET /api/accounts                          |        1 |   142 |         161 |  0.86 |   0.90 |   52.9 |  113.6 |         | ✗ below target |",
      "| GET /api/accounts                          |             6545 |           5578 |        968 |                      4276 / 4481 |",
      "Skipped:",
      "  POST /api/connections/validate: talks to a remote data store",
    ].join("\n");
    expect(runFromText(text, "run.txt").rows).toEqual([
      { route: "GET /api/accounts", target: 0.9, ratio: 0.86, rounds: [0.65, 0.9, 0.86], cpu: { service: 6545, floor: 5578 } },
      { route: "GET /api/audit-events (an account of 100,000 events)", target: 0.9, ratio: 0.91, rounds: [0.91, 0.88, 0.95] },
    ]);
    expect(() => runFromText("nothing measured", "empty.txt")).toThrow(/empty\.txt: no row/);
  });
});
