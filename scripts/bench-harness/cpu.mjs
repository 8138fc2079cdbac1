// CPU time of a process and all its descendants, read from Linux's /proc (BENCH_CPU=1 in
// scripts/bench.mjs): where a slice's CPU went, the Worker's processes or the load generator.
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime: 100 on Linux builds for x86-64 and arm64. */
const TICK_US = 10_000;

/** utime + stime in µs of `rootPid` and every process below it; undefined where /proc is not Linux's. */
export function treeCpuMicros(rootPid) {
  let stats;
  try {
    stats = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
      try {
        // The command name may hold spaces and parentheses: fields are counted after its last ")".
        const text = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
        return [{ pid: Number(pid), ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) * TICK_US }];
      } catch {
        return []; // exited meanwhile
      }
    });
  } catch {
    return undefined;
  }
  const children = new Map();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let total = 0;
  const stack = stats.filter((s) => s.pid === rootPid);
  while (stack.length) {
    const s = stack.pop();
    total += s.cpu;
    stack.push(...(children.get(s.pid) ?? []));
  }
  return total;
}

/** This process's own CPU in µs (the load generator). */
export const ownCpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
