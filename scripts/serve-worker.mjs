// Runs a Worker locally as `wrangler dev` does (same runtime, bundling, bindings and local
// storage), without two things of a developer's terminal that a deployed Worker never pays for:
// - the devtools inspector, which `wrangler dev` always attaches: with it V8 serializes every
//   console call for the inspector protocol, and wrangler relays it;
// - wrangler's printing of each console line, which searches the line for stack frames to
//   source-map: here each line the Worker writes is copied to stdout (stderr for warnings and
//   errors) as it is.
// Both would be charged to whichever side of the bench logs. npm run bench runs the service and
// its floor through this, alike.
//
//   node scripts/serve-worker.mjs --config wrangler.toml --port 8797 --persist-to DIR [--var NAME:value ...]
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
