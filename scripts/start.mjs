// npm start: apply the migrations to the local D1, make .dev.vars from the example if it is
// missing, and serve the API on http://127.0.0.1:8787 (PORT overrides the port). Says where the
// service is once it answers.
import { copyFileSync, existsSync } from "node:fs";
import { assertNode22, runWranglerQuietly, startWrangler } from "./wrangler.mjs";

assertNode22();
await import("./prepare-assets.mjs");
if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (local supervisor credentials).");
}
const applied = await runWranglerQuietly(["d1", "migrations", "apply", "DB", "--local"]);
console.log(/No migrations to apply/.test(applied) ? "Local database up to date." : "Local database migrated.");

const port = process.env.PORT ?? "8787";
const origin = `http://127.0.0.1:${port}`;
const child = startWrangler(["dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false"], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));

for (let i = 0; i < 240 && child.exitCode === null; i++) {
  try {
    if ((await fetch(`${origin}/api/health`)).ok) {
      console.log(`Ready: ${origin} — API reference at /docs — supervisor credentials in .dev.vars`);
      break;
    }
  } catch {}
  await new Promise((resolve) => setTimeout(resolve, 250));
}
