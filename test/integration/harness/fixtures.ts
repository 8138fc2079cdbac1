import { as, call, createAccount, createGroup, createUser, PASSWORD, type TestUser } from "../helpers";
import type { HttpMethod } from "./document";

/**
 * The fixture registry: for every path template of the document, how to make a REAL object of
 * an account through the API (its path parameters) and a VALID body for each method that takes
 * one. The conformance suites (fuzz, privilege and tenancy matrices, lifecycles) read nothing
 * else about a route, so a documented operation without its entry here fails them, naming the
 * template and what to add (see coverage.ts).
 *
 * Every name and description a world writes carries its marker, so that the tenancy matrix can
 * prove that another account's data never leaks into an answer.
 */
export type PathParams = Record<string, string>;

export interface World {
  /** Distinctive text in every name and description written for this world. */
  marker: string;
  account: { id: string; name: string };
  /** An administrator of the account (Administrators group): owns the world's sources. */
  admin: TestUser;
  /** A fresh name carrying the marker, valid for every kind of object (letters, digits, `_`). */
  name(prefix: string): string;
  /** One object per world and key, made on first use (a parent shared by the nested fixtures). */
  shared<T>(key: string, make: () => Promise<T>): Promise<T>;
}

export interface FixtureEntry {
  /** Makes a new real object in the world's account and answers the path parameters naming it. */
  params?: (world: World) => Promise<PathParams>;
  /** A valid body for each method that takes one; names are fresh on every call. */
  bodies?: Partial<Record<HttpMethod, (world: World, params: PathParams) => unknown>>;
  /**
   * For reference members (see REFERENCE_MEMBERS) the valid body does not carry: a valid body
   * naming `value` there, keyed by the member's path (`content[].principalId`).
   */
  references?: Record<string, (world: World, params: PathParams, value: string) => unknown>;
}

let worlds = 0;

/** An account with an administrator; `label` goes into the marker (e.g. "TenantB"). */
export async function createWorld(label: string): Promise<World> {
  const marker = `${label}Mark${(worlds++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  let names = 0;
  const name = (prefix: string) => `${prefix}_${marker}_${(names++).toString(36)}`;
  const account = await createAccount(name("Account"));
  const admin = await createUser(account.id, { name: name("admin"), groups: ["Users", "Administrators"] });
  const cache = new Map<string, Promise<unknown>>();
  return {
    marker,
    account,
    admin,
    name,
    shared<T>(key: string, make: () => Promise<T>) {
      if (!cache.has(key)) cache.set(key, make());
      return cache.get(key) as Promise<T>;
    },
  };
}

/** Fails the test with the request and answer when a fixture could not be made. */
async function expectStatus(what: string, res: Awaited<ReturnType<typeof call>>, ...statuses: number[]) {
  if (!statuses.includes(res.status)) throw new Error(`fixture ${what}: expected ${statuses.join("/")}, got ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

/** Native fields every fixture source has (their types: ATTRIBUTE, NUMBER, INTEGER, TIME). */
const SOURCE_FIELDS = [
  { name: "carrier", type: "VARCHAR(10)" },
  { name: "price", type: "DECIMAL(10,2)" },
  { name: "qty", type: "INT" },
  { name: "order_date", type: "TIMESTAMP" },
];
const nativeField = (name: string, originalType: string) => ({ name, origin: { type: "NATIVE", nativeOrigin: { originalName: name, originalType } } });

async function createSource(world: World): Promise<string> {
  const res = await call("POST", "/api/sources", {
    as: as(world.admin),
    body: { name: world.name("Source"), description: `source of ${world.marker}`, fields: SOURCE_FIELDS.map((f) => nativeField(f.name, f.type)) },
  });
  return (await expectStatus("source", res, 201)).json.id;
}

/** The world's source that nested fixtures (fields, metrics) live in: never deleted by the harness. */
const sharedSource = (world: World) => world.shared("source", () => createSource(world));

async function createField(world: World): Promise<PathParams> {
  const sourceId = await sharedSource(world);
  const fieldName = world.name("field");
  const res = await call("POST", `/api/sources/${sourceId}/fields`, { as: as(world.admin), body: nativeField(fieldName, "INT") });
  await expectStatus("field", res, 201);
  return { sourceId, fieldName };
}

async function createMetric(world: World): Promise<PathParams> {
  const sourceId = await sharedSource(world);
  const customMetricName = world.name("metric");
  const res = await call("POST", `/api/sources/${sourceId}/custom-metrics`, {
    as: as(world.admin),
    body: { name: customMetricName, expression: "sum(price)", label: `metric of ${world.marker}` },
  });
  await expectStatus("custom metric", res, 201);
  return { sourceId, customMetricName };
}

/** The world's account carries a quota (PUT is an upsert, so this also restores a deleted one). */
async function ensureQuota(world: World): Promise<PathParams> {
  const res = await call("PUT", "/api/quota", { body: { accountId: world.account.id, quotas: [{ type: "SOURCE", limit: 10_000 }] } });
  await expectStatus("quota", res, 200, 201);
  return { accountId: world.account.id };
}

const sourceParams = async (world: World): Promise<PathParams> => ({ sourceId: await createSource(world) });
const sharedSourceParams = async (world: World): Promise<PathParams> => ({ sourceId: await sharedSource(world) });

export const FIXTURES: Record<string, FixtureEntry> = {
  "/api/accounts": {
    bodies: { POST: (w) => ({ name: w.name("Account"), senderDisplayName: `sender of ${w.marker}` }) },
  },
  "/api/accounts/{id}": {
    // A disposable account of its own: the world's account is never renamed or deleted.
    params: async (w) => ({ id: (await createAccount(w.name("Account"))).id }),
    bodies: { PUT: (w) => ({ name: w.name("Account") }) },
  },
  "/api/accounts/name/{name}": {
    params: async (w) => ({ name: (await createAccount(w.name("Account"))).name }),
  },
  "/api/users": {
    bodies: { POST: (w) => ({ name: w.name("user"), password: PASSWORD, fullName: `user of ${w.marker}`, accountId: w.account.id }) },
  },
  "/api/users/{id}": {
    params: async (w) => ({ id: (await createUser(w.account.id, { name: w.name("user") })).id }),
    bodies: { PUT: (w) => ({ name: w.name("user"), fullName: `user of ${w.marker}` }) },
  },
  "/api/groups": {
    bodies: { POST: (w) => ({ name: w.name("group"), description: `group of ${w.marker}`, accountId: w.account.id }) },
  },
  "/api/groups/{id}": {
    params: async (w) => ({ id: (await createGroup(w.account.id, w.name("group"))).id }),
    bodies: { PUT: (w) => ({ name: w.name("group"), description: `group of ${w.marker}` }) },
  },
  "/api/quota": {
    bodies: { PUT: (w) => ({ accountId: w.account.id, quotas: [{ type: "SOURCE", limit: 10_000 }, { type: "CONNECTION", limit: 5 }] }) },
  },
  "/api/quota/{accountId}": { params: ensureQuota },
  "/api/quota/refresh/{accountId}": { params: ensureQuota },
  "/api/sources": {
    bodies: { POST: (w) => ({ name: w.name("Source"), description: `source of ${w.marker}`, fields: [nativeField("amount", "DECIMAL")] }) },
  },
  "/api/sources/{sourceId}": {
    params: sourceParams,
    bodies: { PATCH: (w) => ({ description: `changed source of ${w.marker}` }) },
  },
  "/api/sources/{sourceId}/permissions": {
    params: sourceParams,
    bodies: { PUT: () => ({ content: [] }) },
    references: {
      "content[].principalId": (_w, _p, value) => ({ content: [{ principalType: "USER", principalId: value, permission: "READ" }] }),
    },
  },
  "/api/sources/{sourceId}/security": {
    params: sourceParams,
    bodies: { PUT: () => ({ fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } }) },
  },
  "/api/sources/{sourceId}/expression-syntax": { params: sharedSourceParams },
  "/api/sources/{sourceId}/fields": {
    params: sharedSourceParams,
    bodies: { POST: (w) => ({ ...nativeField(w.name("field"), "INT"), label: `field of ${w.marker}` }) },
    references: {
      "origin.derivedOrigin.calendarId": (w, _p, value) => ({
        name: w.name("derived"),
        origin: { type: "DERIVED", derivedOrigin: { expression: "qty + 1", calendarId: value } },
      }),
      "origin.nativeOrigin.dataEntityId": (w, _p, value) => ({
        name: w.name("field"),
        origin: { type: "NATIVE", nativeOrigin: { originalName: "qty", originalType: "INT", dataEntityId: value } },
      }),
    },
  },
  "/api/sources/{sourceId}/fields/validate": {
    params: sharedSourceParams,
    bodies: { POST: () => ({ expression: "qty + 1" }) },
  },
  "/api/sources/{sourceId}/fields/{fieldName}": {
    params: createField,
    bodies: {
      PUT: (w, p) => ({ name: p.fieldName, label: `field of ${w.marker}`, origin: { type: "NATIVE", nativeOrigin: { originalName: p.fieldName!, originalType: "INT" } } }),
      PATCH: () => ({ visible: false }),
    },
    references: {
      "origin.derivedOrigin.calendarId": (_w, p, value) => ({
        name: p.fieldName,
        origin: { type: "DERIVED", derivedOrigin: { expression: "qty + 1", calendarId: value } },
      }),
      "origin.nativeOrigin.dataEntityId": (_w, p, value) => ({
        name: p.fieldName,
        origin: { type: "NATIVE", nativeOrigin: { originalName: p.fieldName!, originalType: "INT", dataEntityId: value } },
      }),
    },
  },
  "/api/sources/{sourceId}/custom-metrics": {
    params: sharedSourceParams,
    bodies: { POST: (w) => ({ name: w.name("metric"), expression: "sum(price) / count(*)", label: `metric of ${w.marker}` }) },
  },
  "/api/sources/{sourceId}/custom-metrics/validate": {
    params: sharedSourceParams,
    bodies: { POST: () => ({ expression: "sum(price) / sum(qty)" }) },
  },
  "/api/sources/{sourceId}/custom-metrics/{customMetricName}": {
    params: createMetric,
    bodies: {
      PUT: (w) => ({ expression: "max(price)", label: `metric of ${w.marker}` }),
      PATCH: () => ({ visible: false }),
    },
  },
};

/**
 * Body members that name another object (ids of accounts, users, sources, ...), by member name.
 * `collection` is the resource the id belongs to: while the document has no path under it, the
 * member cannot name anything real yet and the tenancy matrix skips it (and says so); once the
 * resource is mounted, `value` must answer a real id of that kind in the world's account.
 * Members that merely look like references say why they are not, in `notAReference`.
 */
export interface ReferenceTarget {
  collection?: string;
  value?: (world: World) => Promise<string>;
  notAReference?: string;
}

export const REFERENCE_MEMBERS: Record<string, ReferenceTarget> = {
  accountId: { collection: "/api/accounts", value: async (w) => w.account.id },
  principalId: { collection: "/api/users", value: (w) => w.shared("user", async () => (await createUser(w.account.id, { name: w.name("user") })).id) },
  sourceId: { collection: "/api/sources", value: (w) => sharedSource(w) },
  userId: { collection: "/api/users", value: (w) => w.shared("user", async () => (await createUser(w.account.id, { name: w.name("user") })).id) },
  groupId: { collection: "/api/groups", value: (w) => w.shared("group", async () => (await createGroup(w.account.id, w.name("group"))).id) },
  connectionId: { collection: "/api/connections" },
  calendarId: { collection: "/api/calendars" },
  parent_id: { collection: "/api/folders" },
  dataEntityId: { notAReference: "names a table of the source's remote database, not an object of this API" },
};

/** Member names that look like references to other objects. */
export const REFERENCE_NAME = /^(?!id$).*(?:Id|Ids|ID|_id|_ids)$/;
