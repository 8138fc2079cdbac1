// npm run bench: starts the Worker locally (wrangler dev on a fresh local D1 with the real
// migrations), seeds the scenarios' data through the API itself (plus one bulk SQL file for
// the 20,000-field source, loaded while the Worker is stopped), then drives each scenario with
// a closed-loop load generator and prints requests/s, p50, p99 and D1 round trips per request
// (the Worker reports them in X-D1-Round-Trips when EXPOSE_D1_ROUND_TRIPS is true). Each read is
// compared with its floor: a bare Worker making the same D1 round trip on the same data. Last it
// measures the CPU time of validating a 1,000-character expression, outside the Worker.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertNode22, runWrangler, startWrangler } from "./wrangler.mjs";
import { bulkSql, evictionProbe, scenarios, seed } from "./bench-scenarios.mjs";
import { measureExpressionCpu } from "./bench-expression.mjs";
import { measureCalendarCpu } from "./bench-calendar.mjs";

assertNode22();
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const SUPERVISOR = { username: "bench-supervisor", password: "bench-supervisor-password" };
const base = `http://127.0.0.1:${PORT}`;

const state = mkdtempSync(join(tmpdir(), "amapi-bench-"));
let worker;
const stopWorker = async () => {
  if (!worker) return;
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGTERM");
  await exited;
  worker = undefined;
};
process.on("exit", () => {
  worker?.kill("SIGTERM");
  rmSync(state, { recursive: true, force: true });
});

async function startWorker(config = "wrangler.toml") {
  worker = startWrangler(
    [
      "dev", "--config", config, "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", state, "--show-interactive-dev-session=false",
      "--var", "EXPOSE_D1_ROUND_TRIPS:true",
      "--var", `SUPERVISOR_USERNAME:${SUPERVISOR.username}`,
      "--var", `SUPERVISOR_PASSWORD:${SUPERVISOR.password}`,
      "--var", "CREDENTIAL_CACHE_TTL_SECONDS:600",
      "--var", "PAGE_TOKEN_KEY:bench-page-token-key",
      // Connections (scripts/bench-connections.mjs): the sample PostgreSQL listens on the loopback address.
      "--var", "CONNECTION_SECRETS_KEY:bench-connection-secrets-key",
      "--var", "CONNECTOR_ALLOWED_HOSTS:127.0.0.1",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  await waitUntilUp();
}

const quiet = { stdio: "ignore" };
await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], quiet);
await startWorker();
const api = client(base);
console.log("Seeding through the API ...");
const seeded = await seed(api, SUPERVISOR);
await stopWorker();
console.log("Loading the bulk fields ...");
const sqlFile = join(state, "bulk.sql");
writeFileSync(sqlFile, bulkSql(seeded));
await runWrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", sqlFile], quiet);

// The floors first: the bare Worker answering each read with the same D1 round trip.
console.log("Measuring the floors (bare Worker, same D1 queries) ...");
await startWorker("scripts/bench-floor/wrangler.toml");
await measure({ path: "/" }, 2000);
const floors = new Map();
for (const scenario of scenarios.filter((s) => s.floor)) {
  const request = scenario.floor(seeded);
  for (let i = 0; i < 20; i++) await send(request);
  floors.set(scenario.name, await measure(request));
}
await stopWorker();

console.log("Measuring the API ...");
await startWorker();
// The Worker just restarted: let it settle before measuring.
await measure({ path: "/api/health" }, 2000);
const rows = [];
for (const scenario of scenarios) {
  const request = scenario.request(seeded, SUPERVISOR);
  // Warm up: fills the credential cache and JIT before measuring.
  for (let i = 0; i < 20; i++) await send(typeof request === "function" ? request() : request);
  rows.push({ name: scenario.name, floor: floors.get(scenario.name), ...(await measure(request)) });
}
const probe = await evictionProbe(send, seeded, SUPERVISOR);
await stopWorker();

console.log(`\n${DURATION_MS / 1000} s per scenario, concurrency ${CONCURRENCY}, wrangler dev on 127.0.0.1 (load generator on the same machine)`);
console.log("Floor: a bare Worker (scripts/bench-floor/worker.js) making the read's same D1 round trip, on the same data.\n");
console.log(["scenario".padEnd(62), "req/s".padStart(7), "floor".padStart(7), "% floor".padStart(8), "p50 ms".padStart(7), "p99 ms".padStart(7), "D1 trips".padStart(9), "errors".padStart(7)].join(" "));
for (const r of rows) {
  console.log([
    r.name.padEnd(62),
    r.rps.toFixed(0).padStart(7),
    (r.floor ? r.floor.rps.toFixed(0) : "").padStart(7),
    (r.floor ? `${((r.rps / r.floor.rps) * 100).toFixed(0)}%` : "").padStart(8),
    r.p50.toFixed(2).padStart(7),
    r.p99.toFixed(2).padStart(7),
    r.trips.toFixed(2).padStart(9),
    String(r.errors).padStart(7),
  ].join(" "));
}
const line = (label, r) => `${label}: ${r.trips} D1 round trip(s), ${r.ms.toFixed(1)} ms`;
console.log("\nCredential cache after group edits (a member's next read):");
console.log(`  ${line("warm", probe.warm)}`);
console.log(`  ${line("after a description-only group PUT", probe.afterDescription)}`);
console.log(`  ${line("after a privilege change of the group (re-sign-in expected)", probe.afterPrivileges)}`);
const cpu = await measureExpressionCpu();
console.log(`\nExpression validation (checkExpression, aggregate level, in Node): ${cpu.length}-character expression, ${cpu.microseconds.toFixed(1)} µs CPU per validation (${cpu.iterations} runs)`);
const periods = await measureCalendarCpu();
console.log(`Calendar periods (listPeriods, 4-5-4 calendar, in Node): ${periods.periods} DAY periods, ${periods.listMs.toFixed(2)} ms CPU; with the answer's JSON ${periods.withJsonMs.toFixed(2)} ms (${periods.iterations} runs)`);
process.exit(0);

async function send({ method = "GET", path, headers = {}, body }) {
  const started = performance.now();
  const res = await fetch(base + path, { method, headers, body });
  await res.arrayBuffer();
  return { ms: performance.now() - started, ok: res.ok, trips: Number(res.headers.get("X-D1-Round-Trips") ?? 0) };
}

async function measure(request, durationMs = DURATION_MS) {
  const latencies = [];
  let trips = 0;
  let errors = 0;
  const end = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const r = await send(typeof request === "function" ? request() : request);
        latencies.push(r.ms);
        trips += r.trips;
        if (!r.ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  return { rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), trips: trips / latencies.length, errors };
}

async function waitUntilUp() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not start");
}

function client(root) {
  return async function call(method, path, { as, body } = {}) {
    const headers = { "Content-Type": "application/json" };
    if (as) headers.Authorization = basicAuth(as);
    const res = await fetch(root + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

function basicAuth({ username, password }) {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}
