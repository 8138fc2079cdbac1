// npm run bench: every operation of the OpenAPI document that has harness fixtures, measured
// against its own floor, alternated in one run (docs/performance.md says why and how).
//
// 1. Starts the service (scripts/serve-worker.mjs: wrangler dev's runtime without its debugger; fresh local D1, real migrations) with EXPOSE_D1_STATEMENTS,
//    reads its document (GET /api/openapi.json) and, for each operation, makes its fixtures through
//    the integration harness (bundled for Node: scripts/bench-harness/) and sends the registry's
//    valid request twice, recording the D1 statements each made: the operation's floor plan
//    (scripts/bench-plan.mjs).
// 2. Stops it, copies its D1 state for the floor, and starts both Workers at once: the service
//    (no statement recording) and the floor (scripts/bench-floor/), which replays each plan.
// 3. For each operation: ROUNDS slices of the service then the floor, closed-loop load at
//    CONCURRENCY; the medians of the rounds make its row.
// Knobs: BENCH_SECONDS (per slice), BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_ROUTES (a regex on
// "METHOD /template"), BENCH_DELETE_POOL (objects per round for a DELETE), BENCH_PORT (the floor
// takes the next port), BENCH_VARS (more of the service's variables, "NAME:value ..."), BENCH_ORDER
// (reverse: the rows measured last-first), BENCH_CONTROL (1: the floor measured against a second
// floor, in the service's place: what the bench's noise alone does to a row).
// 4. The export and import of a large account (scripts/bench-transfer.mjs) on a Worker of its own;
//    `npm run bench -- --only transfer` runs that section alone.
// 5. Round trips, cold and warm, over a directory and two shards beside one database
//    (scripts/bench-shards.mjs), on Workers of their own; `--only shards` runs it alone.
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertNode22, runWrangler, runWranglerQuietly, serveWorkerForBench } from "./wrangler.mjs";
import { loadHarness } from "./bench-harness/build.mjs";
import { SERVICE_VARS as BASE_VARS, varsFrom, wireRequest } from "./bench-harness/service.mjs";
import { closedLoop, markdownTable, median } from "./bench-harness/load.mjs";
import { ownCpuMicros, treeCpuMicros } from "./bench-harness/cpu.mjs";
import { compilePlan } from "./bench-plan.mjs";
import { CONTROL_RUNS_DIRECTORY, currentCommit, runRecord, saveRun, targetOf } from "./bench-runs.mjs";
import { measureExpressionCpu } from "./bench-expression.mjs";
import { measureCalendarCpu } from "./bench-calendar.mjs";
import { measureViewSqlCpu } from "./bench-view-sql.mjs";
import { measureSealingCpu } from "./bench-sealing.mjs";
import { benchTransfer } from "./bench-transfer.mjs";
import { benchShards } from "./bench-shards.mjs";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { unstable_readConfig } from "wrangler";

assertNode22();
assertFloorDeployedAsService();
/** `--only transfer`, `--only shards`: that section alone. */
const { only: ONLY } = parseArgs({ options: { only: { type: "string" } } }).values;
const SECTIONS = ["transfer", "shards"];
if (ONLY !== undefined && !SECTIONS.includes(ONLY)) {
  console.error(`--only: the sections that run alone are ${SECTIONS.map((s) => `"${s}"`).join(" and ")} (not "${ONLY}")`);
  process.exit(2);
}
const SLICE_MS = Number(process.env.BENCH_SECONDS ?? 1.5) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const ROUTES = process.env.BENCH_ROUTES ? new RegExp(process.env.BENCH_ROUTES) : undefined;
/**
 * BENCH_CONTROL=1: an A/A run. A second floor, on a copy of the same D1, takes the service's place in
 * every slice, so each row compares two Workers doing the same work: its ratio is the bench's noise
 * alone, and how far the median of three such runs strays from 1 is how far any row's can
 * (docs/performance.md, "The bench against itself"). Saved apart, in bench-runs/control/.
 */
const CONTROL = process.env.BENCH_CONTROL === "1";
/** The run as saved for `npm run bench:summary` (scripts/bench-runs.mjs): its start and the code it measured. */
const STARTED = new Date().toISOString();
const COMMIT = currentCommit();
/** BENCH_CPU=1: each slice's CPU per request, in the measured Worker's processes and in the load generator (Linux). */
const CPU = process.env.BENCH_CPU === "1";
if (CPU && !existsSync("/proc/self/stat")) throw new Error("BENCH_CPU=1 reads each process's CPU from Linux's /proc, which this system has not");
/**
 * A full collection of the load generator's heap. The bench process holds its harness and the OpenAPI
 * document (about 130 MB), and its fetches' short-lived objects get promoted: left to V8, a major
 * collection of a heap grown to some 400 MB marks concurrently, on the two cores the Workers run on,
 * within whichever slice it falls in (measured 2026-11-30 with --trace-gc: 3 MB promoted a scavenge,
 * nothing kept once collected). Collected before every slice, no slice pays for another's garbage.
 */
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc");
/**
 * A DELETE's objects a round, on each side. Twenty made a slice of some 70 ms, which one pause of the
 * isolate (a major collection, 100 ms and more) could halve: rounds of the same row read 0.67 to 1.47
 * (2026-11-30). Where an account may hold fewer (its 100 materialized views, its 100 webhooks), the
 * rounds share what it holds (deletePools).
 */
const DELETE_POOL = Number(process.env.BENCH_DELETE_POOL ?? 100);
const WARM_UP = 10;
/**
 * Operations that talk to a remote data store: no D1 floor can stand for that. Those that name one
 * in their errors, and the two connection tests (E7 validate, and a stored connection's test), whose
 * failures to connect are a 200 `connected: false`.
 */
const DATA_STORE_ERROR = "DATA_STORE_UNREACHABLE";
const TALKS_TO_DATA_STORE = new Set(["POST /api/connections/validate", "POST /api/connections/{connectionId}/test"]);
/**
 * Creations an account may make only 100 of (materialized views, webhooks): each round in an account
 * of its own, with no warm-up, at most LIMITED_CREATIONS_PER_ROUND a round on each side. The floor
 * runs on a copy of the service's D1 made before the measured run, so each side's account holds only
 * the two recorded creations before its round. Twenty a round (the DELETE pool's size, until
 * 2026-11-30) made a slice of about 50 ms: POST /api/webhooks read 1.15, 0.75 and 0.76 in three runs.
 */
const LIMITED_CREATIONS_PER_ROUND = 90;
const COUNT_LIMITS = ["TOO_MANY_MATERIALIZED_VIEWS", "TOO_MANY_WEBHOOKS"];
/** What those limits allow an account. */
const ACCOUNT_COUNT_LIMIT = 100;
/**
 * At most this many creations a slice, on each side: a round's account also takes the warm-up and the
 * recorded samples, and must stay under the fixed 1,000 calendars of an account (a fast creation
 * passes that in 1.5 s: 2026-11-29, 24 cheap 409s). A slice that reaches it ends early.
 */
const MAX_CREATIONS_PER_SLICE = 900;
const countLimited = (op) => Object.values(op.responses).some((r) => r["x-error-codes"]?.some((code) => COUNT_LIMITS.includes(code)));
/** Webhook operations whose cost is not D1's: a ping waits for its receiver; a retry is one-shot (retried, a delivery is PENDING: 409). */
const NOT_BENCHED = {
  "POST /api/webhooks/{id}/test": "POSTs to the subscriber's URL: no D1 floor stands for that",
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": "retries a FAILED delivery once; sent again it is 409 (webhooks.test.ts covers it)",
};
const talksToDataStore = (op) => TALKS_TO_DATA_STORE.has(op.key) || Object.values(op.responses).some((r) => r["x-error-codes"]?.includes(DATA_STORE_ERROR));

const service = `http://127.0.0.1:${PORT}`;
const floor = `http://127.0.0.1:${PORT + 1}`;
// The control's second floor takes the port after the two-shard section's.
const control = `http://127.0.0.1:${PORT + 5}`;
const work = mkdtempSync(join(tmpdir(), "amapi-bench-"));
const serviceState = join(work, "service");
const floorState = join(work, "floor");
const controlState = join(work, "control");
const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

function start(config, port, state, vars = []) {
  const child = serveWorkerForBench({ config, port, persistTo: state, vars });
  running.add(child);
  // What it says goes to the console only if it dies on its own (being stopped, its bundler may complain).
  child.once("exit", (code) => {
    running.delete(child);
    if (!child.stopping) console.error(`The Worker of ${config} exited with ${code}:\n${child.said()}`);
  });
  return child;
}

/**
 * The floor is deployed as the service is: the same compatibility date and flags, and static assets
 * routed by the same rules. Each is paid by every request before any code of the Worker runs (in
 * `wrangler dev`, a request for a Worker with assets passes through the asset router first), so a
 * difference there would be measured as the service's code (docs/performance.md, "The deployment's shape").
 */
function assertFloorDeployedAsService() {
  const shape = (config) => {
    const read = unstable_readConfig({ config });
    return { compatibility_date: read.compatibility_date, compatibility_flags: [...read.compatibility_flags].sort(), "assets.run_worker_first": read.assets?.run_worker_first };
  };
  const [service, floor] = [shape("wrangler.toml"), shape("scripts/bench-floor/wrangler.toml")];
  const differ = Object.keys(service).filter((key) => JSON.stringify(service[key]) !== JSON.stringify(floor[key]));
  if (differ.length > 0) throw new Error(`scripts/bench-floor/wrangler.toml must be deployed as wrangler.toml is; it differs in ${differ.join(", ")}`);
}

async function stop(child) {
  if (child.exitCode !== null) return;
  child.stopping = true;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

async function waitUntilUp(base, path) {
  for (let i = 0; i < 240; i++) {
    try {
      const res = await fetch(base + path);
      await res.arrayBuffer();
      return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${base} did not start`);
}

const SERVICE_VARS = [...BASE_VARS, ...varsFrom("BENCH_VARS")];
// The sections on Workers of their own take the ports after the floor's.
const transfer = () => benchTransfer({ port: PORT + 2, work, vars: SERVICE_VARS });
const shards = () => benchShards({ port: PORT + 3, work, vars: SERVICE_VARS, load: { durationMs: SLICE_MS, concurrency: CONCURRENCY, rounds: ROUNDS } });
if (ONLY) {
  await { transfer, shards }[ONLY]();
  process.exit(process.exitCode ?? 0);
}

// ---- 1. Fixtures and plans, recorded on the service ----
const quiet = { stdio: "ignore" };
await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", serviceState], quiet);
let serviceWorker = start("wrangler.toml", PORT, serviceState, [...SERVICE_VARS, "EXPOSE_D1_STATEMENTS:true"]);
await waitUntilUp(service, "/api/health");
// Connections name the sample PostgreSQL of the tests; no operation measured here reaches it.
const harness = await loadHarness(work, { base: service, inject: { connectorServers: { postgres: { host: "127.0.0.1", port: 5432, database: "analytics" }, webhookReceiverUrl: "http://127.0.0.1:9" } } });
const contract = await harness.loadContract();
const operations = contract.operations.filter((op) => !ROUTES || ROUTES.test(op.key));
console.log(`${operations.length} operations in the document${ROUTES ? ` matching ${ROUTES}` : ""}; making fixtures and recording their D1 statements ...`);


const rows = [];
const skipped = [];
let planId = 0;
for (const op of operations) {
  if (!harness.hasFixtures(op)) {
    skipped.push({ op, why: "no harness fixtures" });
    continue;
  }
  if (NOT_BENCHED[op.key]) {
    skipped.push({ op, why: NOT_BENCHED[op.key] });
    continue;
  }
  if (talksToDataStore(op)) {
    skipped.push({ op, why: "talks to the remote data store (PostgreSQL): no D1 floor stands for that" });
    continue;
  }
  try {
    rows.push(await prepare(op, `p${planId++}`));
  } catch (error) {
    skipped.push({ op, why: `fixtures or samples failed: ${String(error.message).slice(0, 160)}` });
  }
}

// Issue 18: a page of audit events costs the same whatever an account holds. Two accounts, seeded
// below (before the measured run) with 1,000 and 100,000 events, each read by its administrator.
const AUDIT_PAGE = "GET /api/audit-events";
const AUDIT_SIZES = [1_000, 100_000];
const auditRows = [];
const auditOp = operations.find((op) => op.key === AUDIT_PAGE);
if (auditOp) {
  for (const size of AUDIT_SIZES) {
    const world = await harness.createWorld("Audit");
    const row = await prepare(auditOp, `p${planId++}`, world);
    row.label = `${AUDIT_PAGE} (an account of ${size.toLocaleString("en")} events)`;
    auditRows.push({ row, size, accountId: world.account.id });
    rows.push(row);
  }
}

/** Seeds `size` audit events for an account straight into D1 (ids older than any real event's, distinct per size). */
async function seedAuditEvents(state, { accountId, size }) {
  const sql = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${size})
    INSERT INTO audit_events (id, time, account_id, actor_type, actor_id, actor_name, actor_authentication, action, target_type, target_id, target_name, changes, request_id, ip, user_agent)
    SELECT printf('0000%d%021d', ${size.toString().length}, i), '2026-01-01T00:00:00.000Z', '${accountId}', 'USER', NULL, 'seeded', 'BASIC', 'source.update', 'source', 'seeded-' || i, 'Seeded source',
      '[{"member":"description","before":"a","after":"b"}]', 'seeded-' || i, '127.0.0.1', 'npm run bench' FROM n`;
  await runWranglerQuietly(["d1", "execute", "DB", "--local", "--persist-to", state, "--command", sql.replace(/\s+/g, " ")]);
}

/** An operation's fixtures, request maker and floor plan; `world` fixes the account it runs in. */
async function prepare(op, id, world) {
  const isDelete = op.method === "DELETE";
  // E19 creates a view with a 200, as the spec fixes.
  const isCreate = op.method === "POST" && (op.responses["201"] !== undefined || countLimited(op));
  // A world per round for creations (an account's count limits), one otherwise; a DELETE takes a pool.
  const worlds = world ? [world] : [];
  for (let i = worlds.length; i < (isCreate ? ROUNDS : 1); i++) worlds.push(await harness.createWorld("Bench"));
  const target = (world, params) => ({ world, params, caller: harness.allowedCaller(op, world) });
  let targets;
  if (isDelete) {
    // The pool's objects share one account, whose id the floor's statements then hold as the service's
    // do; but when the registry's object is the world's own (its quota), each object takes a world.
    const first = await harness.paramsFor(op, worlds[0]);
    const ownWorld = JSON.stringify(first) === JSON.stringify(await harness.paramsFor(op, worlds[0]));
    targets = [target(worlds[0], first)];
    // A share of the pool for each round, one for the warm-up, and the two recorded requests'.
    const needed = ROUNDS * deletePoolOf(op) + WARM_UP + 2;
    while (targets.length < needed) {
      const world = ownWorld ? await harness.createWorld("Bench") : worlds[0];
      const batch = Math.min(ownWorld ? 1 : 8, needed - targets.length);
      const made = await Promise.all(Array.from({ length: batch }, () => harness.paramsFor(op, world)));
      targets.push(...made.map((params) => target(world, params)));
    }
  } else {
    targets = [];
    for (const world of worlds) targets.push(target(world, await harness.paramsFor(op, world)));
    // A PATCH reads, merges and writes under the version it read: eight clients on one object would
    // measure their own contention (retries, then 409). Each client gets an object of its own when
    // the operation's objects are not the world's one (its quota).
    if (op.method === "PATCH") {
      const more = await Promise.all(Array.from({ length: CONCURRENCY - 1 }, () => harness.paramsFor(op, worlds[0])));
      if (more.every((params) => JSON.stringify(params) !== JSON.stringify(targets[0].params))) targets.push(...more.map((params) => target(worlds[0], params)));
    }
  }
  // A request as the bench sends it: to the service as is, to the floor under its plan's id.
  const request = (t) => wireRequest(harness, harness.validRequest(op, t.world, t.params, t.caller));
  const callers = [...new Map(targets.map((t) => [JSON.stringify(t.caller), t.caller])).values()];
  // Users sign in first (the credential cache warm, as in steady traffic); a trusted-access client has
  // no sign-in to warm, and its credentials elsewhere are failed logins, which the login throttle counts.
  const warm = () => (op.access === "trustedClient" ? Promise.resolve() : Promise.all(callers.map((caller) => harness.call("GET", "/api/user", { as: caller, unchecked: true }))));
  await warm();

  /** The floor's plan from two requests the service answered, recorded (a DELETE's consume their targets). */
  const record = async (pick) => {
    const samples = [];
    for (let i = 0; i < 2; i++) {
      const req = request(pick(i));
      const requestId = `bench-${id}-${planIds++}`;
      const res = await fetch(service + req.path, { method: req.method, headers: { ...req.headers, "X-Request-Id": requestId }, body: req.body, redirect: "manual" });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${op.key} answered ${res.status}: ${text.slice(0, 200)}`);
      const recorded = await fetch(`${service}/__bench/d1-statements/${requestId}`);
      // A request that made no D1 call left no record.
      const trips = recorded.ok ? await recorded.json() : (await recorded.arrayBuffer(), []);
      const answer = { status: res.status, headers: headersToRepeat(res.headers), body: text };
      samples.push({ trips, answer, request: { path: req.path, body: req.body ? JSON.parse(req.body) : undefined } });
    }
    // The floor's answer has the service's status and headers too (below, headersToRepeat).
    // Its answer is as long as the service's too (docs/performance.md, "... and their length").
    const plan = { key: op.key, status: samples[0].answer.status, headers: samples[0].answer.headers, bodyLength: samples[0].answer.body.length, ...compilePlan(samples[0], samples[1]) };
    // With no D1 work to replay (health, the document, the reference page, the root's redirect), the
    // floor answers what the service answered: the simplest Worker that gives the same answer.
    if (plan.trips.length === 0) plan.answer = samples[0].answer;
    return plan;
  };
  let planIds = 0;
  // Two objects when a PATCH has several: their ids differ, so the plan takes them from the path.
  const plan = await record((i) => (isDelete ? targets.pop() : targets[op.method === "PATCH" ? i % targets.length : 0]));
  // A creation's rounds each run in a world of their own: so do the floor's, each round under a plan
  // recorded in that round's world (one plan for all would put every floor creation in one account).
  const plans = [plan];
  if (isCreate) for (let r = 1; r < worlds.length; r++) plans.push(await record(() => targets[r]));
  // The service's requests: fresh bodies every time; a DELETE's come from round r's share of the pool,
  // its warm-up's from the share after the rounds'.
  const pools = isDelete ? deletePools(op, targets) : undefined;
  const requests = (round) => {
    if (pools) {
      let next = 0;
      return () => (next < pools[round].length ? request(pools[round][next++]) : undefined);
    }
    if (op.method === "PATCH") {
      let next = 0;
      return () => request(targets[next++ % targets.length]);
    }
    if (isCreate && countLimited(op)) {
      let sent = 0;
      return () => (sent++ < LIMITED_CREATIONS_PER_ROUND ? request(targets[round]) : undefined);
    }
    const t = targets[Math.min(round, targets.length - 1)];
    return op.method === "GET" ? (() => { const fixed = request(t); return () => fixed; })() : () => request(t);
  };
  return { op, id, plan, plans, requests, warm, trips: plan.trips.length, callers: callers.length, isCreate };
}

/**
 * A DELETE's objects a round: DELETE_POOL, or where its collection's creation is count limited (an
 * account's 100 materialized views, its 100 webhooks) as many as the account holds beside the
 * warm-up's, the recorded two and its world's own one (the harness, at the limit, would delete one of
 * the pool to make room).
 */
function deletePoolOf(op) {
  const create = contract.operations.find((o) => o.method === "POST" && o.template === op.template.replace(/\/\{[^}]+\}$/, ""));
  return create && countLimited(create) ? Math.min(DELETE_POOL, Math.floor((ACCOUNT_COUNT_LIMIT - 1 - WARM_UP - 2) / ROUNDS)) : DELETE_POOL;
}

/** A DELETE's objects (its recorded two taken) as a share for each round, then the warm-up's. */
function deletePools(op, targets) {
  const perRound = deletePoolOf(op);
  return Array.from({ length: ROUNDS + 1 }, (_, r) => targets.slice(r * perRound, r < ROUNDS ? (r + 1) * perRound : ROUNDS * perRound + WARM_UP));
}

/**
 * The headers of a service's answer that the floor sends back with its own (docs/performance.md,
 * "The floor answers with the service's status and headers"): the same answer, as the issue defines a floor.
 * Each header costs every request in transit (the HTTP framing, wrangler's dev proxy, which walks
 * every header of every answer in JavaScript, and the load generator's parse) whatever made it, so a
 * floor without them would charge their transit to the service's code. Making them (the ETag's
 * digest, the request id) stays on the service's side only: the floor repeats recorded values. Not
 * repeated: what the floor makes itself (its body's length and the D1 bookmark of its own session);
 * the request id recorded (the bench's own) becomes one of the length the service makes.
 */
function headersToRepeat(headers) {
  const repeated = {};
  for (const [name, value] of headers) {
    if (name === "content-length" || name === "x-d1-bookmark") continue;
    repeated[name] = name === "x-request-id" ? "00000000-0000-4000-8000-000000000000" : value;
  }
  return repeated;
}

// ---- 2. Both Workers at once: the service, and the floor on a copy of its D1 ----
await stop(serviceWorker);
for (const seeded of auditRows) await seedAuditEvents(serviceState, seeded);
cpSync(serviceState, floorState, { recursive: true });
if (CONTROL) cpSync(serviceState, controlState, { recursive: true });
// One after the other: two Workers bundling at once in one project trip over each other.
const floorWorker = start("scripts/bench-floor/wrangler.toml", PORT + 1, floorState);
await waitUntilUp(floor, "/");
const controlWorker = CONTROL ? start("scripts/bench-floor/wrangler.toml", PORT + 5, controlState) : undefined;
if (CONTROL) await waitUntilUp(control, "/");
serviceWorker = start("wrangler.toml", PORT, serviceState, SERVICE_VARS);
await waitUntilUp(service, "/api/health");
/** The id under which the floor holds a row's plan for a round (a creation has one per round). */
function floorPlanId(row, round) {
  return `${row.id}r${Math.min(round, row.plans.length - 1)}`;
}
/** Hands the floor (and the control's) the plans of `rows` (a plan registered again replaces the one it had). */
async function registerPlans(rows) {
  const body = JSON.stringify(Object.fromEntries(rows.flatMap((r) => r.plans.map((plan, round) => [floorPlanId(r, round), plan]))));
  for (const base of CONTROL ? [floor, control] : [floor]) {
    const registered = await fetch(`${base}/__plans`, { method: "PUT", body });
    if (!registered.ok) throw new Error(`the floor refused the plans: ${registered.status}`);
  }
}
await registerPlans(rows);

/**
 * A GET answers the same all through its row, but not always what it answered when its plan was
 * recorded: the audit events are seeded after the recording (an account's page grows from its few
 * events to a full page), and the rows before it add objects that a list shows (the accounts). The
 * floor's answer is made as long as the service's answer at the row's turn, read from one request.
 */
async function matchAnswerLength(row) {
  const req = row.requests(0)();
  const res = await fetch(service + req.path, { method: req.method, headers: req.headers, redirect: "manual" });
  const length = (await res.text()).length;
  if (row.plans.every((plan) => plan.bodyLength === length)) return;
  for (const plan of row.plans) plan.bodyLength = length;
  await registerPlans([row]);
}
const domainWork = new Set(await (await fetch(`${floor}/__domain-work`)).json());
// Both Workers just started: let them settle.
await measure(service, () => ({ method: "GET", path: "/api/health", headers: {} }), 1000);
await measure(floor, () => ({ method: "GET", path: "/", headers: {} }), 1000);
if (CONTROL) await measure(control, () => ({ method: "GET", path: "/", headers: {} }), 1000);
/** The side measured against the floor: the service, or in a control run the second floor, sent the floor's requests. */
const measured = CONTROL ? { base: control, worker: controlWorker, requests: (row, next, round) => floorRequests(row, next, round) } : { base: service, worker: serviceWorker, requests: (_row, next) => next };

// ---- 3. Alternated slices ----
if (CONTROL) console.log("Control run (BENCH_CONTROL=1): a second floor takes the service's place; every ratio compares the floor with itself.");
console.log(`Measuring ${rows.length} operations: ${ROUNDS} rounds of ${SLICE_MS / 1000} s on the ${CONTROL ? "control" : "service"} then on the floor, concurrency ${CONCURRENCY} ...`);
// BENCH_ORDER=reverse measures the rows last-first (the table keeps the document's order): whether a
// row's place in the run moves its ratio.
for (const row of process.env.BENCH_ORDER === "reverse" ? [...rows].reverse() : rows) {
  await row.warm();
  if (row.op.method === "GET") await matchAnswerLength(row);
  const floorOf = (next, round) => floorRequests(row, next, round);
  // A DELETE warms up too, on objects of its own (deleted once on each side, as a round's are): its
  // rounds of 20 requests would otherwise pay for its handler's first runs, and for its route group's
  // module where no row before it loaded that since the service started again.
  if (!countLimited(row.op)) {
    const warmUpRound = row.op.method === "DELETE" ? ROUNDS : 0;
    await measure(measured.base, measured.requests(row, row.requests(warmUpRound), 0), undefined, WARM_UP);
    await measure(floor, floorOf(row.requests(warmUpRound), 0), undefined, WARM_UP);
  }
  row.rounds = [];
  const count = row.isCreate ? MAX_CREATIONS_PER_SLICE : Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const s = await measure(measured.base, measured.requests(row, row.requests(r), r), SLICE_MS, count, measured.worker);
    const f = await measure(floor, floorOf(row.requests(r), r), SLICE_MS, count, floorWorker);
    row.rounds.push({ s, f });
  }
  const med = (pick) => median(row.rounds.map(pick));
  Object.assign(row, {
    rps: med((x) => x.s.rps),
    floorRps: med((x) => x.f.rps),
    ratio: med((x) => x.s.rps / x.f.rps),
    p50: med((x) => x.s.p50),
    p99: med((x) => x.s.p99),
    floorP50: med((x) => x.f.p50),
    ...(CPU && { cpu: { service: med((x) => x.s.cpu.worker), floor: med((x) => x.f.cpu.worker), serviceClient: med((x) => x.s.cpu.client), floorClient: med((x) => x.f.cpu.client) } }),
    measuredTrips: med((x) => x.s.trips),
    failed: row.rounds.reduce((n, x) => n + x.s.failed, 0),
    floorFailed: row.rounds.reduce((n, x) => n + x.f.failed, 0),
    firstFailure: row.rounds.map((x) => x.s.firstFailure ?? x.f.firstFailure).find(Boolean),
  });
  row.target = targetOf(row.op.method);
  row.below = !(row.ratio >= row.target);
  // Each round's ratio too: how far apart they are says how much the median can be trusted.
  process.stdout.write(`  ${row.label ?? row.op.key}: ${row.ratio.toFixed(2)} (rounds ${row.rounds.map((x) => (x.s.rps / x.f.rps).toFixed(2)).join(" ")})\n`);
}

const probe = await credentialCacheProbe();
await stop(serviceWorker);
if (controlWorker) await stop(controlWorker);
printTable();
const knobs = { seconds: SLICE_MS / 1000, rounds: ROUNDS, concurrency: CONCURRENCY, routes: ROUTES?.source ?? null, ...(CONTROL && { control: true }) };
const saved = saveRun(runRecord(rows, { time: STARTED, commit: COMMIT, knobs }), CONTROL ? CONTROL_RUNS_DIRECTORY : undefined);
console.log(
  CONTROL
    ? `\nThis control run's rows are saved in ${saved}: npm run bench:summary -- ${CONTROL_RUNS_DIRECTORY}/<three runs>.json gives each row's median over them.`
    : `\nThis run's rows are saved in ${saved}: npm run bench:summary gives each row's median over the newest three runs.`,
);
const cpu = await measureExpressionCpu();
console.log(`\nExpression validation (checkExpression, aggregate level, in Node): ${cpu.length}-character expression, ${cpu.microseconds.toFixed(1)} µs CPU per validation (${cpu.iterations} runs)`);
const periods = await measureCalendarCpu();
console.log(`Calendar periods (listPeriods, 4-5-4 calendar, in Node): ${periods.periods} DAY periods, ${periods.listMs.toFixed(2)} ms CPU; with the answer's JSON ${periods.withJsonMs.toFixed(2)} ms (${periods.iterations} runs)`);
const viewSql = await measureViewSqlCpu();
console.log(`Materialized view SQL (sqlSourceOf and materializedViewQuery, 24 items, in Node): a ${viewSql.length}-character query, ${viewSql.microseconds.toFixed(1)} µs CPU per view (${viewSql.iterations} runs)`);
const sealing = await measureSealingCpu();
console.log(`Webhook signing secret (newSigningSecret and WebhookSecrets.seal, AES-256-GCM, in Node): ${sealing.microseconds.toFixed(1)} µs CPU per secret (${sealing.iterations} runs)`);
// A subset of routes (BENCH_ROUTES) is a developer's quick look: the sections of minutes on Workers of their own are left out.
if (ROUTES || CONTROL) console.log(`\nExport and import, and two shards: not run with ${CONTROL ? "BENCH_CONTROL" : "BENCH_ROUTES"} (npm run bench -- --only transfer, --only shards run them alone).`);
else {
  await transfer();
  await shards();
}
process.exit(process.exitCode ?? 0);

/** A row's requests as the floor takes them: the service's, under the round's plan id. */
function floorRequests(row, next, round) {
  return () => {
    const req = next();
    return req && { ...req, path: `/${floorPlanId(row, round)}${req.path}` };
  };
}

/** Closed-loop load at CONCURRENCY (scripts/bench-harness/load.mjs), for a slice unless said. */
async function measure(base, next, durationMs = SLICE_MS, count = Infinity, worker = undefined) {
  collectGarbage();
  if (!CPU || !worker) return closedLoop(base, next, { durationMs, concurrency: CONCURRENCY, count });
  const [worker0, client0] = [treeCpuMicros(worker.pid), ownCpuMicros()];
  const result = await closedLoop(base, next, { durationMs, concurrency: CONCURRENCY, count });
  const perRequest = (used) => used / Math.max(1, result.count);
  return { ...result, cpu: { worker: perRequest(treeCpuMicros(worker.pid) - worker0), client: perRequest(ownCpuMicros() - client0) } };
}

/** A member's next read after its group's description changed must stay a cached sign-in; after a privilege change it signs in again. */
async function credentialCacheProbe() {
  const world = await harness.createWorld("Probe");
  const group = await harness.createGroup(world.account.id, world.name("Editors"), ["ROLE_EDIT_FORMULAS"]);
  const member = await harness.createUser(world.account.id, { name: world.name("member"), groups: ["Users", group.name] });
  const read = async () => {
    const t0 = performance.now();
    const res = await harness.call("GET", "/api/sources?maxResults=1", { as: { username: member.username, password: member.password } });
    return { trips: Number(res.headers.get("X-D1-Round-Trips")), ms: performance.now() - t0 };
  };
  const put = (privileges) => harness.call("PUT", `/api/groups/${group.id}`, { body: { name: group.name, accountId: world.account.id, privileges, description: "probe" } });
  await read();
  const warm = await read();
  await put(["ROLE_EDIT_FORMULAS"]);
  const afterDescription = await read();
  await put(["ROLE_EDIT_FORMULAS", "ROLE_CREATE_SOURCES"]);
  const afterPrivileges = await read();
  return { warm, afterDescription, afterPrivileges };
}

function printTable() {
  const head = ["route", "D1 trips", "req/s", "floor req/s", "ratio", "target", "p50 ms", "p99 ms", "4xx/5xx", ""];
  const cells = rows.map((r) => [
    r.label ?? r.op.key,
    r.trips === r.measuredTrips ? String(r.trips) : `${r.trips} (${r.measuredTrips.toFixed(1)})`,
    r.rps.toFixed(0),
    r.floorRps.toFixed(0),
    r.ratio.toFixed(2),
    r.target.toFixed(2),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    r.failed || r.floorFailed ? `${r.failed}/${r.floorFailed}` : "",
    [r.below ? "✗ below target" : "", domainWork.has(r.op.key) ? "floor computes too" : "", r.plan.varies ? "plan varies between requests" : ""].filter(Boolean).join("; "),
  ]);
  console.log(`\n${SLICE_MS / 1000} s per slice, ${ROUNDS} rounds alternating ${CONTROL ? "the control (a second floor)" : "service"} and floor, medians; concurrency ${CONCURRENCY}; both Workers served by scripts/serve-worker.mjs (no debugger attached) on 127.0.0.1, load generator on the same machine.`);
  console.log("Floor: a bare Worker replaying the same D1 statements (scripts/bench-floor/); \"floor computes too\": it also calls the route's pure module of src/domain/.");
  console.log("4xx/5xx: answers that failed, service/floor (a redirect is an answer). D1 trips: as recorded (as measured, when they differ).\n");
  console.log(markdownTable(head, cells, [0, head.length - 1]));
  if (CPU) {
    console.log("\nCPU per request (BENCH_CPU=1; µs, medians of the rounds; a Worker's processes: its runtime and serve-worker's Node):\n");
    const cpuHead = ["route", "service's Worker", "floor's Worker", "difference", "load generator (service / floor)"];
    const cpuCells = rows.map((r) => [r.label ?? r.op.key, r.cpu.service.toFixed(0), r.cpu.floor.toFixed(0), (r.cpu.service - r.cpu.floor).toFixed(0), `${r.cpu.serviceClient.toFixed(0)} / ${r.cpu.floorClient.toFixed(0)}`]);
    console.log(markdownTable(cpuHead, cpuCells, [0]));
  }
  const below = rows.filter((r) => r.below);
  const worst = rows.reduce((w, r) => (!w || r.ratio / r.target < w.ratio / w.target ? r : w), undefined);
  console.log(`\n${rows.length} operations measured: ${rows.length - below.length} at target, ${below.length} below; ${skipped.length} skipped.`);
  if (worst) console.log(`Worst row: ${worst.label ?? worst.op.key} at ${worst.ratio.toFixed(2)} of its floor (target ${worst.target.toFixed(2)}).`);
  const failures = rows.filter((r) => r.firstFailure);
  for (const r of failures) console.log(`  ${r.op.key}: first failed answer: ${r.firstFailure}`);
  if (skipped.length) {
    console.log("\nSkipped:");
    for (const s of skipped) console.log(`  ${s.op.key}: ${s.why}`);
  }
  if (auditRows.length) {
    console.log("\nA page of audit events (issue 18), by the number of events the account holds:");
    for (const { row, size } of auditRows) console.log(`  ${size.toLocaleString("en")} events: ${row.measuredTrips.toFixed(0)} D1 round trip(s), ${row.rps.toFixed(0)} req/s, p50 ${row.p50.toFixed(1)} ms, ${row.ratio.toFixed(2)} of its floor`);
  }
  const line2 = (label, r) => `${label}: ${r.trips} D1 round trip(s), ${r.ms.toFixed(1)} ms`;
  console.log("\nCredential cache after group edits (a member's next read):");
  console.log(`  ${line2("warm", probe.warm)}`);
  console.log(`  ${line2("after a description-only group PUT", probe.afterDescription)}`);
  console.log(`  ${line2("after a privilege change of the group (re-sign-in expected)", probe.afterPrivileges)}`);
}
