// What the bench's sections share to measure a Worker under load (scripts/bench.mjs,
// bench-shards.mjs) and to sum up their runs (bench-transfer.mjs too).

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Closed-loop load: `concurrency` clients sending `next()` ({method, path, headers, body}) to `base`
 * until `durationMs` is up, `count` are sent, or `next` runs out. Answers req/s, p50 and p99 (ms),
 * the mean X-D1-Round-Trips, and the failed answers (status 400 or more) with the first of them.
 */
export async function closedLoop(base, next, { durationMs, concurrency, count = Infinity }) {
  const latencies = [];
  let trips = 0;
  let failed = 0;
  let firstFailure;
  let sent = 0;
  const started = performance.now();
  const end = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end && sent < count) {
        const req = next();
        if (!req) break;
        sent++;
        const t0 = performance.now();
        // A redirect is an answer (the root's 302), not followed: one request is one answer on each side.
        const res = await fetch(base + req.path, { method: req.method, headers: req.headers, body: req.body, redirect: "manual" });
        const text = await res.text();
        latencies.push(performance.now() - t0);
        trips += Number(res.headers.get("X-D1-Round-Trips") ?? 0);
        if (res.status >= 400) {
          failed++;
          firstFailure ??= `${res.status} ${text.slice(0, 160)}`;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return { rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), trips: trips / Math.max(1, latencies.length), failed, firstFailure, count: latencies.length };
}

/** A table in Markdown, its columns padded: those of `textColumns` (indexes) to the left, the others (figures) to the right. */
export function markdownTable(head, cells, textColumns) {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const text = (i) => textColumns.includes(i);
  const line = (c) => `| ${c.map((v, i) => (text(i) ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (text(i) ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(head), rule, ...cells.map(line)].join("\n");
}
