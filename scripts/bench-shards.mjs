// npm run bench's section over two shards (issue 21, docs/sharding.md; `npm run bench -- --only
// shards` runs it alone): what routing costs a request, in D1 round trips (X-D1-Round-Trips) on a
// cold and on a warm isolate, with warm req/s and p50, on an account of each shard beside the same
// request on one database.
//
// Two Workers of its own (scripts/serve-worker.mjs), each on a fresh local D1 with the migrations
// applied to every database: the default, one database, and a directory with two shards
// (DIRECTORY=DB, SHARDS=DB,SHARD_2: wrangler.toml with a SHARD_2 binding, writeShardedConfig). On
// each, through the API, an account per request and shard (new accounts alternate between the
// shards), each with its administrator (the user), two more users and two groups. Then both Workers
// start again, so each request's first send is cold: a fresh Worker, a credential it has not verified,
// an account it has not placed. Then warm: ROUNDS closed-loop slices at CONCURRENCY (the main bench's
// knobs), alternated over one database and the two shards; medians.
import { join } from "node:path";
import { loadavg } from "node:os";
import { applyLocalMigrations, writeShardedConfig } from "./wrangler.mjs";
import { basic, reportFailure, serveForBench, SUPERVISOR } from "./bench-harness/client.mjs";
import { closedLoop, markdownTable, median } from "./bench-harness/load.mjs";

const PASSWORD = "bench shards password";
const ONE_DATABASE = "one database";
const SHARDED = { file: ".bench-shards.wrangler.toml", directory: "DB", shards: ["DB", "SHARD_2"] };
const WARM_UP = 10;

/** What is measured: a user's list and writes, and the supervisor's two reads that routing adds to. `n` makes each write its own. */
const REQUESTS = [
  { label: "GET /api/users", by: "user", make: () => ({ method: "GET", path: "/api/users" }) },
  { label: "POST /api/groups", by: "user", make: (_, n) => ({ method: "POST", path: "/api/groups", body: { name: `Team ${n}`, privileges: [] } }) },
  { label: "PUT /api/groups/{id}", by: "user", make: (f, n) => ({ method: "PUT", path: `/api/groups/${f.group.id}`, body: { name: f.group.name, description: `Revision ${n}`, privileges: [] } }) },
  { label: "GET /api/accounts/name/{name}", by: "supervisor", make: (f) => ({ method: "GET", path: `/api/accounts/name/${encodeURIComponent(f.account.name)}` }) },
  { label: "GET /api/users/{id}", by: "supervisor", make: (f) => ({ method: "GET", path: `/api/users/${f.admin.id}` }) },
];

/** Runs the section on ports `port` (one database) and `port + 1` (two shards), D1 state under `work`; prints its table. */
export async function benchShards({ port, work, vars, load }) {
  const deployments = [
    { config: "wrangler.toml", port, places: [ONE_DATABASE] },
    { config: writeShardedConfig(SHARDED.file, SHARDED), port: port + 1, places: SHARDED.shards },
  ].map((d) => ({ ...d, base: `http://127.0.0.1:${d.port}`, state: join(work, `shards-${d.port}`) }));
  const running = [];
  try {
    for (const d of deployments) {
      await applyLocalMigrations(d.state, d.config);
      const worker = await serve(d, vars, running);
      d.fixtures = await makeAccounts(worker.api, d);
      await worker.stop();
    }
    // Fresh Workers: nothing verified or placed yet. One after the other (two builds at once trip over each other).
    for (const d of deployments) await serve(d, vars, running);
    const rows = REQUESTS.flatMap((request, k) => deployments.flatMap((d) => d.places.map((place) => ({ request, d, place, fixture: d.fixtures[place][k] }))));
    for (const row of rows) row.cold = await once(row);
    for (const row of rows) await closedLoop(row.d.base, sender(row), { durationMs: Infinity, concurrency: load.concurrency, count: WARM_UP });
    for (let r = 0; r < load.rounds; r++) for (const row of rows) (row.slices ??= []).push(await closedLoop(row.d.base, sender(row), load));
    print(rows, load);
  } catch (error) {
    reportFailure("two-shard", error, running.map((w) => w.said()).join("\n"));
  } finally {
    for (const worker of running) await worker.stop();
  }
}

async function serve(d, vars, running) {
  const worker = await serveForBench({ config: d.config, port: d.port, persistTo: d.state, vars });
  running.push(worker);
  return worker;
}

/** Accounts made until each place of `d` holds one per request: {place: [fixture, …]}. */
async function makeAccounts(api, d) {
  const fixtures = Object.fromEntries(d.places.map((place) => [place, []]));
  for (let i = 0; d.places.some((place) => fixtures[place].length < REQUESTS.length); i++) {
    const account = (await api.send("POST", "/api/accounts", { body: { name: `Bench shards ${i}` } })).json();
    const place = d.places.length === 1 ? d.places[0] : account.shard;
    if (fixtures[place].length < REQUESTS.length) fixtures[place].push(await furnish(api, account, `bench-shards-${i}`));
  }
  return fixtures;
}

/** The account's administrator (the requests' user), two more users and two groups. */
async function furnish(api, account, prefix) {
  const user = async (name, groups) => (await api.send("POST", "/api/users", { body: { name, password: PASSWORD, accountId: account.id, groups, roles: [] } })).json();
  const admin = await user(`${prefix}-admin`, ["Users", "Administrators"]);
  await user(`${prefix}-analyst`, ["Users"]);
  await user(`${prefix}-viewer`, ["Users"]);
  const group = (await api.send("POST", "/api/groups", { body: { name: "Analysts", accountId: account.id, privileges: ["ROLE_CREATE_SOURCES"] } })).json();
  await api.send("POST", "/api/groups", { body: { name: "Editors", accountId: account.id, privileges: [] } });
  return { account, admin, group, auth: basic(`${prefix}-admin`, PASSWORD) };
}

let sent = 0;
/** The row's request as closedLoop sends it, a fresh body each time. */
const sender = ({ request, fixture }) => () => {
  const { method, path, body } = request.make(fixture, sent++);
  const auth = request.by === "user" ? fixture.auth : SUPERVISOR;
  return { method, path, headers: { Authorization: auth, ...(body ? { "Content-Type": "application/json" } : {}) }, body: body && JSON.stringify(body) };
};

/** The row's request sent once: its round trips. */
async function once(row) {
  const answer = await closedLoop(row.d.base, sender(row), { durationMs: Infinity, concurrency: 1, count: 1 });
  if (answer.failed) throw new Error(`${row.request.label} on ${row.place}: ${answer.firstFailure}`);
  return answer.trips;
}

function print(rows, load) {
  for (const row of rows) {
    const med = (pick) => median(row.slices.map(pick));
    Object.assign(row, { warm: med((s) => s.trips), rps: med((s) => s.rps), p50: med((s) => s.p50), failed: row.slices.reduce((n, s) => n + s.failed, 0) });
  }
  const head = ["request", "database", "cold trips", "warm trips", "req/s", "vs one db", "p50 ms", ""];
  const cells = rows.map((row) => {
    const one = rows.find((o) => o.request === row.request && o.place === ONE_DATABASE);
    const trips = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
    const note = [row.warm !== one.warm ? "✗ warm trips differ from one database" : "", row.failed ? `${row.failed} failed: ${row.slices.find((s) => s.firstFailure).firstFailure}` : ""];
    return [row === one ? `${row.request.label} (${row.request.by})` : "", row.place, trips(row.cold), trips(row.warm), row.rps.toFixed(0), row === one ? "" : (row.rps / one.rps).toFixed(2), row.p50.toFixed(1), note.filter(Boolean).join("; ")];
  });
  console.log(`\nOver a directory and two shards (DIRECTORY=${SHARDED.directory}, SHARDS=${SHARDED.shards.join(",")}) and on one database (the default): D1 round trips (X-D1-Round-Trips)`);
  console.log("cold (a fresh Worker: the credential not verified, the account not placed) and warm, then warm req/s and p50;");
  console.log(`${load.rounds} slices of ${load.durationMs / 1000} s per row, alternated, medians; concurrency ${load.concurrency}; an account of its own per row; load average ${loadavg()[0].toFixed(1)}.\n`);
  console.log(markdownTable(head, cells, [0, 1, head.length - 1]));
}
