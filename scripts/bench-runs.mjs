// The bench's runs, kept and combined (issue 16: "report the median of three runs, and the worst
// row"). Ratios move 10 to 20 % between runs on a shared machine, so one run's table says little
// about a row; `npm run bench` saves each run's rows (runRecord) and `npm run bench:summary`
// (scripts/bench-summary.mjs) gives each row's median over several runs (summarize).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median } from "./bench-harness/load.mjs";

/** Where `npm run bench` saves its runs (git ignores it). */
export const RUNS_DIRECTORY = "bench-runs";
/** Where it saves its control runs (BENCH_CONTROL=1: the floor against itself), apart from the service's. */
export const CONTROL_RUNS_DIRECTORY = join(RUNS_DIRECTORY, "control");

/** Ratio to its floor each row must reach: reads 0.90, writes 0.85 (issue 16). */
export const targetOf = (method) => (method === "GET" ? 0.9 : 0.85);

/** A ratio in whole millionths: a row's place against its target is decided (summarize) and printed (ratioText) at that. */
const millionths = (ratio) => Math.round(ratio * 1e6);

/** A row's method: the first word of its route ("GET /api/audit-events (an account of …)"). */
const methodOf = (route) => route.slice(0, route.indexOf(" "));

/**
 * One run as saved: when and on what it ran, its knobs, and each row's ratio, its rounds' ratios
 * and (BENCH_CPU=1) its CPU per request on each side. `rows` are the bench's measured rows.
 */
export function runRecord(rows, { time, commit, knobs }) {
  return {
    time,
    commit,
    knobs,
    rows: rows.map((r) => ({
      route: r.label ?? r.op.key,
      target: r.target,
      ratio: r.ratio,
      rounds: r.rounds.map((x) => x.s.rps / x.f.rps),
      rps: r.rps,
      floorRps: r.floorRps,
      trips: r.measuredTrips,
      failed: r.failed + r.floorFailed,
      ...(r.cpu && { cpu: { service: r.cpu.service, floor: r.cpu.floor } }),
    })),
  };
}

/** Saves a run's record as bench-runs/<its start, UTC>.json (or in `directory`), and says where. */
export function saveRun(record, directory = RUNS_DIRECTORY) {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${record.time.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);
  return file;
}

/** The commit the run measured (with "+changes" when the work tree differs from it), if git knows. */
export function currentCommit() {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const changed = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return changed ? `${commit}+changes` : commit;
  } catch {
    return undefined;
  }
}

/**
 * A run as the bench printed it, for runs from before records were saved: each row's progress
 * line ("  GET /api/accounts: 0.86 (rounds 0.65 0.90 0.86)") and the CPU table's rows.
 */
export function runFromText(text, name) {
  const rows = new Map();
  for (const [, route, ratio, rounds] of text.matchAll(/^ {2}(\S+ \S.*?): ([\d.]+) \(rounds ([\d. ]+)\)$/gm)) {
    rows.set(route, { route, target: targetOf(methodOf(route)), ratio: Number(ratio), rounds: rounds.trim().split(/\s+/).map(Number) });
  }
  for (const [, route, service, floor] of text.matchAll(/^\| (\S+ \S.*?) +\| +(\d+) \| +(\d+) \| +-?\d+ \| +\d+ \/ \d+ \|$/gm)) {
    const row = rows.get(route);
    if (row) row.cpu = { service: Number(service), floor: Number(floor) };
  }
  if (rows.size === 0) throw new Error(`${name}: no row of the bench's progress lines ("  GET /path: 0.95 (rounds …)") in it`);
  return { time: undefined, commit: undefined, knobs: undefined, rows: [...rows.values()] };
}

/**
 * Each row's median ratio over the runs (a row missing from a run is left out of that run), the rows
 * below their target by that median, the worst median and the worst single run of any row (each
 * relative to its target), and what differs between the runs (commit, knobs) that a reader should know.
 */
export function summarize(runs) {
  const byRoute = new Map();
  for (const [index, run] of runs.entries()) {
    for (const row of run.rows) {
      const entry = byRoute.get(row.route) ?? { route: row.route, target: row.target, ratios: [], cpuGaps: [], runs: [] };
      entry.ratios.push(row.ratio);
      entry.runs.push(index);
      if (row.cpu) entry.cpuGaps.push(row.cpu.service - row.cpu.floor);
      byRoute.set(row.route, entry);
    }
  }
  const rows = [...byRoute.values()].map((entry) => ({
    route: entry.route,
    target: entry.target,
    ratios: entry.ratios,
    median: median(entry.ratios),
    cpuGap: entry.cpuGaps.length ? median(entry.cpuGaps) : undefined,
  }));
  // To the millionth: the mean of two printed ratios (0.86 and 0.94) is 0.9 in decimal, not 0.8999….
  for (const row of rows) row.below = !(millionths(row.median) / 1e6 >= row.target);
  const relative = (ratio, target) => ratio / target;
  const worst = rows.reduce((w, r) => (!w || relative(r.median, r.target) < relative(w.median, w.target) ? r : w), undefined);
  let worstSingle;
  for (const entry of byRoute.values()) {
    entry.ratios.forEach((ratio, i) => {
      if (!worstSingle || relative(ratio, entry.target) < relative(worstSingle.ratio, worstSingle.target)) worstSingle = { route: entry.route, target: entry.target, ratio, run: entry.runs[i] };
    });
  }
  const differs = (pick) => new Set(runs.map((run) => JSON.stringify(pick(run) ?? null))).size > 1;
  const warnings = [];
  if (differs((run) => run.commit)) warnings.push(`the runs are of different commits (${runs.map((run) => run.commit?.slice(0, 7) ?? "unknown").join(", ")})`);
  if (differs((run) => run.knobs)) warnings.push("the runs had different knobs (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONCURRENCY or BENCH_ROUTES)");
  const partial = rows.filter((r) => byRoute.get(r.route).ratios.length < runs.length).length;
  if (partial > 0) warnings.push(`${partial} row(s) are missing from some runs: their median is over the runs that measured them`);
  return { runs: runs.length, rows, below: rows.filter((r) => r.below), worst, worstSingle, median: median(rows.map((r) => r.median)), warnings };
}

/**
 * A ratio as printed: cut (not rounded) to three decimals, so that a row just below its target never
 * reads as at it (0.8998 is 0.899, not 0.90), and to two where the third is 0.
 */
export function ratioText(ratio) {
  const cut = (Math.floor(millionths(ratio) / 1000) / 1000).toFixed(3);
  return cut.endsWith("0") ? cut.slice(0, -1) : cut;
}

/** The summary as printed: the rows below target first, worst first, then the figures the issue asks for. */
export function formatSummary(summary, names) {
  const lines = [];
  const order = [...summary.rows].sort((a, b) => a.median / a.target - b.median / b.target);
  lines.push(`Each row's median over ${summary.runs} run(s): ${names.join(", ")}`);
  for (const warning of summary.warnings) lines.push(`Note: ${warning}.`);
  lines.push("");
  lines.push(`${summary.rows.length} rows: ${summary.rows.length - summary.below.length} at target, ${summary.below.length} below; median of the rows' medians ${ratioText(summary.median)}.`);
  const show = (r) => `  ${ratioText(r.median)} (target ${r.target.toFixed(2)}) ${r.route}: runs ${r.ratios.map(ratioText).join(" ")}${r.cpuGap === undefined ? "" : `; CPU gap ${r.cpuGap.toFixed(0)} µs a request`}`;
  if (summary.below.length) {
    lines.push("Below target by the median:");
    for (const r of order.filter((r) => r.below)) lines.push(show(r));
  }
  lines.push("Nearest their target, at it:");
  for (const r of order.filter((r) => !r.below).slice(0, 5)) lines.push(show(r));
  if (summary.worst) lines.push(`Worst row by the median: ${summary.worst.route} at ${ratioText(summary.worst.median)} (target ${summary.worst.target.toFixed(2)}).`);
  if (summary.worstSingle) lines.push(`Worst single run of a row: ${summary.worstSingle.route} at ${ratioText(summary.worstSingle.ratio)}, in ${names[summary.worstSingle.run]}.`);
  return lines.join("\n");
}
