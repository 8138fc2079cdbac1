// CPU time of a process and all its descendants, read from Linux's /proc (BENCH_CPU=1 in
// scripts/bench.mjs): where a slice's CPU went, the Worker's processes or the load generator.
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime: 100 on Linux builds for x86-64 and arm64. */
const TICK_US = 10_000;

/** utime + stime in µs of `rootPid` and every process below it (Linux's /proc; bench.mjs refuses BENCH_CPU without it). */
export function treeCpuMicros(rootPid) {
  const children = new Map();
  const cpu = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let text;
    try {
      text = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // The command name may hold spaces and parentheses: fields are counted after its last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const pid = Number(name);
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * TICK_US);
    const siblings = children.get(Number(fields[1]));
    if (siblings) siblings.push(pid);
    else children.set(Number(fields[1]), [pid]);
  }
  let total = 0;
  const stack = cpu.has(rootPid) ? [rootPid] : [];
  while (stack.length) {
    const pid = stack.pop();
    total += cpu.get(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** This process's own CPU in µs (the load generator). */
export const ownCpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
