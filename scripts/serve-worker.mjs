// Runs a Worker locally as `wrangler dev` does (same runtime, bundling, bindings and local
// storage), without two things of a developer's terminal that a deployed Worker never pays for:
// - the devtools inspector, which `wrangler dev` always attaches: with it V8 serializes every
//   console call for the inspector protocol, and wrangler relays it;
// - the relay of each console line through Node: Miniflare reads every line the runtime writes,
//   parses it as JSON and hands it to wrangler, which searches it for stack frames to source-map,
//   all in this process, on the same cores as the Worker under measure. Here the runtime writes
//   its lines (as it formats them: one JSON object each) to this process's stdout itself; its
//   stderr is relayed as before;
// - the local observability collector (wrangler's stand-in for Workers Logs and traces, for its
//   local explorer): a streaming tail Worker in the same runtime process, to which every
//   invocation streams its events, each console call among them, and which stores them in SQLite.
//   Measured: the first console call of an I/O turn costs about 400 µs of the runtime's CPU with
//   it and about 15 µs without it (docs/performance.md). Deployed, Workers Logs are collected by
//   the platform, not by a Worker on the same core. X_LOCAL_OBSERVABILITY=false turns it off.
// All would be charged to whichever side of the bench logs. npm run bench runs the service and
// its floor through this, alike.
//
//   node scripts/serve-worker.mjs --config wrangler.toml --port 8797 --persist-to DIR [--var NAME:value ...]
import childProcess from "node:child_process";
import { PassThrough } from "node:stream";
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";
import { assertNode22 } from "./wrangler.mjs";

assertNode22();
const { values } = parseArgs({
  options: {
    config: { type: "string", default: "wrangler.toml" },
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string" },
    "persist-to": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
  },
});
const bindings = Object.fromEntries(
  values.var.map((pair) => {
    const at = pair.indexOf(":");
    return [pair.slice(0, at), { type: "plain_text", value: pair.slice(at + 1) }];
  }),
);
// The runtime's stdout is this process's own (see the top); Miniflare is handed an empty stream in its place.
const spawn = childProcess.spawn;
childProcess.spawn = (command, args, options) => {
  if (!/workerd/.test(String(command)) || !Array.isArray(options?.stdio)) return spawn(command, args, options);
  const child = spawn(command, args, { ...options, stdio: [options.stdio[0], "inherit", ...options.stdio.slice(2)] });
  child.stdout = new PassThrough();
  return child;
};
process.env.X_LOCAL_OBSERVABILITY = "false";
const worker = await unstable_startWorker({
  config: values.config,
  bindings,
  dev: {
    server: { hostname: values.ip, port: Number(values.port) },
    inspector: false,
    persist: values["persist-to"],
    watch: false,
    logLevel: "warn",
    structuredLogsHandler: ({ level, message }) => (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${message}\n`),
  },
});
await worker.ready;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, async () => {
    await worker.dispose().catch(() => {});
    process.exit(0);
  });
}
