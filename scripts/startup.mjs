// npm run startup: the Worker's start-up CPU against its floor (issue 16, docs/performance.md).
//
// `wrangler check startup` builds the Worker as deployed and profiles its start-up in local workerd.
// With a start-up module of a few KiB, its figure is mostly the sampler's own noise: one sample may
// carry the 20 to 35 ms since the one before it, and a Worker that does nothing at all shows 0 to
// 35 ms. So this alternates the service with such a Worker (scripts/startup-floor), ROUNDS times
// (default 7), and prints both medians and ranges, and the bundle size.
import { assertNode22, runWranglerQuietly } from "./wrangler.mjs";

assertNode22();
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const sides = { service: { config: "wrangler.toml", active: [] }, floor: { config: "scripts/startup-floor/wrangler.toml", active: [] } };
let bundle = "";
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, side] of Object.entries(sides)) {
    const output = await runWranglerQuietly(["check", "startup", `--args=--config=${side.config}`], { WRANGLER_LOG: "log" });
    const active = /Active: ([\d.]+) ms/.exec(output);
    if (!active) throw new Error(`wrangler check startup (${name}) printed no start-up figure:\n${output}`);
    side.active.push(Number(active[1]));
    if (name === "service") bundle = /Bundle: ([^\n│]+)/.exec(output)?.[1].trim() ?? bundle;
  }
  console.log(`round ${round}: service ${sides.service.active.at(-1)} ms, floor ${sides.floor.active.at(-1)} ms`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, side] of Object.entries(sides)) {
  console.log(`${name.padEnd(8)} start-up CPU: median ${median(side.active)} ms, from ${Math.min(...side.active)} to ${Math.max(...side.active)} ms (${ROUNDS} runs)`);
}
console.log(`bundle: ${bundle}`);
