// npm start: apply the migrations to the local D1, make .dev.vars from the example if it is
// missing, and serve the API on http://127.0.0.1:8787 (PORT overrides the port), its request log
// in the readable form (LOG_FORMAT=pretty). Says which migrations it applied, and where the
// service is once it answers; stops at once, non-zero, when the port is taken.
import { copyFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { applyLocalMigrations, assertNode22, startWrangler } from "./wrangler.mjs";

assertNode22();
const port = process.env.PORT ?? "8787";
// Before anything else: with the port taken, the health check below would find the other server
// and say "Ready" while wrangler fails.
if (!(await portIsFree(Number(port)))) {
  console.error(`Port ${port} is taken: another program (perhaps another npm start) listens on 127.0.0.1:${port}. Stop it, or choose another port: PORT=8788 npm start`);
  process.exit(1);
}
await import("./prepare-assets.mjs");
if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (local supervisor credentials).");
}
console.log(await applyLocalMigrations());

const origin = `http://127.0.0.1:${port}`;
const child = startWrangler(["dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false", "--var", "LOG_FORMAT:pretty"], { stdio: "inherit" });
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

/** True when nothing listens on 127.0.0.1:port (we could listen there ourselves). */
function portIsFree(portNumber) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host: "127.0.0.1", port: portNumber, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

