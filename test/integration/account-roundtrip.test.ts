import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRIVILEGES } from "../../src/domain/privileges";
import { eventsOf } from "./audit-helpers";
import { PREVIEW } from "./folder-helpers";
import { as, call, createAccount, createUser, databaseOf, rowsOfAccount, unique, type CallResult, type TestUser } from "./helpers";

/**
 * Issue 19 §4, the whole-account round trip as a property: for generated accounts, made through
 * the real API, exporting account A, importing the bundle into an empty account B and exporting B
 * gives the same bytes except the account's own name. The import is audited with one event per
 * object it writes; importing the same bundle again answers every entry UNCHANGED and writes
 * nothing.
 *
 * Users are never created by an import and user names are unique in a deployment, so before the
 * import the test hands A's users over to B: each is renamed in A and made in B under its old name
 * with its roles (its memberships of the groups the import creates are added afterwards). Owners
 * and grants naming users then mean the same user on both sides, as between two deployments.
 *
 * Fixed seed (the project's rule for random tests): a failure prints the seed, the path and the
 * plan that failed, at once (endOnFailure: each run makes two accounts, so shrinking takes minutes).
 * To replay one and shrink it to a minimal plan, put its `seed` and `path` into RUN with
 * `endOnFailure: false` and a longer time-out.
 *
 * Datasets are sent as JSON.stringify writes them: the import stores the parsed value, so data
 * sent as other text (`1.50`, spaces) comes back as its canonical JSON (docs/export-import.md).
 */
const RUN = { seed: 20261125, numRuns: 12, endOnFailure: true } as const;

type Kind = "connection" | "folder" | "materializedView";
/** Kinds beyond the base whose generators also have a test of their own against A's export (below). */
const ROUND_TRIP_KINDS: readonly Kind[] = ["connection", "folder", "materializedView"];

// ---- The plan of an account: what to make, by index (ids are known only once made) ----

/** Names from several scripts, with characters JSON and SQL treat specially; a number keeps them apart. */
const WORDS = ["Sales", "Umsätze", "販売", "Продажи", "🚀 Launch", "a/b", "it's", 'say "hi"', "back\\slash", "Ünïcödé", "مبيعات"];
const names = (min: number, max: number) =>
  fc.uniqueArray(
    fc.tuple(fc.constantFrom(...WORDS), fc.nat(999)).map(([w, n]) => `${w} ${n}`),
    { minLength: min, maxLength: max },
  );
const text = fc.option(fc.constantFrom("", "plain", "ünïcödé ✓", "line\nbreak", "q\"uote", "🧪 emoji"), { nil: undefined });
const subset = <T>(items: readonly T[], max = items.length) => fc.uniqueArray(fc.constantFrom(...items), { maxLength: max });

const NUMBER_TYPES = ["INT", "DECIMAL(10,2)", "BIGINT", "DOUBLE"];
const ATTRIBUTE_TYPES = ["VARCHAR", "VARCHAR(10)", "VARCHAR(255)"];
const FISCAL = fc.record({
  yearEndWeekDay: fc.constantFrom("MONDAY", "FRIDAY", "SATURDAY", "SUNDAY"),
  yearEndsInLastWeek: fc.boolean(),
  yearEndIsoMonth: fc.constantFrom("JANUARY", "JUNE", "SEPTEMBER", "DECEMBER"),
  quarterType: fc.constantFrom("QUARTER_445_WEEKS", "QUARTER_454_WEEKS", "QUARTER_544_WEEKS"),
  leapWeekInMonth: fc.integer({ min: 1, max: 12 }),
});
/** A grantee: a custom group (by index), a built-in group, or a user (by index; 0 is the admin who makes everything). */
const grantee = fc.oneof(
  fc.record({ group: fc.nat(3) }),
  fc.record({ builtIn: fc.constantFrom("Users", "Administrators") }),
  fc.record({ user: fc.nat(3) }),
);
type Grantee = { group: number } | { builtIn: string } | { user: number };

const sourcePlan = fc.record({
  description: text,
  enabled: fc.boolean(),
  numbers: fc.array(fc.constantFrom(...NUMBER_TYPES), { minLength: 1, maxLength: 3 }),
  attributes: fc.array(fc.constantFrom(...ATTRIBUTE_TYPES), { minLength: 1, maxLength: 3 }),
  time: fc.boolean(),
  labels: fc.array(fc.constantFrom("Montant", "金額", "Sum ✓", "", "a\"b"), { maxLength: 3 }),
  hidden: fc.boolean(),
  derived: fc.array(fc.record({ factor: fc.integer({ min: 2, max: 9 }), calendar: fc.option(fc.nat(3), { nil: undefined }) }), { maxLength: 2 }),
  hierarchy: fc.boolean(),
  metrics: fc.array(fc.record({ fn: fc.constantFrom("sum", "avg", "max", "min"), label: fc.option(fc.constantFrom("Chiffre d'affaires", "売上", ""), { nil: undefined }), visible: fc.boolean() }), { maxLength: 2 }),
  features: subset(["TEXT_SEARCH", "CACHE", "X_CUSTOM_2"], 2),
  defaultMetric: fc.option(fc.constantFrom("sum", "avg", "max", "distinct_count"), { nil: undefined }),
  security: fc.record({ fields: fc.boolean(), metrics: fc.boolean() }),
  grants: fc.uniqueArray(fc.record({ to: grantee, permission: fc.constantFrom("READ", "WRITE") }), { maxLength: 3, selector: (g) => JSON.stringify(g.to) }),
  connection: fc.option(fc.nat(3), { nil: undefined }),
});
type SourcePlan = typeof sourcePlan extends fc.Arbitrary<infer T> ? T : never;

const FOLDER_PERMISSION_SETS = [["READ"], ["READ", "WRITE"], ["CREATE", "READ", "WRITE"], ["ADMINISTER", "CREATE", "DELETE", "READ", "WRITE"]];
const folderPlan = fc.record({
  /** Index of an earlier folder of the plan (taken modulo), or a new root. */
  parent: fc.option(fc.nat(20), { nil: undefined }),
  contentType: fc.constantFrom("DASHBOARDS", "REPORTS"),
  description: text,
  acl: fc.uniqueArray(fc.record({ to: grantee, permissions: fc.constantFrom(...FOLDER_PERMISSION_SETS) }), { maxLength: 2, selector: (g) => JSON.stringify(g.to) }),
  items: fc.uniqueArray(fc.record({ id: fc.nat(9999).map((n) => `item-${n}`), name: fc.constantFrom("Revenue board", "Übersicht", "概要", "🚀") }), { maxLength: 2, selector: (i) => i.id }),
});

function planOf(kinds: readonly Kind[], atLeastOneOfEach = false) {
  const on = (kind: Kind, max: number) => (kinds.includes(kind) ? max : 0);
  const min = (kind: Kind) => (atLeastOneOfEach && kinds.includes(kind) ? 1 : 0);
  return fc
    .record({
      groups: fc.tuple(names(0, 3), fc.array(fc.record({ description: text, privileges: subset(PRIVILEGES.filter((p) => p !== "ROLE_ADMIN"), 4) }), { minLength: 3, maxLength: 3 })),
      usersGroupPrivileges: fc.option(subset(["ROLE_CREATE_SOURCES", "ROLE_EDIT_FORMULAS", "ROLE_CREATE_FOLDERS"]), { nil: undefined }),
      /** Users besides the admin: their own roles, and custom groups (by index) they belong to. */
      users: fc.array(fc.record({ roles: subset(["ROLE_CREATE_SOURCES", "ROLE_VIEW_AUDIT", "ROLE_ADMINISTER_CALENDARS"], 2), groups: subset([0, 1, 2], 2) }), { maxLength: 2 }),
      quota: fc.option(fc.uniqueArray(fc.record({ type: fc.constantFrom("SOURCE", "CONNECTION", "VISUAL", "DASHBOARD", "FILE_SIZE"), limit: fc.integer({ min: 10, max: 1_000_000 }) }).map((q) => (q.type === "FILE_SIZE" ? { ...q, limit: q.limit * 100 } : q)), { minLength: 1, maxLength: 3, selector: (q) => q.type }), { nil: undefined }),
      calendars: fc.tuple(names(0, 3), fc.array(fc.oneof(fc.record({ monthShift: fc.integer({ min: -11, max: 10 }).map((n) => (n >= 0 ? n + 1 : n)) }), fc.record({ fiscal445: FISCAL })), { minLength: 3, maxLength: 3 })),
      datasets: fc.tuple(
        names(0, 2),
        fc.array(
          fc.record({
            description: text,
            data: fc.dictionary(fc.string({ unit: "grapheme", maxLength: 6 }), fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" }), { maxKeys: 4 }),
          }),
          { minLength: 2, maxLength: 2 },
        ),
      ),
      sources: fc.tuple(names(0, 3), fc.array(sourcePlan, { minLength: 3, maxLength: 3 })),
      connections: fc.tuple(
        names(min("connection"), on("connection", 2)),
        fc.array(fc.record({ http: fc.boolean(), header: fc.constantFrom("2", "ünï", "a b") }), { minLength: 2, maxLength: 2 }),
      ),
      folders: fc.tuple(names(min("folder"), on("folder", 4)), fc.array(folderPlan, { minLength: 4, maxLength: 4 })),
      views: fc.tuple(names(min("materializedView"), on("materializedView", 2)), fc.array(fc.record({ source: fc.nat(3), target: fc.option(fc.nat(3), { nil: undefined }), enabled: fc.boolean() }), { minLength: 2, maxLength: 2 })),
    })
    .map((p) => {
      const zip = <T>([list, details]: [string[], T[]]) => list.map((name, i) => ({ name, ...details[i]! }));
      const sources = zip(p.sources).map((s) => ({ ...s, connection: kinds.includes("connection") ? s.connection : undefined }));
      return {
        ...p,
        groups: zip(p.groups),
        calendars: zip(p.calendars),
        datasets: zip(p.datasets),
        sources,
        connections: zip(p.connections),
        folders: zip(p.folders),
        // A view needs a source: none without one.
        views: sources.length === 0 ? [] : zip(p.views),
      };
    })
    .filter((p) => !atLeastOneOfEach || kinds.every((k) => (k === "connection" ? p.connections : k === "folder" ? p.folders : p.views).length > 0));
}
type Plan = typeof planOf extends (...args: never[]) => fc.Arbitrary<infer T> ? T : never;

// ---- Making an account from a plan, through the API ----

const ok = (res: CallResult, what: string, status = [200, 201, 204]) => {
  expect(status, `${what}: ${res.status} ${res.text.slice(0, 400)}`).toContain(res.status);
  return res.json;
};
const pick = <T>(list: readonly T[], i: number | undefined) => (i === undefined || list.length === 0 ? undefined : list[i % list.length]);

interface Made {
  account: { id: string; name: string };
  /** The admin who makes everything first, then the plan's users. */
  users: (TestUser & { roles: string[]; groups: string[] })[];
}

async function make(plan: Plan): Promise<Made> {
  const account = await createAccount(unique("RoundTripA"));
  const groups: { id: string; name: string }[] = [];
  for (const g of plan.groups) {
    const res = await call("POST", "/api/groups", { body: { name: g.name, accountId: account.id, privileges: g.privileges, ...(g.description !== undefined && { description: g.description }) } });
    groups.push(ok(res, "group"));
  }
  const builtIn = (ok(await call("GET", `/api/groups?accountId=${account.id}`), "groups").content as { id: string; name: string; description: string | null }[]).filter((g) =>
    ["Users", "Administrators"].includes(g.name),
  );
  if (plan.usersGroupPrivileges) {
    const users = builtIn.find((g) => g.name === "Users")!;
    ok(await call("PUT", `/api/groups/${users.id}`, { body: { name: "Users", accountId: account.id, privileges: plan.usersGroupPrivileges, description: users.description } }), "Users group");
  }
  const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  const made: Made = { account, users: [{ ...admin, roles: [], groups: ["Administrators", "Users"] }] };
  for (const u of plan.users) {
    const memberOf = ["Users", ...u.groups.flatMap((i) => (groups[i] ? [groups[i]!.name] : []))];
    made.users.push({ ...(await createUser(account.id, { roles: u.roles, groups: memberOf })), roles: u.roles, groups: memberOf });
  }
  const principal = (to: Grantee) => {
    if ("user" in to) return { principalType: "USER", principalId: made.users[to.user % made.users.length]!.id };
    const group = "group" in to ? pick(groups, to.group) : builtIn.find((g) => g.name === to.builtIn);
    return group && { principalType: "GROUP", principalId: group.id };
  };
  const by = { as: as(admin) };

  if (plan.quota) ok(await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: plan.quota } }), "quota");
  const calendars: { id: string }[] = [];
  for (const k of plan.calendars) {
    const body = "monthShift" in k ? { type: "MONTH_SHIFT", name: k.name, monthShift: k.monthShift } : { type: "FISCAL_445", name: k.name, fiscal445: k.fiscal445 };
    calendars.push(ok(await call("POST", "/api/calendars", { ...by, body }), "calendar") as { id: string });
  }
  for (const d of plan.datasets) {
    ok(await call("POST", "/api/json-datasets", { ...by, body: { name: d.name, data: d.data, ...(d.description !== undefined && { description: d.description }) } }), "dataset");
  }
  const connections: { id: string }[] = [];
  for (const c of plan.connections) {
    const allParameters = c.http
      ? [{ key: "url", value: "http://127.0.0.1:8080/rows.json" }, { key: "header.X-Api-Version", value: c.header }, { key: "tableName", value: "rows" }]
      : [{ key: "host", value: "127.0.0.1" }, { key: "port", value: "5432" }, { key: "database", value: "analytics" }, { key: "user", value: c.header }, { key: "sslmode", value: "require" }];
    connections.push(ok(await call("POST", "/api/connections", { ...by, body: { name: c.name, connectionTypeId: c.http ? "http-json" : "postgresql", allParameters } }), "connection") as { id: string });
  }
  const sources: { id: string }[] = [];
  for (const s of plan.sources) sources.push(await makeSource(s, by, { calendars, connections, principal, adminId: admin.id }));
  await makeFolders(plan, admin, principal);
  for (const v of plan.views) {
    const source = pick(sources, v.source)!;
    const target = pick(connections, v.target);
    const body = {
      name: v.name,
      enabled: v.enabled,
      definition: { type: "AGG", sourceId: source.id, aggregations: [{ type: "TERMS", field: { name: "a0" } }], metrics: [{ type: "SUM", field: { name: "n0" } }] },
      ...(target && { storageSettings: { targetStorage: { connectionId: target.id, schemas: ["public"], collection: "rollup" } } }),
    };
    ok(await call("POST", "/api/materialized-views", { ...by, body }), "view");
  }
  return made;
}

type Principal = (to: Grantee) => { principalType: string; principalId: string } | undefined;

async function makeSource(s: SourcePlan & { name: string }, by: { as: ReturnType<typeof as> }, ctx: { calendars: { id: string }[]; connections: { id: string }[]; principal: Principal; adminId: string }) {
  const label = (i: number) => (s.labels[i] !== undefined ? { label: s.labels[i] } : {});
  const native = (name: string, originalType: string, i: number) => ({
    name,
    ...label(i),
    ...(i === 0 && s.hidden && { visible: false }),
    ...(i === 0 && s.defaultMetric !== undefined && { defaultMetric: s.defaultMetric }),
    origin: { type: "NATIVE", nativeOrigin: { originalName: name, originalType, dataEntityId: "public.rows" } } });
  const fields = [
    ...s.numbers.map((t, i) => native(`n${i}`, t, i)),
    ...s.attributes.map((t, i) => native(`a${i}`, t, s.numbers.length + i)),
    ...(s.time ? [native("t0", "TIMESTAMP", 9)] : []),
  ];
  const connection = pick(ctx.connections, s.connection);
  const source = ok(
    await call("POST", "/api/sources", { ...by, body: { name: s.name, enabled: s.enabled, features: s.features, fields, ...(s.description !== undefined && { description: s.description }), ...(connection && { connectionId: connection.id }) } }),
    "source",
  ) as { id: string };
  const path = `/api/sources/${source.id}`;
  for (const [i, d] of s.derived.entries()) {
    const calendar = pick(ctx.calendars, d.calendar);
    const body = { name: `d${i}`, origin: { type: "DERIVED", derivedOrigin: { expression: `n0 * ${d.factor}`, ...(calendar && { calendarId: calendar.id }) } } };
    ok(await call("POST", `${path}/fields`, { ...by, body }), "derived field");
  }
  if (s.hierarchy && s.attributes.length >= 2) {
    ok(await call("POST", `${path}/fields`, { ...by, body: { name: "h0", origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField: "a0", parentField: "a1" } } } } }), "hierarchy");
  }
  for (const [i, m] of s.metrics.entries()) {
    const body = { expression: `${m.fn}(n${i % s.numbers.length})`, visible: m.visible, ...(m.label !== undefined && { label: m.label }) };
    ok(await call("PUT", `${path}/custom-metrics/m${i}`, { ...by, body }), "metric");
  }
  ok(await call("PUT", `${path}/security`, { ...by, body: { fieldsSecurity: { enabled: s.security.fields }, customMetricsSecurity: { enabled: s.security.metrics } } }), "security");
  const grants = new Map<string, { principalType: string; principalId: string; permission: string }>([[`USER:${ctx.adminId}`, { principalType: "USER", principalId: ctx.adminId, permission: "WRITE" }]]);
  for (const g of s.grants) {
    const p = ctx.principal(g.to);
    if (p) grants.set(`${p.principalType}:${p.principalId}`, { ...p, permission: g.permission });
  }
  ok(await call("PUT", `${path}/permissions`, { ...by, body: { content: [...grants.values()] } }), "permissions");
  return source;
}

async function makeFolders(plan: Plan, admin: TestUser, principal: Principal) {
  const folders = (method: string, path: string, body: unknown) => call(method, path, { as: as(admin), body, headers: PREVIEW });
  const made: { id: string; contentType: string }[] = [];
  for (const [i, f] of plan.folders.entries()) {
    const parent = f.parent === undefined || i === 0 ? undefined : made[f.parent % i];
    const body = { folder_name: f.name, ...(parent ? { parent_id: parent.id } : { content_type: f.contentType }), ...(f.description !== undefined && { description: f.description }) };
    const folder = ok(await folders("POST", "/api/folders", body), "folder") as { id: string };
    const contentType = parent?.contentType ?? f.contentType;
    made.push({ id: folder.id, contentType });
    const acl = new Map<string, { principalType: string; principalId: string; permissions: string[] }>();
    for (const g of f.acl) {
      const p = principal(g.to);
      if (p) acl.set(`${p.principalType}:${p.principalId}`, { ...p, permissions: g.permissions });
    }
    if (acl.size > 0) ok(await folders("PUT", `/api/folders/${folder.id}/permissions`, { content: [...acl.values()] }), "folder ACL");
    const itemType = contentType === "REPORTS" ? "REPORT" : "DASHBOARD";
    for (const item of f.items) ok(await folders("PUT", `/api/folders/${folder.id}/items/${itemType}/${item.id}`, { name: item.name }), "folder item");
  }
}

// ---- Export and import ----

const exportText = async (accountId: string) => {
  const res = await call("GET", `/api/accounts/${accountId}/export`);
  ok(res, "export", [200]);
  return res.text;
};
const importInto = (accountId: string, bundle: string, query = "") =>
  call("POST", `/api/accounts/${accountId}/import${query}`, { rawBody: bundle, headers: { "Content-Type": "application/json" } });
/** The bundle with the account's own name taken out (the bundle is canonical JSON: it sits in one place). */
const withoutAccountName = (bundle: string, name: string) => {
  const member = `"account":{"name":${JSON.stringify(name)}}`;
  expect(bundle).toContain(member);
  return bundle.replace(member, '"account":{}');
};
const auditCount = async (accountId: string) =>
  (await (await databaseOf(accountId)).prepare("SELECT count(*) AS n FROM audit_events WHERE account_id = ?").bind(accountId).first<{ n: number }>())!.n;
const AUDIT_TYPE: Record<string, string> = { jsonDataset: "json-dataset", materializedView: "materialized-view" };

/** Hands A's users over to B: each renamed in A, made in B under its old name with its roles and built-in groups. */
async function moveUsers(made: Made, to: string) {
  const moved = [];
  for (const u of made.users) {
    ok(await call("PUT", `/api/users/${u.id}`, { body: { name: `${u.username}-left`, accountId: made.account.id, groups: u.groups, roles: u.roles } }), "rename in A");
    const builtIn = u.groups.filter((g) => g === "Users" || g === "Administrators");
    moved.push({ ...(await createUser(to, { name: u.username, roles: u.roles, groups: builtIn })), roles: u.roles, groups: u.groups });
  }
  return moved;
}

describe("whole-account round trip (property)", () => {
  it(
    `export A, import into an empty B, export B: the same bytes but the account's name; audited per object; a second import UNCHANGED, writing nothing (with ${ROUND_TRIP_KINDS.join(", ")})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(planOf(ROUND_TRIP_KINDS), async (plan) => {
          const made = await make(plan);
          const bundleA = await exportText(made.account.id);
          const b = await createAccount(unique("RoundTripB"));
          const movedUsers = await moveUsers(made, b.id);
          const emptyB = await exportText(b.id);

          const dry = await importInto(b.id, bundleA, "?dryRun=true");
          ok(dry, "dry run", [200]);
          const conflicts = dry.json.entries.filter((e: { status: string }) => e.status === "CONFLICT");
          expect(conflicts, "no conflict in the plan").toEqual([]);
          expect(await exportText(b.id), "a dry run writes nothing").toBe(emptyB);

          const applied = await importInto(b.id, bundleA);
          ok(applied, "import", [200]);
          // Where D1 served it: one entry per call (a batch of hundreds of statements is one), never one per statement.
          expect(applied.headers.get("X-D1-Served-By")!.split(", ").length).toBeLessThanOrEqual(Number(applied.headers.get("X-D1-Round-Trips")));
          const written = applied.json.entries.filter((e: { status: string }) => e.status !== "UNCHANGED");
          expect(written.map((e: { status: string }) => e.status).every((s: string) => s === "CREATED" || s === "UPDATED"), applied.text).toBe(true);
          expect(applied.json.entries.map((e: { type: string; name?: string }) => `${e.type}:${e.name}`)).toEqual(dry.json.entries.map((e: { type: string; name?: string }) => `${e.type}:${e.name}`));
          // One audit event per object written, in the import's own request.
          const events = await eventsOf(applied);
          // By type and name (a folder, known by its path, by type only: how its event names it is the folder import's to say).
          const eventKey = (e: { targetType: string; targetName: string | null }) => (e.targetType === "folder" ? "folder" : `${e.targetType}:${e.targetName ?? ""}`);
          const entryKey = (e: { type: string; name?: string }) => (e.type === "folder" ? "folder" : `${AUDIT_TYPE[e.type] ?? e.type}:${e.name ?? ""}`);
          expect(events.map(eventKey).sort()).toEqual(written.map(entryKey).sort());
          expect(events.every((e) => e.accountId === b.id)).toBe(true);

          // Memberships of the groups the import made, as A's users had them.
          for (const u of movedUsers) {
            if (u.groups.every((g) => g === "Users" || g === "Administrators")) continue;
            ok(await call("PUT", `/api/users/${u.id}`, { body: { name: u.username, accountId: b.id, groups: u.groups, roles: u.roles } }), "memberships in B");
          }
          const bundleB = await exportText(b.id);
          expect(withoutAccountName(bundleB, b.name)).toBe(withoutAccountName(bundleA, made.account.name));

          const auditBefore = await auditCount(b.id);
          const rowsBefore = await rowsOfAccount(b.id);
          const again = await importInto(b.id, bundleA);
          ok(again, "second import", [200]);
          expect(again.json.entries.filter((e: { status: string }) => e.status !== "UNCHANGED")).toEqual([]);
          expect(await eventsOf(again)).toEqual([]);
          expect(await auditCount(b.id)).toBe(auditBefore);
          expect(await rowsOfAccount(b.id)).toEqual(rowsBefore);
          expect(await exportText(b.id)).toBe(bundleB);
        }),
        RUN,
      );
    },
    120_000,
  );

  it("the generators of connections, folders and views make what A's export holds", async () => {
    await fc.assert(
      fc.asyncProperty(planOf(ROUND_TRIP_KINDS, true), async (plan) => {
        const made = await make(plan);
        const bundle = JSON.parse(await exportText(made.account.id));
        const sorted = (list: string[]) => [...list].sort();
        expect(sorted(bundle.connections.map((c: { name: string }) => c.name))).toEqual(sorted(plan.connections.map((c) => c.name)));
        for (const c of plan.connections) {
          const exported = bundle.connections.find((x: { name: string }) => x.name === c.name);
          expect(exported.connectionType).toBe(c.http ? "HTTP JSON" : "PostgreSQL");
          expect(exported.allParameters).toContainEqual(c.http ? { key: "header.X-Api-Version", value: c.header, systemAccess: false } : { key: "user", value: c.header, systemAccess: false });
        }
        // Folders by path (the user's private tree, if any, aside); each with its items and ACL by principal name.
        const custom = bundle.folders.filter((f: { folderType: string }) => f.folderType !== "PRIVATE");
        expect(custom).toHaveLength(plan.folders.length);
        const paths: string[][] = [];
        for (const [i, f] of plan.folders.entries()) {
          const parent = f.parent === undefined || i === 0 ? undefined : paths[f.parent % i];
          paths.push([...(parent ?? []), f.name]);
          const exported = custom.find((x: { path: string[] }) => JSON.stringify(x.path) === JSON.stringify(paths[i]));
          expect(exported, `folder ${JSON.stringify(paths[i])}`).toBeDefined();
          expect(sorted(exported.items.map((it: { itemId: string; name: string }) => `${it.itemId}:${it.name}`))).toEqual(sorted(f.items.map((it) => `${it.id}:${it.name}`)));
          if (f.acl.length > 0) expect(exported.permissions.length).toBeGreaterThan(0);
          for (const p of exported.permissions) expect(p.principalName).toBeTypeOf("string");
        }
        expect(sorted(bundle.materializedViews.map((v: { name: string }) => v.name))).toEqual(sorted(plan.views.map((v) => v.name)));
        for (const v of plan.views) {
          const exported = bundle.materializedViews.find((x: { name: string }) => x.name === v.name);
          expect(exported.source).toBe(pick(plan.sources, v.source)!.name);
          const target = pick(plan.connections, v.target);
          if (target) expect(exported.storageSettings.targetStorage.connectionName).toBe(target.name);
          expect(exported.enabled).toBe(v.enabled);
        }
      }),
      { ...RUN, numRuns: 4 },
    );
  }, 60_000);
});
