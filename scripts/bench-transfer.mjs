// npm run bench's export and import section (issue 19 §4; `npm run bench -- --only transfer` runs it
// alone): one account of 50 sources of 200 fields, 20 calendars, 10 JSON datasets of 1 MB and 500
// folders, built through the API, then its export, a dry-run import into an empty account, the
// import applied, and applied again (every entry UNCHANGED), each timed with its D1 round trips
// (X-D1-Round-Trips). Its own Worker (scripts/serve-worker.mjs) on a fresh local D1, so the main bench's data does not
// weigh on it. Knobs: BENCH_TRANSFER_RUNS (runs of each measure, 3; the median is printed).
import { loadavg } from "node:os";
import { join } from "node:path";
import { runWranglerQuietly } from "./wrangler.mjs";
import { basic, reportFailure, serveForBench } from "./bench-harness/client.mjs";
import { median } from "./bench-harness/load.mjs";

const SIZE = { sources: 50, fieldsPerSource: 200, calendars: 20, datasets: 10, datasetBytes: 1_000_000, folders: 500 };
const RUNS = Number(process.env.BENCH_TRANSFER_RUNS ?? 3);
const CONCURRENCY = 8;
const PASSWORD = "bench transfer password";

/** Runs the section against a Worker of its own (scripts/serve-worker.mjs) on `port`, its D1 state under `work`; prints its report. */
export async function benchTransfer({ port, work, vars }) {
  const state = join(work, "transfer");
  await runWranglerQuietly(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  let worker;
  try {
    worker = await serveForBench({ port, persistTo: state, vars });
    await run(worker.api);
  } catch (error) {
    reportFailure("export and import", error, worker?.said());
  } finally {
    await worker?.stop();
  }
}

/** Runs `tasks` (functions answering promises) CONCURRENCY at a time, in order of start. */
async function pool(tasks) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

/** A dataset of about `bytes` bytes of JSON: rows of varied members, some text non-ASCII. */
function datasetOf(n, bytes) {
  const rows = [];
  let size = 12;
  for (let i = 0; size < bytes; i++) {
    const row = { id: i, carrier: ["LH", "AF", "BA", "ÖBB"][i % 4], price: Math.round(((i * 7919) % 100_000) * 1.25) / 100, when: `2026-${String((i % 12) + 1).padStart(2, "0")}-01`, tags: [`t${i % 7}`, `set ${n}`], ok: i % 3 === 0 };
    size += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return { rows };
}

export async function build(api) {
  const account = (await api.send("POST", "/api/accounts", { body: { name: `Bench transfer ${Date.now().toString(36)}` } })).json();
  const adminName = `bench-transfer-${Date.now().toString(36)}`;
  const admin = (await api.send("POST", "/api/users", { body: { name: adminName, password: PASSWORD, accountId: account.id, groups: ["Users", "Administrators"], roles: [] } })).json();
  const auth = basic(adminName, PASSWORD);
  const as = (method, path, options = {}) => api.send(method, path, { auth, ...options });

  const groups = await pool(Array.from({ length: 5 }, (_, i) => () => api.send("POST", "/api/groups", { body: { name: `Team ${i}`, accountId: account.id, privileges: ["ROLE_EDIT_FORMULAS"] } }).then((r) => r.json())));
  const calendars = await pool(
    Array.from({ length: SIZE.calendars }, (_, i) => () => {
      const body =
        i % 2 === 0
          ? { type: "MONTH_SHIFT", name: `Shifted ${i}`, monthShift: (i % 23) - 11 }
          : { type: "FISCAL_445", name: `Retail ${i}`, fiscal445: { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: true, yearEndIsoMonth: "DECEMBER", quarterType: "QUARTER_445_WEEKS", leapWeekInMonth: 12 } };
      return as("POST", "/api/calendars", { body }).then((r) => r.json());
    }),
  );
  await pool(Array.from({ length: SIZE.datasets }, (_, i) => () => as("POST", "/api/json-datasets", { body: { name: `Dataset ${i}`, description: "1 MB of rows", data: datasetOf(i, SIZE.datasetBytes) } })));

  // Each source: 190 native fields (with the source), 8 derived (2 on a stored calendar) and 2 hierarchies, one POST each; 2 custom metrics.
  const natives = SIZE.fieldsPerSource - 10;
  const nativeFields = Array.from({ length: natives }, (_, i) =>
    i % 3 === 2
      ? { name: `a${i}`, label: `Attribute ${i}`, origin: { type: "NATIVE", nativeOrigin: { originalName: `a${i}`, originalType: "VARCHAR", dataEntityId: "public.facts" } } }
      : { name: `n${i}`, label: `Measure ${i}`, origin: { type: "NATIVE", nativeOrigin: { originalName: `n${i}`, originalType: "DECIMAL(12,2)", dataEntityId: "public.facts" } } },
  );
  const sources = await pool(
    Array.from({ length: SIZE.sources }, (_, s) => () => as("POST", "/api/sources", { body: { name: `Source ${String(s).padStart(2, "0")}`, description: "bench", fields: nativeFields } }).then((r) => r.json())),
  );
  const fieldCalls = sources.flatMap((source, s) => [
    ...Array.from({ length: 8 }, (_, d) => () => {
      const calendar = d < 2 ? { calendarId: calendars[(s + d) % calendars.length].id } : {};
      return as("POST", `/api/sources/${source.id}/fields`, { body: { name: `d${d}`, origin: { type: "DERIVED", derivedOrigin: { expression: `n${3 * d} * ${d + 2}`, ...calendar } } } });
    }),
    ...Array.from({ length: 2 }, (_, h) => () =>
      as("POST", `/api/sources/${source.id}/fields`, { body: { name: `h${h}`, origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField: `a${2 + 6 * h}`, parentField: `a${5 + 6 * h}` } } } } }),
    ),
    ...Array.from({ length: 2 }, (_, m) => () => as("PUT", `/api/sources/${source.id}/custom-metrics/m${m}`, { body: { expression: `sum(n${m * 3}) / count(*)` } })),
    () => as("PUT", `/api/sources/${source.id}/permissions`, { body: { content: [{ principalType: "GROUP", principalId: groups[s % groups.length].id, permission: "READ" }] } }),
  ]);
  await pool(fieldCalls);

  // 500 folders: 20 roots (half dashboards, half reports), each with 8 children of 2 children each; an ACL on each root, an item in every leaf's first.
  const roots = await pool(
    Array.from({ length: SIZE.folders / 25 }, (_, r) => () => as("POST", "/api/folders", { body: { folder_name: `Library ${r}`, content_type: r % 2 ? "REPORTS" : "DASHBOARDS", description: "bench" } }).then((res) => ({ ...res.json(), reports: r % 2 === 1 }))),
  );
  const children = await pool(roots.flatMap((root) => Array.from({ length: 8 }, (_, c) => () => as("POST", "/api/folders", { body: { folder_name: `Team ${c}`, parent_id: root.id } }).then((res) => ({ ...res.json(), reports: root.reports })))));
  const leaves = await pool(children.flatMap((child) => Array.from({ length: 2 }, (_, l) => () => as("POST", "/api/folders", { body: { folder_name: `Project ${l}`, parent_id: child.id } }).then((res) => ({ ...res.json(), reports: child.reports })))));
  await pool([
    ...roots.map((root, r) => () => as("PUT", `/api/folders/${root.id}/permissions`, { body: { content: [{ principalType: "GROUP", principalId: groups[r % groups.length].id, permissions: ["READ", "WRITE"] }] } })),
    ...leaves.filter((_, i) => i % 2 === 0).map((leaf, i) => () => as("PUT", `/api/folders/${leaf.id}/items/${leaf.reports ? "REPORT" : "DASHBOARD"}/item-${i}`, { body: { name: `Board ${i}` } })),
  ]);
  return { account, admin, folders: roots.length + children.length + leaves.length };
}

/** Plan entries counted by status (and, for CONFLICT, by type). */
function statusCounts(entries) {
  const counts = {};
  for (const e of entries) {
    const key = e.status === "CONFLICT" ? `CONFLICT (${e.type})` : e.status;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.entries(counts)
    .map(([status, n]) => `${status} ${n}`)
    .join(", ");
}

async function run(api) {
  const built0 = performance.now();
  const { account, admin, folders } = await build(api);
  const buildSeconds = (performance.now() - built0) / 1000;
  const requests = api.requests();
  const exportOf = (id) => api.send("GET", `/api/accounts/${id}/export`);
  const importInto = (id, raw, query = "", expect = [200]) => api.send("POST", `/api/accounts/${id}/import${query}`, { raw, expect });
  // The folders' ACLs name their creator (docs/export-import.md), and user names are unique in a
  // deployment, so each target gets that name: its holder so far is renamed, and the target's own
  // administrator of that name is made (what an import into another deployment finds there).
  let holder = admin;
  const emptyAccount = async () => {
    const target = (await api.send("POST", "/api/accounts", { body: { name: `Bench import ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}` } })).json();
    await api.send("PATCH", `/api/users/${holder.id}`, { body: { name: `${admin.name}-was-${Math.random().toString(36).slice(2, 8)}` } });
    holder = (await api.send("POST", "/api/users", { body: { name: admin.name, password: PASSWORD, accountId: target.id, groups: ["Users", "Administrators"], roles: [] } })).json();
    return target;
  };
  const measure = async (n, once) => {
    const samples = [];
    for (let i = 0; i < n; i++) samples.push(await once(i));
    return { ms: median(samples.map((s) => s.ms)), trips: median(samples.map((s) => s.trips)), last: samples.at(-1) };
  };

  await exportOf(account.id); // warm
  const exported = await measure(RUNS, () => exportOf(account.id));
  const bundle = exported.last.text;
  const target = await emptyAccount();
  const dry = await measure(RUNS, () => importInto(target.id, bundle, "?dryRun=true"));
  const plan = dry.last.json().entries;
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  const line = (label, m, extra = "") => console.log(`  ${label.padEnd(44)} ${m.ms.toFixed(0).padStart(6)} ms  ${String(m.trips).padStart(2)} D1 round trip(s)${extra}`);

  console.log(`\nExport and import (issue 19): one account of ${SIZE.sources} sources of ${SIZE.fieldsPerSource} fields, ${SIZE.calendars} calendars, ${SIZE.datasets} JSON datasets of ${mb(SIZE.datasetBytes)}, ${folders} folders`);
  console.log(`  built through the API in ${buildSeconds.toFixed(1)} s (${requests} requests, ${CONCURRENCY} at a time); medians of ${RUNS} runs unless said; local D1, no debugger (serve-worker.mjs); load average ${loadavg()[0].toFixed(1)}`);
  line("export", exported, `  ${mb(Buffer.byteLength(bundle))}, ${plan.length} objects`);
  line("import, dry run, into an empty account", dry, `  ${statusCounts(plan)}`);

  // While the import cannot write some types (a CONFLICT each), the apply is refused: shown, then measured without those objects.
  let applied = bundle;
  const conflicting = [...new Set(plan.filter((e) => e.status === "CONFLICT").map((e) => e.type))];
  if (conflicting.length > 0) {
    const refused = await importInto(target.id, bundle, "", [409]);
    line("import applied: refused (409 IMPORT_CONFLICT)", { ms: refused.ms, trips: refused.trips }, "  (one run)");
    const section = { folder: "folders", connection: "connections", materializedView: "materializedViews" };
    const parsed = JSON.parse(bundle);
    for (const type of conflicting) if (section[type]) parsed[section[type]] = [];
    applied = JSON.stringify(parsed);
    console.log(`  below: the bundle without its ${conflicting.join(", ")} objects (${mb(Buffer.byteLength(applied))}), which this import cannot write yet`);
  }
  const targets = [];
  const apply = await measure(RUNS, async () => {
    const fresh = await emptyAccount();
    targets.push(fresh);
    return importInto(fresh.id, applied);
  });
  line("import applied into an empty account", apply, `  ${statusCounts(apply.last.json().entries)} (a fresh account each run)`);
  // Into the last target, whose administrator holds the creator's name now.
  const again = await measure(RUNS, () => importInto(targets.at(-1).id, applied));
  line("import applied again (nothing to write)", again, `  ${statusCounts(again.last.json().entries)}`);
  const exportedB = await measure(1, () => exportOf(targets.at(-1).id));
  line("export of the imported account", exportedB, `  ${mb(Buffer.byteLength(exportedB.last.text))} (one run)`);
}
