// Runs the project's own wrangler with the Node.js that runs this script. npm puts
// node_modules/.bin first on PATH, so inside npm scripts `node` is the pinned Node 22 from
// the `node` devDependency even on machines whose own Node is older (wrangler needs 22+).
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const wranglerBin = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));

export function assertNode22() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) {
    console.error(`wrangler needs Node.js 22 or newer; this is ${process.version}. Run through npm (npm start, npm run bench) so the pinned Node from node_modules is used.`);
    process.exit(1);
  }
}

/**
 * Environment for every wrangler call: no telemetry, no prompts, and no download of the
 * `Request.cf` object from workers.cloudflare.com (offline it prints a stack trace at every
 * start; the placeholder it falls back to is what the API sees anyway).
 */
export function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_LOG: process.env.WRANGLER_LOG ?? "warn",
    CI: "true",
    ...extra,
  };
}

/** Runs a wrangler command quietly; on failure prints what it said, then throws. */
export function runWranglerQuietly(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: wranglerEnv(env) });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve(output);
      process.stderr.write(output);
      reject(new Error(`wrangler ${args.join(" ")} exited with ${code}`));
    });
  });
}

export function runWrangler(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...args], { stdio: "inherit", env: wranglerEnv(), ...options });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`wrangler ${args[0]} exited with ${code}`))));
  });
}

export function startWrangler(args, options = {}) {
  return spawn(process.execPath, [wranglerBin, ...args], { env: wranglerEnv(), ...options });
}

const serveWorkerScript = fileURLToPath(new URL("./serve-worker.mjs", import.meta.url));

/**
 * Serves a Worker locally like `wrangler dev`, without the devtools inspector that `wrangler dev`
 * always attaches (scripts/serve-worker.mjs): what the bench measures is the Worker, not the
 * debugger protocol. `vars`: "NAME:value" strings, as `--var` takes them.
 */
export function serveWorker({ config = "wrangler.toml", port, persistTo, vars = [] }, options = {}) {
  const args = ["--config", config, "--port", String(port), "--persist-to", persistTo, ...vars.flatMap((v) => ["--var", v])];
  return spawn(process.execPath, [serveWorkerScript, ...args], { env: wranglerEnv(), ...options });
}

/**
 * serveWorker for the bench: the Worker's log lines go to `<persistTo>.log`, written there by its
 * runtime itself (serve-worker.mjs), and what serve-worker says to a pipe. `said()`: the last of
 * both, for the report of a failure.
 */
export function serveWorkerForBench(options) {
  const logFile = `${options.persistTo}.log`;
  const log = openSync(logFile, "w");
  const child = serveWorker(options, { stdio: ["ignore", log, "pipe"] });
  closeSync(log);
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  child.said = () => `${readFileSync(logFile, "utf8").slice(-10_000)}${stderr}`;
  return child;
}

/**
 * Applies the migrations to the local D1 and says what it did. At wrangler's usual log level here
 * (warn) the command prints nothing, so its table is asked for (log, wrangler's default). `persistTo`: another local
 * state folder than .wrangler/state (tests).
 */
export async function applyLocalMigrations(persistTo, config = "wrangler.toml") {
  const reports = [];
  for (const binding of configuredDatabases(config)) {
    const args = ["d1", "migrations", "apply", binding, "--local", "--config", config, ...(persistTo ? ["--persist-to", persistTo] : [])];
    reports.push(migrationReport(await runWranglerQuietly(args, { WRANGLER_LOG: "log" }), binding));
  }
  return reports.join("\n");
}

/**
 * The D1 bindings the migrations apply to: the directory and every shard that wrangler.toml's
 * [vars] DIRECTORY and SHARDS name (docs/sharding.md), each once; "DB" when neither is set.
 */
export function configuredDatabases(config = "wrangler.toml") {
  const text = readFileSync(config, "utf8");
  const value = (name) => new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m").exec(text)?.[1] ?? "";
  const directory = value("DIRECTORY").trim() || "DB";
  const shards = value("SHARDS").split(",").map((s) => s.trim()).filter(Boolean);
  return [...new Set([directory, ...shards])];
}

/**
 * Writes `file`, wrangler.toml over a directory and several shards (docs/sharding.md): DIRECTORY and
 * SHARDS set, and a [[d1_databases]] binding (a local database of its own, migrated from drizzle/)
 * for each shard wrangler.toml does not bind. Beside wrangler.toml, so its relative paths hold; the
 * file is removed when the process exits. Answers `file`.
 */
export function writeShardedConfig(file, { directory = "DB", shards }) {
  const base = readFileSync("wrangler.toml", "utf8");
  const bound = new Set([...base.matchAll(/^binding\s*=\s*"([^"]+)"/gm)].map((match) => match[1]));
  const set = (text, name, value) => text.replace(new RegExp(`^${name}\\s*=.*$`, "m"), `${name} = "${value}"`);
  const added = shards
    .filter((binding) => !bound.has(binding))
    .map((binding, i) => `\n[[d1_databases]]\nbinding = "${binding}"\ndatabase_name = "analytics-metadata-${binding.toLowerCase()}"\ndatabase_id = "00000000-0000-0000-0000-${String(i + 1).padStart(12, "0")}"\nmigrations_dir = "drizzle"\n`);
  writeFileSync(file, set(set(base, "DIRECTORY", directory), "SHARDS", shards.join(",")) + added.join(""));
  process.on("exit", () => rmSync(file, { force: true }));
  return file;
}

/** What `wrangler d1 migrations apply` did, from its table: the migrations marked applied (✅). */
export function migrationReport(output, binding = "DB") {
  if (/No migrations to apply/.test(output)) return `Local database ${binding} up to date: no migration to apply.`;
  const applied = [...new Set([...output.matchAll(/(\d{4}_[\w.-]+\.sql)\s*│\s*✅/g)].map((match) => match[1]))];
  return applied.length > 0 ? `Local database ${binding} migrated: applied ${applied.join(", ")}.` : `Local database ${binding} migrated.`;
}
