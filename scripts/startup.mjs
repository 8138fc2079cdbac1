// npm run startup: the Worker's start-up CPU against its floor (issue 16, docs/performance.md).
//
// `wrangler check startup` builds the Worker as deployed and profiles its start-up in local workerd.
// With a start-up module of a few KiB, its figure is mostly the sampler's own noise: one sample may
// carry the 20 to 35 ms since the one before it, and a Worker that does nothing at all shows 0 to
// 35 ms. And the modules uploaded with a Worker weigh on it even when nothing imports them: the
// profiler's sample lands in a garbage collection of about 17 ms when the service's chunks are
// uploaded beside a Worker that does nothing. So this alternates three Workers, ROUNDS times
// (default 7): the service; that Worker with the service's modules beside it, none imported (the
// service's honest floor); and that Worker alone (scripts/startup-floor). It prints their medians
// and ranges, and the bundle size.
//
// Then the same start-up counted without a sampler: run as `wrangler check startup` runs it (its
// Miniflare, a module that imports the Worker's main module on a request), the runtime's own CPU
// time (every thread of the workerd process, in nanoseconds, from /proc/<pid>/task/*/schedstat)
// over the request that imports the main module, less the same over a plain request just before
// it. V8's sampler cannot do this: even asked for a sample every 100 µs, it took 16 samples in the
// 95 ms of one start-up here, so each sample stands for several milliseconds. Linux only.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { unstable_readConfig } from "wrangler";
import { assertNode22, runWranglerQuietly } from "./wrangler.mjs";

assertNode22();
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const { compatibility_date: compatibilityDate, compatibility_flags: compatibilityFlags } = unstable_readConfig({ config: "wrangler.toml" });
// The floor with the service's modules: scripts/startup-floor's Worker, and dist/chunks as the
// service's build writes them (copied after the service's first run, which builds dist/).
const modulesFloor = mkdtempSync(join(tmpdir(), "startup-modules-floor-"));
process.on("exit", () => rmSync(modulesFloor, { recursive: true, force: true }));
writeFileSync(
  join(modulesFloor, "wrangler.toml"),
  [
    `name = "startup-modules-floor"`,
    `main = "worker.js"`,
    `compatibility_date = ${JSON.stringify(compatibilityDate)}`,
    `compatibility_flags = ${JSON.stringify(compatibilityFlags)}`,
    `no_bundle = true`,
    `find_additional_modules = true`,
    `rules = [{ type = "ESModule", globs = ["chunks/*.js"] }]`,
  ].join("\n"),
);
cpSync("scripts/startup-floor/worker.js", join(modulesFloor, "worker.js"));
const sides = {
  service: { config: "wrangler.toml", active: [] },
  "floor with the service's modules": { config: join(modulesFloor, "wrangler.toml"), active: [] },
  floor: { config: "scripts/startup-floor/wrangler.toml", active: [] },
};
let bundle = "";
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, side] of Object.entries(sides)) {
    if (name !== "service" && !existsSync(join(modulesFloor, "chunks"))) cpSync("dist/chunks", join(modulesFloor, "chunks"), { recursive: true });
    const output = await runWranglerQuietly(["check", "startup", `--args=--config=${side.config}`], { WRANGLER_LOG: "log" });
    const active = /Active: ([\d.]+) ms/.exec(output);
    if (!active) throw new Error(`wrangler check startup (${name}) printed no start-up figure:\n${output}`);
    side.active.push(Number(active[1]));
    if (name === "service") bundle = /Bundle: ([^\n│]+)/.exec(output)?.[1].trim() ?? bundle;
  }
  console.log(`round ${round}: ${Object.entries(sides).map(([name, side]) => `${name} ${side.active.at(-1)} ms`).join(", ")}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs) => `median ${median(xs)} ms, from ${Math.min(...xs)} to ${Math.max(...xs)} ms (${xs.length} runs)`;
for (const [name, side] of Object.entries(sides)) console.log(`${name.padEnd(32)} start-up CPU: ${range(side.active)}`);
console.log(`bundle: ${bundle}`);

// ---- The same start-up, counted by the runtime's CPU time ----
if (!existsSync("/proc/self/task")) process.exit(0);
// The Miniflare wrangler itself runs (its own dependency), as `wrangler check startup` does; every
// Worker under the service's compatibility date and flags.
const { Miniflare, convertV4MiniflareOptions } = createRequire(createRequire(import.meta.url).resolve("wrangler"))("miniflare");
// wrangler check startup has just built dist/ as deployed (wrangler.toml [build]).
const counted = {
  service: { entry: "index.js", modules: modulesOf("dist"), ms: [] },
  "floor with the service's modules": { entry: "worker.js", modules: modulesOf(modulesFloor), ms: [] },
  floor: { entry: "worker.js", modules: modulesOf("scripts/startup-floor"), ms: [] },
};
for (let round = 1; round <= ROUNDS; round++) {
  for (const side of Object.values(counted)) side.ms.push(Number((await startupCpuMs(side)).toFixed(2)));
}
console.log("\nStart-up CPU counted by the runtime (the request importing the main module, less a plain request):");
for (const [name, side] of Object.entries(counted)) console.log(`${name.padEnd(32)} start-up CPU: ${range(side.ms)}`);

/** Every module of a folder, named by its path there (as the deploy upload names dist/'s). */
function modulesOf(dir) {
  const files = readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".js"));
  return files.map((f) => ({ type: "ESModule", path: `/${relative(dir, join(dir, f))}`, contents: readFileSync(join(dir, f), "utf8") }));
}

/** The runtime's CPU in ms to import a Worker's main module, in a runtime of its own. */
async function startupCpuMs({ entry, modules }) {
  const importer = `export default { async fetch(request) { if (new URL(request.url).pathname === "/import") await import(${JSON.stringify(entry)}); return new Response("ok"); } };`;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      name: "startup",
      compatibilityDate,
      compatibilityFlags,
      modulesRoot: "/",
      modules: [{ type: "ESModule", path: "/__startup.js", contents: importer }, ...modules],
      handleStructuredLogs: () => {},
    }),
  );
  try {
    await mf.ready;
    const runtime = runtimeProcess();
    const cpuOf = async (path) => {
      const before = cpuNs(runtime);
      const response = await mf.dispatchFetch(`https://example.com${path}`);
      await response.text();
      return (cpuNs(runtime) - before) / 1e6;
    };
    for (let i = 0; i < 3; i++) await cpuOf("/");
    const plain = await cpuOf("/");
    return (await cpuOf("/import")) - plain;
  } finally {
    await mf.dispose();
  }
}

/** The workerd process this process started. */
function runtimeProcess() {
  const pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  const pid = pids.find((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      return stat.includes("(workerd)") && Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid;
    } catch {
      return false;
    }
  });
  if (!pid) throw new Error("No workerd process of this one found in /proc");
  return pid;
}

/** CPU time of every thread of a process, in ns (the first field of schedstat). */
function cpuNs(pid) {
  let sum = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return sum;
}
