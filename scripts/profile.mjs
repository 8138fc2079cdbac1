// npm run profile: where a request's CPU goes, stage by stage (issue 16, docs/performance.md).
//
// Starts the service (wrangler dev, its build unminified, fresh local D1, real migrations) with its inspector
// open, makes one operation's fixtures through the integration harness (as npm run bench does),
// sends its valid request once (the caller's credential cache warm, as in steady traffic), then
// samples the Worker's CPU with the V8 profiler while closed-loop load repeats that request. Each
// sample is charged to the bundle's JavaScript that ran it or called the native code that did, and
// that code to the source module it came from (esbuild marks each module of an unminified bundle
// with a `// path` comment); modules are grouped into the request's stages. Prints CPU per request
// for each stage and the heaviest functions. The profiler slows the Worker: compare shares, not
// absolute figures, with the bench.
//
// PROFILE_ROUTE: the operation, "METHOD /template" as the document names it (default E10,
// "GET /api/accounts/name/{name}"; E1 is "PUT /api/sources/{sourceId}/custom-metrics/{customMetricName}").
// PROFILE_SECONDS (default 10), PROFILE_CONCURRENCY (8), PROFILE_PORT, PROFILE_VARS (more of the
// service's variables, "NAME:value ...", e.g. "LOG_FORMAT:none"), PROFILE_TOP (how many functions
// to list, 30), PROFILE_WORLDS (more worlds made first, 0: e.g. 300 for the list of accounts a full
// bench run reads). PROFILE_HEAP=1: instead of CPU,
// the bytes allocated per request by stage and function (V8's sampling heap profiler, counting
// objects the garbage collector has since freed): what the "garbage collection" stage collects.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { loadHarness } from "./bench-harness/build.mjs";
import { SERVICE_VARS, varsFrom, wireRequest } from "./bench-harness/service.mjs";
import { assertNode22, runWrangler, startWrangler, wranglerEnv } from "./wrangler.mjs";

assertNode22();
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 8);
const PORT = Number(process.env.PROFILE_PORT ?? 8787 + 40);
const INSPECTOR = PORT + 1;
const ROUTE = process.env.PROFILE_ROUTE ?? "GET /api/accounts/name/{name}";
const HEAP = process.env.PROFILE_HEAP === "1";
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const base = `http://127.0.0.1:${PORT}`;

const work = mkdtempSync(join(tmpdir(), "amapi-profile-"));
let worker;
process.on("exit", () => {
  worker?.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", work], { stdio: "ignore" });
const vars = [...SERVICE_VARS, ...varsFrom("PROFILE_VARS")].flatMap((v) => ["--var", v]);
worker = startWrangler(
  ["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--inspector-port", String(INSPECTOR), "--persist-to", work, "--show-interactive-dev-session=false", ...vars],
  // Readable modules with their `// path` markers (scripts/build.mjs); without the local
  // observability collector, which a deployed Worker does not run (scripts/serve-worker.mjs).
  { stdio: ["ignore", "ignore", "ignore"], env: wranglerEnv({ BUILD_MINIFY: "false", X_LOCAL_OBSERVABILITY: "false" }) },
);
await waitUntilUp();

// ---- The operation's fixtures and its valid request, made by the integration harness ----
const harness = await loadHarness(work, { base, inject: { connectorServers: { postgres: { host: "127.0.0.1", port: 5432, database: "analytics" }, webhookReceiverUrl: "http://127.0.0.1:9" } } });
const op = (await harness.loadContract()).operations.find((o) => o.key === ROUTE);
if (!op) throw new Error(`No operation ${ROUTE} in the document (PROFILE_ROUTE is "METHOD /template")`);
if (!harness.hasFixtures(op)) throw new Error(`${ROUTE} has no harness fixtures`);
// PROFILE_WORLDS: more worlds made first (each an account with its objects), as the bench's rows
// before this one leave: a list that reads every account grows with them.
for (let i = 0; i < Number(process.env.PROFILE_WORLDS ?? 0); i++) await harness.createWorld(`Profile-${i}`);
const world = await harness.createWorld("Profile");
const caller = harness.allowedCaller(op, world);
// A PATCH reads, merges and writes under the version it read: as in the bench, each client patches
// an object of its own, or the profile would be of their conflicts (retries, then 409).
const paramSets = await Promise.all(Array.from({ length: op.method === "PATCH" ? CONCURRENCY : 1 }, () => harness.paramsFor(op, world)));
let failed = 0;
const request = (client = 0) => wireRequest(harness, harness.validRequest(op, world, paramSets[client % paramSets.length], caller));
await send(request());

// ---- Profile while the load runs ----
const inspector = await connectInspector();
await inspector.call("Profiler.enable");
await inspector.call("Profiler.setSamplingInterval", { interval: 100 });
await inspector.call("Debugger.enable");
await load(2); // warm: JIT, caches
let sent;
let profile;
if (HEAP) {
  await inspector.call("HeapProfiler.enable");
  await inspector.call("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  sent = await load(SECONDS);
  ({ profile } = await inspector.call("HeapProfiler.stopSampling"));
} else {
  await inspector.call("Profiler.start");
  sent = await load(SECONDS);
  ({ profile } = await inspector.call("Profiler.stop"));
}
const modulesOf = new Map();
for (const script of inspector.scripts) modulesOf.set(script.scriptId, moduleIndex((await inspector.call("Debugger.getScriptSource", { scriptId: script.scriptId })).scriptSource, script.url));
inspector.close();
if (HEAP) reportHeap(profile, sent);
else report(profile, sent);
process.exit(0);

/** Sends one request; answers whether it succeeded (below 300). */
async function send(req, { mustSucceed = true } = {}) {
  const res = await fetch(base + req.path, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status >= 300 && mustSucceed) throw new Error(`${req.method} ${req.path}: ${res.status} ${text.slice(0, 200)}`);
  return res.status < 300;
}

async function load(seconds) {
  const end = performance.now() + seconds * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, client) => {
    while (performance.now() < end) {
      if (!(await send(request(client), { mustSucceed: false }))) failed++;
      count++;
    }
  }));
  return count;
}

async function waitUntilUp() {
  for (let i = 0; i < 240; i++) {
    try {
      await (await fetch(base + "/api/health")).arrayBuffer();
      return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not start");
}

/** The Worker's inspector (workerd's, behind wrangler's proxy), which wants DevTools' Origin. */
async function connectInspector() {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECTOR}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "https://devtools.devprod.cloudflare.dev" } });
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  let next = 0;
  const pending = new Map();
  const scripts = [];
  ws.on("message", (data) => {
    const message = JSON.parse(String(data));
    if (message.method === "Debugger.scriptParsed" && message.params.url) scripts.push(message.params);
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    message.error ? waiting.reject(new Error(JSON.stringify(message.error))) : waiting.resolve(message.result);
  });
  return {
    scripts,
    call: (method, params = {}) => new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    }),
    close: () => ws.close(),
  };
}

/**
 * Line (0-based) → the module esbuild bundled there, from its `// path` markers. A script without
 * them is the runtime's own JavaScript (the D1 binding's client, for one): named by its URL.
 */
function moduleIndex(source, url) {
  const starts = [];
  source.split("\n").forEach((line, i) => {
    const marker = /^\/\/ ((?:src|node_modules|scripts)\/\S+|\.\.?\/\S+)$/.exec(line);
    if (marker) starts.push([i, marker[1]]);
  });
  if (starts.length === 0) return () => `runtime: ${url}`;
  return (line) => {
    let lo = 0, hi = starts.length - 1, found = "(bundle prelude)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid][0] <= line) (found = starts[mid][1], lo = mid + 1);
      else hi = mid - 1;
    }
    return found;
  };
}

/** The stage a module belongs to: ours by folder, libraries by package. */
function stageOf(module, functionName) {
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)" || functionName === "(idle)" || functionName === "(root)") return functionName;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg) return `library: ${pkg[1]}`;
  const ours = /^src\/(middleware\/[^/]+|routes\/[^/]+|auth|db|domain|lib)/.exec(module);
  if (ours) return ours[1];
  return module;
}

/** A sample's owner in a profile's call tree: its own frame if it is JS of the bundle, else the nearest such caller (native work is charged to who called it). */
function ownersIn(byId, parentOf) {
  const moduleOfFrame = (callFrame) => (callFrame.url ? (modulesOf.get(callFrame.scriptId)?.(callFrame.lineNumber) ?? callFrame.url) : undefined);
  return (id) => {
    for (let node = byId.get(id); node; node = byId.get(parentOf.get(node.id))) {
      const module = moduleOfFrame(node.callFrame);
      if (module) return { node, module };
    }
    return { node: byId.get(id), module: "(native)" };
  };
}

function report(profile, requests) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length); // µs per sample
  const ownerOf = ownersIn(byId, parentOf);
  const stages = new Map();
  const functions = new Map();
  const count = new Map();
  for (const id of profile.samples) count.set(id, (count.get(id) ?? 0) + 1);
  for (const [id, hits] of count) {
    const { callFrame } = byId.get(id);
    const special = ["(idle)", "(program)", "(garbage collector)", "(root)"].includes(callFrame.functionName);
    const { node, module } = special ? { node: byId.get(id), module: "(native)" } : ownerOf(id);
    const stage = stageOf(module, callFrame.functionName);
    stages.set(stage, (stages.get(stage) ?? 0) + hits);
    const fn = `${node.callFrame.functionName || "(anonymous)"}  ${module}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ""}`;
    functions.set(fn, (functions.get(fn) ?? 0) + hits);
  }
  const total = profile.samples.length;
  const busy = total - (stages.get("(idle)") ?? 0);
  const perRequest = (hits) => ((hits * interval) / requests).toFixed(1);
  console.log(`\n${ROUTE}: ${requests} requests in ${SECONDS} s at concurrency ${CONCURRENCY}${failed ? ` (${failed} answered 300 or more)` : ""}; the Worker busy ${((busy / total) * 100).toFixed(0)} % of the samples, ${perRequest(busy)} µs of CPU per request (under the profiler, which slows it).`);
  console.log("\nCPU by stage: the samples of each module group's code and of the native calls it made. \"runtime: …\" is the runtime's own JavaScript (the D1 binding's client), which the floor runs too.\n");
  console.log("| stage | µs per request | share of busy |\n|---|---:|---:|");
  for (const [stage, hits] of [...stages].sort((a, b) => b[1] - a[1])) {
    if (stage === "(idle)") continue;
    console.log(`| ${stage} | ${perRequest(hits)} | ${((hits / busy) * 100).toFixed(1)} % |`);
  }
  console.log("\nHeaviest functions (their own code and the native calls they made):\n");
  for (const [fn, hits] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${perRequest(hits).padStart(7)} µs  ${fn}`);
}

/** PROFILE_HEAP: the sampled allocations, each charged as report() charges a CPU sample: to the bundle's JavaScript that made it or called the native code that did. */
function reportHeap(profile, requests) {
  const byId = new Map();
  const parentOf = new Map();
  const walk = (node, parent) => {
    byId.set(node.id, node);
    if (parent) parentOf.set(node.id, parent.id);
    for (const child of node.children ?? []) walk(child, node);
  };
  walk(profile.head);
  const ownerOf = ownersIn(byId, parentOf);
  const stages = new Map();
  const functions = new Map();
  let total = 0;
  for (const { nodeId, size } of profile.samples) {
    const { node, module } = ownerOf(nodeId);
    const stage = stageOf(module, node.callFrame.functionName);
    stages.set(stage, (stages.get(stage) ?? 0) + size);
    const fn = `${node.callFrame.functionName || "(anonymous)"}  ${module}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ""}`;
    functions.set(fn, (functions.get(fn) ?? 0) + size);
    total += size;
  }
  const perRequest = (bytes) => (bytes / requests / 1024).toFixed(2);
  console.log(`\n${ROUTE}: ${requests} requests in ${SECONDS} s at concurrency ${CONCURRENCY}${failed ? ` (${failed} answered 300 or more)` : ""}; ${perRequest(total)} KiB allocated per request (sampled).`);
  console.log("\n| stage | KiB allocated per request | share |\n|---|---:|---:|");
  for (const [stage, bytes] of [...stages].sort((a, b) => b[1] - a[1])) console.log(`| ${stage} | ${perRequest(bytes)} | ${((bytes / total) * 100).toFixed(1)} % |`);
  console.log("\nFunctions that allocate most (their own allocations and the native calls they made):\n");
  for (const [fn, bytes] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${perRequest(bytes).padStart(7)} KiB  ${fn}`);
}
