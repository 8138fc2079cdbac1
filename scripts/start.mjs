// npm start: apply the migrations to the local D1, make .dev.vars from the example if it is
// missing, and serve the API on http://127.0.0.1:8787 (PORT overrides the port).
import { copyFileSync, existsSync } from "node:fs";
import { assertNode22, runWrangler, startWrangler } from "./wrangler.mjs";

assertNode22();
await import("./prepare-assets.mjs");
if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (local supervisor credentials).");
}
await runWrangler(["d1", "migrations", "apply", "DB", "--local"], { env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });

const port = process.env.PORT ?? "8787";
const child = startWrangler(["dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false"], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
