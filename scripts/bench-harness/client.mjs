// What the bench's sections that start a Worker of their own share (scripts/bench-transfer.mjs,
// bench-shards.mjs): the Worker served and stopped, and a client that sends the API's requests.
import { serveWorkerForBench } from "../wrangler.mjs";

export const basic = (username, password) => "Basic " + Buffer.from(`${username}:${password}`).toString("base64");
/** The supervisor of the bench's variables (bench-harness/service.mjs). */
export const SUPERVISOR = basic("supervisor", "supervisor-test-password");

/**
 * Serves a Worker (scripts/serve-worker.mjs) and waits until it answers: its `api` (client below),
 * `said()` (the last of its log and stderr) and `stop()`, which waits for its exit. Stopped at this process's
 * exit in any case.
 */
export async function serveForBench(options) {
  const child = serveWorkerForBench(options);
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = () => running() && child.kill("SIGTERM");
  process.on("exit", kill);
  const stop = async () => {
    process.off("exit", kill);
    if (!running()) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    kill();
    await exited;
  };
  const api = client(`http://127.0.0.1:${options.port}`);
  await api.waitUntilUp(running).catch(async (error) => {
    await stop();
    throw new Error(`${error.message}:\n${child.said().slice(-2000)}`);
  });
  return { api, said: child.said, stop };
}

/** Prints a section's failure (with what its Worker said last) and makes the bench's exit code 1. */
export function reportFailure(section, error, said = "") {
  console.error(`The ${section} bench failed: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}\n${said.slice(-2000)}`);
  process.exitCode = 1;
}

export function client(base) {
  let requests = 0;
  /** One request; `expect` lists the statuses that are not a failure (anything else throws, naming it). */
  const send = async (method, path, { auth = SUPERVISOR, body, raw, expect = [200, 201, 204] } = {}) => {
    requests++;
    const t0 = performance.now();
    const res = await fetch(base + path, {
      method,
      headers: { Authorization: auth, ...(body !== undefined || raw !== undefined ? { "Content-Type": "application/json" } : {}), "X-Enable-Preview": "true" },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!expect.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return { status: res.status, text, ms, trips: Number(res.headers.get("X-D1-Round-Trips") ?? NaN), json: () => JSON.parse(text) };
  };
  /** Polls the health check for up to 3 minutes (a build on a busy machine), while `alive()`. */
  const waitUntilUp = async (alive = () => true) => {
    for (let i = 0; i < 720 && alive(); i++) {
      try {
        await (await fetch(`${base}/api/health`)).arrayBuffer();
        return;
      } catch {}
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${base} did not start${alive() ? " in 3 minutes" : ""}`);
  };
  return { send, waitUntilUp, requests: () => requests };
}
