// npm run walkthrough: what CI does with the README's walk-through, so that it cannot go stale.
// Starts `npm run demo:postgres` and `npm run demo:webhooks`, then twice: `npm run db:reset`, `npm start`, the walk-through
// (scripts/walkthrough.sh), stop. Fails if any call of the walk-through gets another status than
// the one it expects. PG_PORT (default 5433), HOOKS_PORT (default 8790) and PORT (default 8787) pick the ports.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { assertNode22 } from "./wrangler.mjs";

assertNode22();
const pgPort = process.env.PG_PORT ?? "5433";
const port = process.env.PORT ?? "8787";
const hooksPort = process.env.HOOKS_PORT ?? "8790";

/** Starts a long-running script and resolves once a line of its output matches `ready`. */
async function startUntil(name, args, env, ready) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const prefix = (chunk) => chunk.toString().replace(/^(?=.)/gm, `[${name}] `);
  child.stderr.on("data", (chunk) => process.stderr.write(prefix(chunk)));
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      process.stdout.write(prefix(chunk));
      output += chunk;
      if (ready.test(output)) resolve();
    });
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
    setTimeout(() => reject(new Error(`${name} was not ready within 120 s`)), 120_000).unref();
  });
  return child;
}

/** Stops a started script and everything it started (its process group). */
async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  process.kill(-child.pid, "SIGINT");
  const timer = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

function run(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`))));
  });
}

const postgres = await startUntil("postgres", ["scripts/demo-postgres.mjs"], { PORT: pgPort }, /PostgreSQL is ready/);
const receiver = await startUntil("webhooks", ["scripts/demo-webhooks.mjs"], { PORT: hooksPort }, /receiver listening/);
let server;
try {
  for (const round of [1, 2]) {
    console.log(`\n=== Walk-through, round ${round}: npm run db:reset, npm start, scripts/walkthrough.sh ===`);
    await run(process.execPath, ["scripts/db-reset.mjs"]);
    server = await startUntil("npm start", ["scripts/start.mjs"], { PORT: port }, /^Ready: /m);
    await run("bash", ["scripts/walkthrough.sh"], { API: `http://127.0.0.1:${port}/api`, PG_PORT: pgPort, HOOKS: `http://127.0.0.1:${hooksPort}` });
    await stop(server);
  }
  console.log("\nThe walk-through ran twice, each time against a freshly reset database.");
} finally {
  if (server) await stop(server);
  await stop(postgres);
  await stop(receiver);
}
