// Capacity of sharded D1, by simulation (issue 21; docs/sharding.md): places accounts with the
// placement rule of src/domain/shards/placement.ts on local SQLite shards made by the project's
// own migrations, fills each account with rows shaped as the service stores them (built by the
// service's own builders where they are pure), and lets SQLite measure the bytes (dbstat).
//
//   npm run simulate:shards [-- --accounts 10000] [--shards 8] [--seed 21] [--keep]
//
// Deterministic: every id, name and count comes from a seeded PRNG. Only the salt and hash of a
// password and the IV of a sealed secret come from WebCrypto: fixed-length, unindexed columns,
// so they cannot change a byte of what is printed.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { importTypeScript } from "./import-typescript.mjs";

const { values: opts } = parseArgs({
  options: { accounts: { type: "string", default: "10000" }, shards: { type: "string", default: "8" }, seed: { type: "string", default: "21" }, keep: { type: "boolean", default: false } },
});
const root = new URL("..", import.meta.url).pathname;

/** The service's own modules, bundled for Node: placement, table roles and the row builders. */
const SERVICE_MODULES = `
  export { chooseShard, planRebalance, bytesSpread } from "./src/domain/shards/placement";
  export { SHARD_TABLES, SPLIT_TABLES } from "./src/db/shards/roles";
  export { accounts } from "./src/db/schema";
  export { buildField, nativeDataType } from "./src/routes/source-fields/fields.model";
  export { metricBody, VOLUME_METRIC } from "./src/routes/custom-metrics/metrics.model";
  export { diffMembers } from "./src/domain/audit/changes";
  export { eventIdFloor } from "./src/domain/audit/event-id";
  export { CHUNK_MAX_BYTES } from "./src/db/json-datasets";
  export { splitUtf8 } from "./src/domain/utf8-chunks";
  export { hashPassword, PASSWORD_ITERATIONS } from "./src/domain/passwords";
  export { ADMINISTRATORS_PRIVILEGES, PRIVILEGES } from "./src/domain/privileges";
  export { creatorGrants } from "./src/domain/folders/acl";
  export { rootFolderPath, childFolderPath } from "./src/domain/folders/paths";
  export { ConnectionSecrets } from "./src/domain/connectors/connection-secrets";
  export { getTableColumns, getTableName } from "drizzle-orm";`;
let S; // the bundled modules
function useService(modules) {
  S = modules;
  tables = Object.fromEntries([S.accounts, ...S.SHARD_TABLES, ...S.SPLIT_TABLES].map((t) => [S.getTableName(t), S.getTableColumns(t)]));
  secrets = new S.ConnectionSecrets(["simulation-connection-secrets-key"]);
}

// ---------------------------------------------------------------- deterministic randomness

let seed = Number(opts.seed) >>> 0; // each shard reseeds it from its index: threads cannot change what is made
const rnd = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (list) => list[Math.floor(rnd() * list.length)];
const hex8 = () => Math.floor(rnd() * 2 ** 32).toString(16).padStart(8, "0");
const hex = (n) => (hex8() + hex8()).slice(0, n); // n <= 16
const uuid = () => `${hex8()}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
const revision = () => hex(16); // lib/http newRevision: 16 hex characters
const poisson = (mean) => {
  let n = 0;
  for (let p = rnd(), limit = Math.exp(-mean); p > limit; p *= rnd()) n++;
  return n;
};
const WORDS = ["revenue", "orders", "customer", "region", "product", "margin", "units", "channel", "country", "segment", "campaign", "invoice", "store", "category", "supplier", "quarter"];
const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
const label = (name) => name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

// ---------------------------------------------------------------- account profiles

/**
 * What each kind of account holds. Events: a year of audit events (the default retention, 365
 * days) at `eventsPerDay` on average. Datasets: count and size of each JSON dataset's text.
 */
const PROFILES = {
  small: { share: 0.7, users: 3, groups: 1, connections: 1, sources: 2, fields: 12, derived: 1, metrics: 1, calendars: 1, datasets: [1, 10_000], folders: 6, filed: 10, views: 0, eventsPerDay: 0.15 },
  medium: { share: 0.25, users: 12, groups: 3, connections: 2, sources: 6, fields: 30, derived: 2, metrics: 2, calendars: 3, datasets: [2, 100_000], folders: 40, filed: 60, views: 1, eventsPerDay: 1.5 },
  large: { share: 0.05, users: 60, groups: 8, connections: 4, sources: 25, fields: 80, derived: 5, metrics: 3, calendars: 8, datasets: [8, 1_000_000], folders: 200, filed: 400, views: 3, eventsPerDay: 8 },
};
const profileOf = () => {
  const r = rnd();
  return r < PROFILES.small.share ? "small" : r < PROFILES.small.share + PROFILES.medium.share ? "medium" : "large";
};

// ---------------------------------------------------------------- shards: migrations and inserts

// What a shard holds (db/shards/roles.ts), and the copy of its accounts' rows.
let tables;

function openShard(file) {
  const db = new DatabaseSync(file);
  // Loading speed only (the page layout, hence every byte measured, is the same with a journal and
  // smaller transactions): the whole shard is one transaction, kept in a cache of up to 4 GB and
  // written to the file once.
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -4000000; PRAGMA foreign_keys = ON;");
  for (const migration of readdirSync(join(root, "drizzle")).filter((f) => f.endsWith(".sql")).sort()) {
    for (const statement of readFileSync(join(root, "drizzle", migration), "utf8").split("--> statement-breakpoint")) db.exec(statement);
  }
  const statements = new Map();
  /** The bytes of each account's values in each table, by which the table's measured bytes are shared out. */
  const payload = {};
  const rows = {};
  /** Inserts a row given as the handlers give Drizzle: property names, JSON members as values, booleans. */
  const insert = (table, row) => {
    const keys = Object.keys(row);
    const values = keys.map((k) => dbValue(row[k]));
    const owner = table === "accounts" ? row.id : row.accountId;
    rows[table] = (rows[table] ?? 0) + 1;
    const perAccount = (payload[table] ??= new Map());
    perAccount.set(owner, (perAccount.get(owner) ?? 0) + values.reduce((sum, v) => sum + (v === null ? 0 : typeof v === "string" ? Buffer.byteLength(v) : 8), 0));
    const key = `${table}:${keys.join()}`;
    let statement = statements.get(key);
    if (!statement) {
      const columns = keys.map((k) => tables[table][k].name);
      statement = db.prepare(`INSERT INTO ${table} (${columns.join(",")}) VALUES (${keys.map(() => "?").join(",")})`);
      statements.set(key, statement);
    }
    statement.run(...values);
  };
  return { db, insert, payload, rows };
}
const dbValue = (v) => (v === undefined ? null : typeof v === "boolean" ? Number(v) : v !== null && typeof v === "object" ? JSON.stringify(v) : v);

// ---------------------------------------------------------------- one account's rows

const NOW = Date.parse("2026-11-25T00:00:00.000Z");
const DAY = 86_400_000;
const iso = (ms) => new Date(ms).toISOString();
const auditCols = (userId, ms) => ({ createdByUserId: userId, createdDate: iso(ms), lastModifiedByUserId: userId, lastModifiedDate: iso(ms) });
const NATIVE_TYPES = ["INTEGER", "BIGINT", "DECIMAL(12,2)", "DOUBLE PRECISION", "VARCHAR(255)", "TEXT", "DATE", "TIMESTAMP", "BOOLEAN"];
let secrets;

/** A pool of JSON dataset texts per size (a table of sales rows, as a client uploads one): each account's dataset takes one. */
const datasetTexts = new Map();
function datasetText(bytes, variant) {
  const key = `${bytes}:${variant}`;
  if (!datasetTexts.has(key)) {
    const rows = [];
    let size = 2;
    while (size < bytes) {
      const row = JSON.stringify({ date: iso(NOW - int(0, 700) * DAY).slice(0, 10), region: pick(["EMEA", "AMER", "APAC"]), product: `P-${int(1000, 9999)}`, units: int(1, 500), revenue: int(100, 9_999_999) / 100, channel: pick(["web", "store", "partner"]) });
      rows.push(row);
      size += row.length + 1;
    }
    datasetTexts.set(key, `[${rows.join(",")}]`);
  }
  return datasetTexts.get(key);
}

/** Writes one account's rows into its shard; answers what its audit events need (actors and targets). */
async function writeAccount({ insert }, id, index, profile) {
  const p = PROFILES[profile];
  const born = NOW - int(30, 1000) * DAY;
  const admin = uuid();
  const name = `Account ${index} ${words(1)}`;
  // The account's row: the directory's, copied to its shard as the parent of the shard's foreign keys.
  insert("accounts", { id, name, disabled: false, isDefault: false, replyToAddress: `noreply@tenant${index}.example.com`, senderDisplayName: `${label(words(1))} Analytics`, attributes: [{ key: "tier", value: profile, isSecured: false }], revision: revision(), ...auditCols("supervisor", born) });
  const targets = [{ type: "account", id, name }];

  const groups = [
    { id: uuid(), name: "Administrators", description: "Administrators of the account", privileges: [...S.ADMINISTRATORS_PRIVILEGES], builtIn: true },
    { id: uuid(), name: "Users", description: "Every user of the account", privileges: [], builtIn: true },
    ...Array.from({ length: p.groups }, (_, i) => ({ id: uuid(), name: `${label(words(2))} ${i}`, description: words(6), privileges: S.PRIVILEGES.filter(() => rnd() < 0.3), builtIn: false })),
  ];
  for (const g of groups) insert("groups", { ...g, accountId: id, revision: revision(), ...auditCols("supervisor", born) });
  targets.push(...groups.map((g) => ({ type: "group", id: g.id, name: g.name })));

  const users = [];
  for (let i = 0; i < p.users; i++) {
    const first = pick(["Ana", "Ben", "Chloé", "Dmitri", "Eva", "Farid", "Grace", "Hiro", "Ines", "Jonas"]);
    const last = pick(["Martin", "Schmidt", "García", "Rossi", "Novak", "Kowalski", "Dubois", "Tanaka"]);
    const user = { id: i === 0 ? admin : uuid(), name: `${first.toLowerCase()}.${last.toLowerCase()}.${index}.${i}@tenant${index}.example.com` };
    // The real hash's shape (algorithm, base64 salt and hash); one iteration here, the stored count is the service's.
    const password = await S.hashPassword(`password-${index}-${i}`, 1);
    insert("users", { ...user, accountId: id, fullName: `${first} ${last}`, email: user.name, roles: i === 0 ? ["ROLE_ADMIN"] : [], passwordAlgorithm: password.algorithm, passwordIterations: S.PASSWORD_ITERATIONS, passwordSalt: password.salt, passwordHash: password.hash, revision: revision(), ...auditCols(admin, born) });
    insert("user_groups", { userId: user.id, groupId: groups[i === 0 ? 0 : 1].id, accountId: id });
    if (groups.length > 2 && rnd() < 0.5) insert("user_groups", { userId: user.id, groupId: pick(groups.slice(2)).id, accountId: id });
    // Users pushed by a trusted-access client carry attributes (about a third).
    if (rnd() < 0.3) insert("user_attributes", { userId: user.id, accountId: id, attributeKey: "region", attributeValues: [pick(["EMEA", "AMER", "APAC"])] });
    users.push(user);
  }
  targets.push(...users.slice(0, 20).map((u) => ({ type: "user", id: u.id, name: u.name })));

  if (profile !== "small") {
    insert("quotas", { accountId: id, revision: revision(), ...auditCols("supervisor", born) });
    for (const [type, limitValue] of [["SOURCE", 500], ["CONNECTION", 50], ["FILE_SIZE", 100_000_000]]) insert("quota_limits", { accountId: id, type, limitValue });
  }

  const connections = [];
  for (let i = 0; i < p.connections; i++) {
    const cid = uuid();
    const sealed = await secrets.seal(hex(24), { accountId: id, connectionId: cid, key: "password" });
    const parameters = [
      { key: "host", systemAccess: false, value: `db${i}.tenant${index}.example.com` },
      { key: "port", systemAccess: false, value: "5432" },
      { key: "database", systemAccess: false, value: "analytics" },
      { key: "user", systemAccess: false, value: "reporting" },
      { key: "password", systemAccess: false, sealed },
      { key: "sslmode", systemAccess: false, value: "require" },
    ];
    insert("connections", { id: cid, accountId: id, name: `Warehouse ${i}`, connectionTypeId: "postgresql", parameters, disabled: false, folderId: null, creatingUserName: users[0].name, revision: revision(), ...auditCols(admin, born) });
    connections.push(cid);
    targets.push({ type: "connection", id: cid, name: `Warehouse ${i}` });
  }

  const calendars = [];
  for (let i = 0; i < p.calendars; i++) {
    const cal = { id: uuid(), name: `Fiscal ${i}` };
    const fiscal = i % 2 === 0;
    insert("calendars", { ...cal, accountId: id, type: fiscal ? "FISCAL_445" : "MONTH_SHIFT", monthShift: fiscal ? null : pick([-3, 1, 3, 6]), fiscal445: fiscal ? { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: false, yearEndIsoMonth: "JANUARY", quarterType: "QUARTER_454_WEEKS", leapWeekInMonth: 12 } : null, createdByUserName: users[0].name, revision: revision(), ...auditCols(admin, born) });
    calendars.push(cal.id);
    targets.push({ type: "calendar", ...cal });
  }

  const sources = [];
  for (let s = 0; s < p.sources; s++) {
    const sid = uuid();
    const owner = pick(users).id;
    const at = auditCols(owner, born + int(0, 20) * DAY);
    const features = rnd() < 0.2 ? ["TEXT_SEARCH"] : [];
    const sourceName = `${label(words(2))} ${s}`;
    insert("sources", { id: sid, accountId: id, name: sourceName, description: words(8), connectionId: pick(connections), features, enabled: true, ownerUserId: owner, fieldsSecurityEnabled: false, customMetricsSecurityEnabled: false, revision: revision(), ...at });
    sources.push(sid);
    targets.push({ type: "source", id: sid, name: sourceName });
    const item = (kind, i) => ({ id: uuid(), revision: revision(), sourceId: sid, accountId: id, kind, ...i, ...at });
    insert("source_items", item("METRIC", S.VOLUME_METRIC));
    const table = `${pick(["sales", "crm", "finance"])}.${words(1)}_${s}`;
    const native = [];
    for (let f = 0; f < p.fields; f++) {
      const fieldName = `${words(1)}_${f}`;
      const input = { origin: { type: "NATIVE", nativeOrigin: { originalName: fieldName, originalType: pick(NATIVE_TYPES), dataEntityId: table } }, visible: true };
      const dataType = S.nativeDataType(input);
      insert("source_items", item("FIELD", S.buildField(input, fieldName, dataType, input.origin, features)));
      native.push({ name: fieldName, dataType });
      if (f < 2) targets.push({ type: "field", id: sid, name: fieldName });
    }
    const numbers = native.filter((f) => f.dataType === "INTEGER" || f.dataType === "NUMBER");
    for (let d = 0; d < p.derived && numbers.length >= 2; d++) {
      const [a, b] = [pick(numbers), pick(numbers)];
      const used = [...new Set([a.name, b.name])];
      const calendarId = calendars.length > 0 && d === 0 ? pick(calendars) : undefined;
      const origin = { type: "DERIVED", derivedOrigin: { expression: `${a.name} * 1.2 + ${b.name}`, ...(calendarId && { calendarId }), referencedFieldNames: used } };
      const fieldName = `derived_${d}`;
      insert("source_items", item("FIELD", S.buildField({ origin, visible: true, label: `Derived ${words(2)}` }, fieldName, "NUMBER", origin, features)));
      for (const usedName of used) insert("source_references", { sourceId: sid, accountId: id, userName: fieldName, userKind: "DERIVED_FIELD", usedName });
      if (calendarId) insert("calendar_references", { sourceId: sid, itemName: fieldName, accountId: id, calendarId });
    }
    for (let m = 0; m < p.metrics && numbers.length > 0; m++) {
      const used = pick(numbers).name;
      const metricName = `metric_${m}`;
      insert("source_items", item("METRIC", { name: metricName, dataType: "NUMBER", body: S.metricBody(metricName, { expression: `sum(${used}) / count(*)`, numberFormat: { decimals: 2 } }) }));
      insert("source_references", { sourceId: sid, accountId: id, userName: metricName, userKind: "CUSTOM_METRIC", usedName: used });
    }
    // Shared with a group, and with a user or two.
    insert("source_permissions", { sourceId: sid, accountId: id, principalType: "GROUP", principalId: groups[1].id, permission: "READ" });
    for (const u of new Set([pick(users).id, pick(users).id])) if (u !== owner) insert("source_permissions", { sourceId: sid, accountId: id, principalType: "USER", principalId: u, permission: pick(["READ", "WRITE"]) });
  }

  for (let v = 0; v < p.views; v++) {
    const sourceId = pick(sources);
    const definition = { type: "AGG", sourceId, filters: [{ path: { name: "units_1" }, operation: "GT", value: 10 }], aggregations: [{ type: "TERMS", field: { name: "region_2" } }], metrics: [{ type: "COUNT" }, { type: "SUM", field: { name: "revenue_3" } }] };
    const storageSettings = { targetStorage: { connectionId: connections[0], schemas: ["public"], collection: `view_${v}` } };
    insert("materialized_views", { id: uuid(), accountId: id, name: `View ${v}`, description: words(6), enabled: true, sourceId, definition, storageSettings, targetConnectionId: connections[0], definitionQuery: `SELECT "region_2", COUNT(*) AS "count", SUM("revenue_3") AS "sum_revenue_3" FROM "sales"."orders_${v}" WHERE "units_1" > 10 GROUP BY "region_2"`, revision: revision(), ...auditCols(admin, born) });
  }

  const [datasets, bytes] = p.datasets;
  for (let d = 0; d < datasets; d++) {
    const dsid = uuid();
    const text = datasetText(bytes, int(0, 3));
    const { chunks, bytes: dataBytes } = S.splitUtf8(text, S.CHUNK_MAX_BYTES);
    const version = uuid();
    insert("json_datasets", { id: dsid, accountId: id, name: `dataset_${d}`, description: words(5), dataVersion: version, dataBytes, chunkCount: chunks.length, revision: revision(), ...auditCols(admin, born) });
    chunks.forEach((data, seq) => insert("json_dataset_chunks", { datasetId: dsid, accountId: id, version, seq, data }));
    targets.push({ type: "json-dataset", id: dsid, name: `dataset_${d}` });
  }

  // Folders: a few project roots, then a tree below them; the creator's ACL on roots and on EXPLICIT children.
  const folderRows = [];
  for (let f = 0; f < p.folders; f++) {
    const fid = uuid();
    const parent = f < Math.max(2, p.folders / 20) ? null : pick(folderRows.filter((r) => r.depth < 4));
    const owner = pick(users).id;
    const inheritanceState = parent && rnd() < 0.8 ? "INHERIT" : "EXPLICIT";
    const row = {
      id: fid, accountId: id, projectId: parent ? parent.projectId : uuid(), projectType: "LIBRARY_CUSTOM", parentId: parent?.id ?? null, name: `${label(words(2))} ${f}`, description: rnd() < 0.3 ? words(6) : null,
      materializedPath: parent ? S.childFolderPath(parent.materializedPath, fid) : S.rootFolderPath(fid), depth: parent ? parent.depth + 1 : 0, folderType: "CUSTOM", contentType: parent ? parent.contentType : pick(["DASHBOARDS", "REPORTS"]),
      visibility: "CUSTOM", inheritanceState, ownerUserId: owner, revision: revision(), ...auditCols(owner, born),
    };
    insert("folders", row);
    folderRows.push(row);
    if (!parent || inheritanceState === "EXPLICIT") {
      for (const entry of S.creatorGrants(owner)) insert("folder_acl", { folderId: fid, accountId: id, ...entry });
      insert("folder_acl", { folderId: fid, accountId: id, principalType: "GROUP", principalId: groups[1].id, permission: "READ" });
    }
  }
  targets.push(...folderRows.slice(0, 20).map((f) => ({ type: "folder", id: f.id, name: f.name })));
  for (let i = 0; i < p.filed; i++) {
    const folder = pick(folderRows);
    insert("folder_items", { accountId: id, itemType: folder.contentType === "DASHBOARDS" ? "DASHBOARD" : "REPORT", itemId: uuid(), folderId: folder.id, name: `${label(words(3))} ${i}`, filedByUserId: pick(users).id, filedDate: iso(born) });
  }
  for (const u of users) for (const f of new Set([pick(folderRows), pick(folderRows)])) insert("folder_tree_state", { userId: u.id, folderId: f.id, accountId: id });

  return { id, profile, users, targets, eventsPerDay: p.eventsPerDay };
}

// ---------------------------------------------------------------- a year of audit events

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
  "analytics-admin-cli/3.2.0 node/22.11.0",
  "python-requests/2.32.3",
];

/** One event as db/audit-trail.ts writes it: an update carries its changes as diffMembers makes them. */
function auditEvent(account, ms) {
  const actor = pick(account.users);
  const target = pick(account.targets);
  const r = rnd();
  const verb = r < 0.6 ? "update" : r < 0.85 ? "create" : "delete";
  const before = { description: words(5), visible: true, label: label(words(2)) };
  const after = { ...before, ...(rnd() < 0.6 ? { description: words(6) } : { label: label(words(2)) }), visible: rnd() < 0.9 };
  const bearer = rnd() < 0.2;
  return {
    id: S.eventIdFloor(ms).slice(0, 10) + Array.from({ length: 16 }, () => "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[int(0, 31)]).join(""),
    time: iso(ms), accountId: account.id, actorType: "USER", actorId: actor.id, actorName: actor.name, actorAuthentication: bearer ? "BEARER" : "BASIC",
    action: `${target.type}.${verb}`, targetType: target.type, targetId: target.id, targetName: target.name,
    changes: verb === "update" ? JSON.stringify(S.diffMembers(before, after)) : null,
    requestId: uuid(), ip: `${int(1, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`, userAgent: bearer ? AGENTS[2] : pick(AGENTS),
  };
}

/** The shard's events in time order, across its accounts, as they would arrive: a day at a time. */
function writeAuditYear({ insert }, accounts) {
  for (let day = 365; day > 0; day--) {
    const events = [];
    for (const account of accounts) for (let n = poisson(account.eventsPerDay); n > 0; n--) events.push(auditEvent(account, NOW - day * DAY + int(0, DAY - 1)));
    events.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const e of events) insert("audit_events", e);
  }
}

// ---------------------------------------------------------------- measuring

/** Bytes of each table with its indexes (dbstat: every page of each b-tree), and the file's size. */
function measure(db) {
  const owner = new Map(db.prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table','index')").all().map((r) => [r.name, r.tbl_name]));
  const byTable = {};
  for (const { name, bytes } of db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all()) {
    const table = owner.get(name) ?? name;
    byTable[table] = (byTable[table] ?? 0) + bytes;
  }
  const { pages, size } = db.prepare("SELECT page_count AS pages, (SELECT page_size FROM pragma_page_size) AS size FROM pragma_page_count").get();
  return { byTable, file: pages * size, pageSize: size };
}

/**
 * Each account's bytes: its share of every table's measured bytes, in proportion to the bytes of
 * the values it inserted there (UTF-8 length of text, 8 for a number).
 */
function accountBytes(payload, byTable) {
  const perAccount = new Map();
  for (const [table, owners] of Object.entries(payload)) {
    let total = 0;
    for (const bytes of owners.values()) total += bytes;
    for (const [account, bytes] of owners) {
      const entry = perAccount.get(account) ?? {};
      entry[table] = (byTable[table] ?? 0) * (bytes / total);
      perAccount.set(account, entry);
    }
  }
  return perAccount;
}

// ---------------------------------------------------------------- report

const sum = (list) => list.reduce((a, b) => a + b, 0);
/** Prints what the shards hold and the arithmetic of capacity; every line is the same from run to run. */
function report(results, ACCOUNTS, SHARDS) {
  const bytesOf = (a) => sum(Object.values(a.tables));
  const fmt = (n) => Math.round(n).toLocaleString("en-US");
  const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
  const gb = (n) => `${(n / 1e9).toFixed(2)} GB`;
  const all = results.flatMap((r) => r.accounts);
  const files = results.map((r) => r.file);
  const mean = sum(files) / files.length;
  const cv = Math.sqrt(sum(files.map((f) => (f - mean) ** 2)) / files.length) / mean;
  const average = sum(all.map(bytesOf)) / all.length;
  const SHARD_LIMIT = 10e9; // D1's maximum database size, 10 GB, read as 10^10 bytes (the smaller reading)
  const FILL = 0.7;
  const perShard = Math.floor(SHARD_LIMIT / average);
  const out = [];
  const line = (s = "") => out.push(s);

  line(`Simulated ${fmt(ACCOUNTS)} accounts on ${SHARDS} shards (seed ${opts.seed}); sizes measured by SQLite (dbstat, pages of ${results[0].pageSize} bytes).`);
  line("Profiles: " + Object.entries(PROFILES).map(([k, p]) => `${k} ${p.share * 100} %`).join(", ") + ".");
  line();
  line("Shard      accounts  small medium large        bytes");
  for (const r of results) {
    const count = (k) => r.accounts.filter((a) => a.profile === k).length;
    line(`${r.name.padEnd(10)} ${String(r.accounts.length).padStart(8)} ${String(count("small")).padStart(6)} ${String(count("medium")).padStart(6)} ${String(count("large")).padStart(5)} ${gb(r.file).padStart(12)}`);
  }
  line(`Spread of bytes: max/min ${(Math.max(...files) / Math.min(...files)).toFixed(3)}, coefficient of variation ${(cv * 100).toFixed(1)} %, (max-min)/mean ${(S.bytesSpread(files) * 100).toFixed(1)} %.`);
  line();
  line(`Bytes per average account: ${mb(average)}`);
  for (const k of Object.keys(PROFILES)) {
    const of = all.filter((a) => a.profile === k);
    line(`  ${k.padEnd(6)} (${String(of.length).padStart(5)} accounts): ${mb(sum(of.map(bytesOf)) / of.length)} each`);
  }
  // A table added to the schema must be given contents here, or the arithmetic leaves it out.
  const empty = Object.keys(tables).filter((t) => !results.some((r) => r.rows[t]));
  if (empty.length > 0) line(`Shard tables this simulation does not fill yet: ${empty.join(", ")}`);
  line("Per table, average account (table and its indexes), and per row:");
  const perTable = [...new Set(all.flatMap((a) => Object.keys(a.tables)))].map((t) => [t, sum(all.map((a) => a.tables[t] ?? 0)) / all.length]).sort((a, b) => b[1] - a[1]);
  const perRow = (t) => sum(results.map((r) => r.byTable[t] ?? 0)) / sum(results.map((r) => r.rows[t] ?? 0));
  for (const [t, b] of perTable.slice(0, 10)) line(`  ${t.padEnd(22)} ${fmt(b).padStart(10)} bytes ${((b / average) * 100).toFixed(1).padStart(5)} %   ${fmt(perRow(t)).padStart(9)} bytes per row`);
  line(`  (each shard also holds ${mb(sum(files) / files.length - sum(all.map(bytesOf)) / SHARDS)} that no account owns: schema, empty tables, migration rows)`);
  line();
  line(`Accounts per 10 GB shard at the average: ${fmt(perShard)}; at ${FILL * 100} % fill (headroom for growth and moves): ${fmt(perShard * FILL)}.`);
  line(`Shards for 100,000 accounts at ${FILL * 100} % fill: ${Math.ceil((100_000 * average) / (SHARD_LIMIT * FILL))} (${gb(100_000 * average)} in all).`);
  line(`D1 bindings per Worker: about 5,000 ("Maximum bindings per Workers script", developers.cloudflare.com/d1/platform/limits/), far above that.`);
  line();
  const moves = S.planRebalance(results.map((r) => ({ name: r.name, accounts: r.accounts.map((a) => ({ id: a.id, bytes: bytesOf(a) })) })), 0.05);
  const after = new Map(results.map((r) => [r.name, sum(r.accounts.map(bytesOf))]));
  for (const m of moves) {
    after.set(m.from, after.get(m.from) - m.bytes);
    after.set(m.to, after.get(m.to) + m.bytes);
  }
  const before = results.map((r) => sum(r.accounts.map(bytesOf)));
  line(`planRebalance (to a spread of 5 %): ${moves.length} moves, ${mb(sum(moves.map((m) => m.bytes)))} copied; account bytes spread ${(S.bytesSpread(before) * 100).toFixed(1)} % -> ${(S.bytesSpread([...after.values()]) * 100).toFixed(1)} %.`);
  for (const m of moves.slice(0, 8)) line(`  ${m.from} -> ${m.to}: account ${m.accountId} (${mb(m.bytes)})`);
  if (moves.length > 8) line(`  ... and ${moves.length - 8} more`);
  console.log(out.join("\n"));
}

// ---------------------------------------------------------------- the run

/** A worker thread fills and measures the shards it is given, one after the other. */
async function fillShards({ lib, work, jobs }) {
  useService(await import(pathToFileURL(lib).href));
  for (const { name, shardSeed, accounts } of jobs) {
    seed = shardSeed;
    datasetTexts.clear();
    const shard = openShard(join(work, `${name}.sqlite`));
    const written = [];
    shard.db.exec("BEGIN");
    for (const { id, index, profile } of accounts) written.push(await writeAccount(shard, id, index, profile));
    writeAuditYear(shard, written);
    shard.db.exec("COMMIT");
    const { byTable, file, pageSize } = measure(shard.db);
    shard.db.close();
    const perAccount = accountBytes(shard.payload, byTable);
    parentPort.postMessage({ name, file, pageSize, byTable, rows: shard.rows, accounts: written.map((a) => ({ id: a.id, profile: a.profile, tables: perAccount.get(a.id) ?? {} })) });
  }
}

if (!isMainThread) {
  await fillShards(workerData);
} else {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), "amapi-shards-"));
  try {
    const lib = join(work, "lib.mjs");
    useService(await importTypeScript(SERVICE_MODULES, lib));

    const shardNames = Array.from({ length: Number(opts.shards) }, (_, i) => `SHARD_${i + 1}`);
    const load = shardNames.map((name) => ({ name, accounts: 0 }));
    const placed = new Map(shardNames.map((n) => [n, []]));
    for (let i = 0; i < Number(opts.accounts); i++) {
      const shard = S.chooseShard(load);
      load.find((s) => s.name === shard).accounts++;
      placed.get(shard).push({ id: uuid(), index: i, profile: profileOf() });
    }

    // Two threads (this machine's cores), each filling every other shard.
    const byName = new Map();
    const jobs = shardNames.map((name, i) => ({ name, shardSeed: (Number(opts.seed) * 1000 + i + 1) >>> 0, accounts: placed.get(name) }));
    await Promise.all(
      [0, 1].map(
        (t) =>
          new Promise((resolve, reject) => {
            const worker = new Worker(new URL(import.meta.url), { workerData: { lib, work, jobs: jobs.filter((_, i) => i % 2 === t) }, argv: process.argv.slice(2) });
            worker.on("message", (r) => {
              byName.set(r.name, r);
              process.stderr.write(`${r.name}: ${r.accounts.length} accounts, ${(r.file / 1e9).toFixed(2)} GB, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
            });
            worker.on("error", reject);
            worker.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`shard worker exited with ${code}`))));
          }),
      ),
    );
    const results = shardNames.map((n) => byName.get(n));
    report(results, Number(opts.accounts), shardNames.length);
    console.error(`Run time: ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  } finally {
    if (opts.keep) console.error(`Shard files kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}
