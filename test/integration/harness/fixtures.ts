import { as, call, createAccount, createAccountApart, createGroup, createUser, databaseOf, PASSWORD, type TestUser } from "../helpers";
import { inject } from "vitest";
import { READER_PASSWORD, READER_USER } from "../../global-setup/fixture-data.mjs";
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
  /** Basic credentials (client_id, client_secret) of a trusted-access client restricted to the account. */
  client: { username: string; password: string };
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
  /** Valid query members for each method whose operation requires some (e.g. a date range). */
  query?: Partial<Record<HttpMethod, (world: World, params: PathParams) => Record<string, string>>>;
  /**
   * Methods that create the object the path names when the caller's account has none with that id
   * (an upsert by a client-chosen id, E6 PUT): another account's id is then free for the caller's
   * own new object, so the tenancy matrix expects a creation that leaves the other's untouched.
   */
  upsertsById?: HttpMethod[];
}

let worlds = 0;

/**
 * An account with an administrator; `label` goes into the marker (e.g. "TenantB"). `apartFrom`: the
 * account is made on another database than that world's, where there is one (over several
 * databases, so that what one world reaches of the other crosses shards).
 */
export async function createWorld(label: string, options: { apartFrom?: World } = {}): Promise<World> {
  const marker = `${label}Mark${(worlds++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  let names = 0;
  const name = (prefix: string) => `${prefix}_${marker}_${(names++).toString(36)}`;
  const make = () => createAccount(name("Account"));
  const account = options.apartFrom ? await createAccountApart(options.apartFrom.account.id, make) : await make();
  const admin = await createUser(account.id, { name: name("admin"), groups: ["Users", "Administrators"] });
  const client = await createTrustedClient(name, account.id);
  const cache = new Map<string, Promise<unknown>>();
  return {
    marker,
    account,
    admin,
    client: { username: client.client_id, password: client.client_secret },
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

/** A trusted-access client restricted to the account (its answer carries the only copy of its secret). */
async function createTrustedClient(name: (prefix: string) => string, accountId: string): Promise<{ client_id: string; client_secret: string }> {
  const res = await call("POST", "/api/trusted-access/clients", { body: { client_name: name("client"), access_token_validity_seconds: 3600, account_ids: [accountId] } });
  return (await expectStatus("trusted-access client", res, 201)).json;
}

const trustedClientParams = async (world: World): Promise<PathParams> => ({ id: (await createTrustedClient(world.name, world.account.id)).client_id });

/** A token of the world's admin, pulled by the world's client: its token_id names it. */
async function tokenParams(world: World): Promise<PathParams> {
  const res = await call("POST", "/api/trusted-access/pull/tokens", { as: world.client, body: { username: world.admin.username } });
  return { tokenId: (await expectStatus("access token", res, 200)).json.token_id };
}

/**
 * A webhook subscription of the world's account to the receiver of the global setup, disabled: the
 * suites' writes are not delivered (webhooks.test.ts covers delivery); a ping still reaches it.
 */
const webhookBody = (w: World) => ({ url: `${inject("connectorServers").webhookReceiverUrl}/hooks/${w.marker}`, events: ["*"], description: `webhook of ${w.marker}`, enabled: false });

async function webhookParams(world: World): Promise<PathParams> {
  const res = await call("POST", "/api/webhooks", { as: as(world.admin), body: webhookBody(world) });
  return { id: (await expectStatus("webhook", res, 201)).json.id };
}

/**
 * A FAILED delivery of a webhook's: written in D1 directly, as the Queue's consumer writes one after
 * its last attempt (making one through the API takes the whole backoff), for the newest event of the account,
 * on the account's database (its webhooks, events and deliveries live on its shard, docs/sharding.md).
 */
async function failedDeliveryParams(world: World): Promise<PathParams> {
  const { id } = await webhookParams(world);
  const deliveryId = crypto.randomUUID();
  const now = new Date().toISOString();
  const inserted = await (await databaseOf(world.account.id)).prepare(
    "INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, last_status, last_error, outcome, created_at, updated_at) " +
      "SELECT ?, ?, id, 8, 503, 'HTTP 503', 'FAILED', ?, ? FROM audit_events WHERE account_id = ? ORDER BY id DESC LIMIT 1",
  )
    .bind(deliveryId, id, now, now, world.account.id)
    .run();
  if (inserted.meta.changes !== 1) throw new Error(`fixture failed delivery: no event of account ${world.account.id} on its database`);
  return { id, deliveryId };
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

/** A FISCAL_445 calendar of the world's account (the periods routes also take the id `default`). */
async function createCalendar(world: World): Promise<string> {
  return (await createWithinLimit(world, "calendar", "/api/calendars", fiscalCalendar(world), 201, "TOO_MANY_CALENDARS")).id;
}

const fiscalCalendar = (world: World) => ({
  type: "FISCAL_445",
  name: world.name("Calendar"),
  fiscal445: { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: false, yearEndIsoMonth: "JANUARY", quarterType: "QUARTER_454_WEEKS", leapWeekInMonth: 12 },
});

const calendarParams = async (world: World): Promise<PathParams> => ({ calendarId: await createCalendar(world) });

/** A JSON dataset body: fresh name, the marker in the description and in the data (a leak of `data` shows too). */
const jsonDataset = (world: World) => ({
  name: world.name("dataset"),
  description: `dataset of ${world.marker}`,
  data: { records: [{ id: 12345678901234567890, price: 1.0, label: world.marker }] },
});

/**
 * POSTs an object the account may hold only so many of. A deep fuzz (`npm run fuzz`) of that POST
 * fills the account; then one of its objects is deleted through the API to make room, and the POST
 * is sent again.
 */
async function createWithinLimit(world: World, what: string, path: string, body: unknown, created: number, limitCode: string) {
  const post = () => call("POST", path, { as: as(world.admin), body });
  let res = await post();
  if (res.status === 409 && res.json?.errorCode === limitCode) {
    const listed = await expectStatus(`${what} list`, await call("GET", path, { as: as(world.admin) }), 200);
    // The first that may go: one still in use (a calendar a derived field names) refuses its delete.
    for (const { id } of listed.json.content as { id: string }[]) {
      if ((await call("DELETE", `${path}/${id}`, { as: as(world.admin) })).status === 204) break;
    }
    res = await post();
  }
  return (await expectStatus(what, res, created)).json;
}

async function createJsonDataset(world: World): Promise<PathParams> {
  return { id: (await createWithinLimit(world, "JSON dataset", "/api/json-datasets", jsonDataset(world), 201, "DATASET_LIMIT")).id };
}

const sourceParams = async (world: World): Promise<PathParams> => ({ sourceId: await createSource(world) });

/** A source body whose `storage` (the reference product's alias, README "Aliases") names `value`: a connection, or a derived field's calendar. */
const storageNaming = {
  connectionId: (w: World, _p: PathParams, value: string) => ({
    name: w.name("Source"),
    storage: { dataEntities: [{ type: "SINGLE_COLLECTION", singleCollection: { connectionId: value, schema: "sales", collection: "orders" } }] },
  }),
  calendarId: (w: World, _p: PathParams, value: string) => ({
    name: w.name("Source"),
    storage: { dataEntities: [{ nativeFields: [{ name: "doubled", origin: { type: "DERIVED", derivedOrigin: { expression: "1 + 1", calendarId: value } } }] }] },
  }),
};
const sharedSourceParams = async (world: World): Promise<PathParams> => ({ sourceId: await sharedSource(world) });

/** Query builders are synchronous: the world's shared source id once made (a placeholder before: the export answers 404). */
const sharedSourceIds = new WeakMap<World, string>();

/** A bundle of GET /api/sources/export: one source with a derived field and a metric, under a fresh name, no connection. */
const importBundle = (w: World, definition: Record<string, unknown> = {}, field?: unknown) => ({
  version: "1",
  importSettings: { globalLevel: { ifExists: "REUSE", ifDoesNotExist: "CREATE" } },
  connections: [],
  sources: [
    {
      definition: { id: "bundled-source", name: w.name("Imported"), description: `imported source of ${w.marker}`, features: [], enabled: true, ...definition },
      fields: [nativeField("price", "DECIMAL(10,2)"), field ?? { name: "taxed", origin: { type: "DERIVED", derivedOrigin: { expression: "price * 1.2" } } }],
      customMetrics: [{ name: "revenue", expression: "sum(price)", label: `metric of ${w.marker}` }],
      security: { fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: false } },
    },
  ],
});

/** The sample PostgreSQL server of the global setup, as a connection's parameters (the reader role: it reads sales and hr). */
function samplePostgresParameters() {
  const { host, port, database } = inject("connectorServers").postgres;
  return [
    { key: "host", value: host },
    { key: "port", value: String(port) },
    { key: "database", value: database },
    { key: "user", value: READER_USER },
    { key: "password", value: READER_PASSWORD },
    { key: "sslmode", value: "disable" },
  ];
}

const connectionBody = (world: World) => ({ name: world.name("Connection"), connectionTypeId: "postgresql", allParameters: samplePostgresParameters() });

async function createConnection(world: World): Promise<string> {
  const res = await call("POST", "/api/connections", { as: as(world.admin), body: connectionBody(world) });
  return (await expectStatus("connection", res, 201)).json.id;
}

/**
 * The world's connection that bodies name (connectionId): its id is known before it exists (E6 PUT
 * names it), so a body builder can name it; the route's `params` makes sure it exists first.
 */
const sharedConnectionId = (world: World) => `connection-${world.marker}`;

async function ensureSharedConnection(world: World): Promise<string> {
  return world.shared("connection", async () => {
    const id = sharedConnectionId(world);
    const res = await call("PUT", `/api/connections/${id}`, { as: as(world.admin), body: connectionBody(world) });
    await expectStatus("shared connection", res, 201);
    return id;
  });
}

const sharedConnectionParams = async (world: World): Promise<PathParams> => ({ connectionId: await ensureSharedConnection(world) });

const connectionTypeBody = (world: World) => ({ connectorId: "postgresql", name: world.name("ConnectionType"), description: `connection type of ${world.marker}` });

/** A connection type (the supervisor's) that only the world's account may use: another account sees nothing of it. */
async function createConnectionType(world: World): Promise<string> {
  const res = await call("POST", "/api/connection/types", { body: connectionTypeBody(world) });
  const id = (await expectStatus("connection type", res, 201)).json.id as string;
  await expectStatus("connection type accounts", await call("PUT", `/api/connection/types/${id}/accounts`, { body: [world.account.id] }), 200);
  return id;
}

const connectionTypeParams = async (world: World): Promise<PathParams> => ({ id: await createConnectionType(world) });

/**
 * Materialized views read one table, which a source's native fields name (`dataEntityId`, as the
 * data-entity describe fills it): views are made on sources of their own, with columns of the
 * sample PostgreSQL's sales.orders. Two per world: one only its admin may write (views in paths,
 * whose permission is the source's), and one the Users group may write (the POST body names it,
 * so every user of the account may create a view on it).
 */
const ORDER_COLUMNS = [
  { name: "customer_id", type: "integer" },
  { name: "amount", type: "numeric(10,2)" },
  { name: "ordered_on", type: "date" },
];

/** Body builders are synchronous: the ids of the world's view sources once made (placeholders before: a body naming one answers 400). */
const viewSources = new WeakMap<World, { adminOnly?: string; usersMayWrite?: string }>();

function ensureViewSource(world: World, kind: "adminOnly" | "usersMayWrite"): Promise<string> {
  return world.shared(`viewSource:${kind}`, async () => {
    const res = await call("POST", "/api/sources", {
      as: as(world.admin),
      body: {
        name: world.name("ViewSource"),
        description: `view source of ${world.marker}`,
        fields: ORDER_COLUMNS.map((c) => ({ name: c.name, origin: { type: "NATIVE", nativeOrigin: { originalName: c.name, originalType: c.type, dataEntityId: "sales.orders" } } })),
      },
    });
    const id = (await expectStatus("view source", res, 201)).json.id as string;
    if (kind === "usersMayWrite") {
      const granted = await call("PUT", `/api/sources/${id}/permissions`, {
        as: as(world.admin),
        body: { content: [{ principalType: "GROUP", principalId: await usersGroupId(world), permission: "WRITE" }] },
      });
      await expectStatus("view source permissions", granted, 200);
    }
    viewSources.set(world, { ...viewSources.get(world), [kind]: id });
    return id;
  });
}

const viewSourceId = (world: World, kind: "adminOnly" | "usersMayWrite") => viewSources.get(world)?.[kind] ?? `no-${kind}-view-source-yet`;

/** A view on orders: revenue per customer, with a filter and a formula, stored on the world's connection. */
const viewBody = (world: World, sourceId: string) => ({
  name: world.name("View"),
  description: `view of ${world.marker}`,
  definition: {
    type: "AGG",
    sourceId,
    filters: [{ path: { name: "amount" }, operation: "GT", value: 10 }],
    aggregations: [{ type: "TERMS", field: { name: "customer_id" } }],
    metrics: [{ type: "COUNT" }, { type: "SUM", field: { name: "amount" } }, { formulaName: "average", formula: "SUM(amount) / COUNT(*)" }],
  },
  storageSettings: { targetStorage: { connectionId: sharedConnectionId(world), schemas: ["public"], collection: world.name("orders_by_customer") } },
});

async function createView(world: World): Promise<PathParams> {
  const [sourceId] = await Promise.all([ensureViewSource(world, "adminOnly"), ensureSharedConnection(world)]);
  return { id: (await createWithinLimit(world, "materialized view", "/api/materialized-views", viewBody(world, sourceId), 200, "TOO_MANY_MATERIALIZED_VIEWS")).id };
}

/** The world's account, and its users (or administrators) as they are now, for a PUT that changes nothing. */
async function accountMemberParams(world: World, list: "users" | "admins"): Promise<PathParams> {
  const res = await call("GET", `/api/accounts/${world.account.id}/${list}`);
  return { accountId: world.account.id, listed: JSON.stringify((await expectStatus(`account ${list}`, res, 200)).json) };
}
const listedMembers = (params: PathParams) => (params.listed ? JSON.parse(params.listed) : []) as { id: string; name: string }[];

export const FIXTURES: Record<string, FixtureEntry> = {
  "/api/accounts": {
    bodies: { POST: (w) => ({ name: w.name("Account"), senderDisplayName: `sender of ${w.marker}` }) },
  },
  "/api/accounts/{id}": {
    // A disposable account of its own: the world's account is never renamed or deleted.
    params: async (w) => ({ id: (await createAccount(w.name("Account"))).id }),
    bodies: { PUT: (w) => ({ name: w.name("Account") }), PATCH: (w) => ({ senderDisplayName: `sender of ${w.marker}` }) },
  },
  // A disposable account, moved to the shard it is on (a no-op): new accounts alternate over the shards, so the params carry it.
  "/api/accounts/{id}/move": {
    params: async (w) => {
      const { id } = await createAccount(w.name("Account"));
      // Read through the API (its `shard`, shown to the supervisor), so the bench's harness, which has no D1 binding, makes it too.
      const account = await call("GET", `/api/accounts/${id}`);
      return { id, shard: (await expectStatus("account", account, 200)).json.shard };
    },
    // The paper world's params (conformance-document) name no shard: DB, a binding of every deployment.
    bodies: { POST: (_w, p) => ({ shard: p.shard ?? "DB" }) },
  },
  // A PUT must name the account's users (admins) as they are: the params carry the list read when they are made.
  "/api/accounts/{accountId}/users": {
    params: (w) => accountMemberParams(w, "users"),
    bodies: { PUT: (_w, p) => listedMembers(p) },
  },
  "/api/accounts/{accountId}/admins": {
    params: (w) => accountMemberParams(w, "admins"),
    bodies: { PUT: (_w, p) => listedMembers(p) },
  },
  // The world's account, full of the objects the other fixtures made: the bundle has something of every kind.
  "/api/accounts/{accountId}/export": { params: async (w) => ({ accountId: w.account.id }) },
  // A bundle that adds one group to the world's account (no prune: the rest of the account stays as it is).
  "/api/accounts/{accountId}/import": {
    params: async (w) => ({ accountId: w.account.id }),
    bodies: {
      POST: (w) => ({
        formatVersion: 1,
        service: "analytics-metadata-admin-api",
        account: { name: w.name("Account") },
        groups: [{ name: w.name("Imported"), privileges: [], builtIn: false }],
        users: [],
        connections: [],
        calendars: [],
        sources: [],
        jsonDatasets: [],
        folders: [],
        materializedViews: [],
      }),
    },
  },
  "/api/accounts/name/{name}": {
    params: async (w) => ({ name: (await createAccount(w.name("Account"))).name }),
  },
  "/api/users": {
    bodies: { POST: (w) => ({ name: w.name("user"), password: PASSWORD, fullName: `user of ${w.marker}`, accountId: w.account.id }) },
  },
  "/api/users/{id}": {
    params: async (w) => ({ id: (await createUser(w.account.id, { name: w.name("user") })).id }),
    bodies: { PUT: (w) => ({ name: w.name("user"), fullName: `user of ${w.marker}` }), PATCH: (w) => ({ fullName: `user of ${w.marker}`, email: null }) },
  },
  "/api/groups": {
    bodies: { POST: (w) => ({ name: w.name("group"), description: `group of ${w.marker}`, accountId: w.account.id }) },
  },
  "/api/groups/{id}": {
    params: async (w) => ({ id: (await createGroup(w.account.id, w.name("group"))).id }),
    bodies: { PUT: (w) => ({ name: w.name("group"), description: `group of ${w.marker}` }), PATCH: (w) => ({ description: `group of ${w.marker}` }) },
  },
  "/api/quota": {
    bodies: { PUT: (w) => ({ accountId: w.account.id, quotas: [{ type: "SOURCE", limit: 10_000 }, { type: "CONNECTION", limit: 10_000 }] }) },
  },
  "/api/quota/{accountId}": { params: ensureQuota },
  "/api/quota/refresh/{accountId}": { params: ensureQuota },
  "/api/sources": {
    bodies: { POST: (w) => ({ name: w.name("Source"), description: `source of ${w.marker}`, fields: [nativeField("amount", "DECIMAL")] }) },
    references: {
      // Inline fields must be NATIVE (a 400 either way), but the schema lets a derived one name a calendar.
      "fields[].origin.derivedOrigin.calendarId": (w, _p, value) => ({
        name: w.name("Source"),
        fields: [{ name: "doubled", origin: { type: "DERIVED", derivedOrigin: { expression: "1 + 1", calendarId: value } } }],
      }),
      // The reference product's `storage` alias of connectionId and fields (README, Aliases).
      "storage.dataEntities[].singleCollection.connectionId": storageNaming.connectionId,
      "storage.dataEntities[].nativeFields[].origin.derivedOrigin.calendarId": storageNaming.calendarId,
    },
  },
  "/api/sources/{sourceId}": {
    params: sourceParams,
    bodies: {
      PATCH: (w) => ({ description: `changed source of ${w.marker}` }),
      PUT: (w) => ({ name: w.name("Source"), description: `replaced source of ${w.marker}`, enabled: true }),
    },
    references: {
      connectionId: (w, _p, value) => ({ name: w.name("Source"), connectionId: value }),
      "storage.dataEntities[].singleCollection.connectionId": storageNaming.connectionId,
      // Refused on PUT whatever they name (fields change through /fields): the matrix sees a 400.
      "storage.dataEntities[].nativeFields[].origin.derivedOrigin.calendarId": storageNaming.calendarId,
    },
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
  "/api/sources/export": {
    // No path parameters: this makes the shared source the query names exist first.
    params: async (w) => {
      sharedSourceIds.set(w, await sharedSource(w));
      return {};
    },
    query: { GET: (w) => ({ ids: sharedSourceIds.get(w) ?? "no-shared-source-yet" }) },
  },
  "/api/sources/import": {
    bodies: { POST: (w) => importBundle(w) },
    references: {
      // Ids of the bundle are the exporting account's: a source names a connection of the bundle only.
      "sources[].definition.connectionId": (w, _p, value) => importBundle(w, { connectionId: value }),
      "connections[].connectionTypeId": (w, _p, value) => ({
        ...importBundle(w),
        connections: [{ id: "bundled-connection", name: w.name("Connection"), connectionTypeId: value, allParameters: [] }],
      }),
      "sources[].fields[].origin.derivedOrigin.calendarId": (w, _p, value) =>
        importBundle(w, {}, { name: "taxed", origin: { type: "DERIVED", derivedOrigin: { expression: "price * 1.2", calendarId: value } } }),
    },
  },
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
  "/api/calendars": {
    bodies: { POST: (w) => ({ type: "MONTH_SHIFT", name: w.name("Calendar"), monthShift: -3 }) },
  },
  "/api/calendars/{calendarId}": {
    params: calendarParams,
    bodies: { PUT: fiscalCalendar, PATCH: (w) => ({ name: w.name("Calendar"), fiscal445: { leapWeekInMonth: 3 } }) },
  },
  "/api/calendars/{calendarId}/periods": {
    params: calendarParams,
    query: { GET: () => ({ from: "2026-01-01", to: "2027-12-31", type: "MONTH" }) },
  },
  "/api/calendars/{calendarId}/periods/at": {
    params: calendarParams,
    query: { GET: () => ({ date: "2027-03-15" }) },
  },
  "/api/json-datasets": {
    bodies: { POST: jsonDataset },
  },
  "/api/audit-events": {},
  "/api/audit-events/{id}": {
    // The newest event of the world's account (its creation wrote some).
    params: async (w) => {
      const res = await call("GET", `/api/audit-events?accountId=${w.account.id}&maxResults=1`);
      return { id: (await expectStatus("audit events", res, 200)).json.content[0].id as string };
    },
  },
  "/api/webhooks": { bodies: { POST: webhookBody } },
  "/api/webhooks/{id}": {
    params: webhookParams,
    bodies: { PATCH: (w) => ({ description: `webhook of ${w.marker}`, events: ["source.*"] }) },
  },
  "/api/webhooks/{id}/secret": { params: webhookParams },
  "/api/webhooks/{id}/test": { params: webhookParams },
  "/api/webhooks/{id}/deliveries": { params: webhookParams },
  "/api/webhooks/{id}/deliveries/{deliveryId}/retry": { params: failedDeliveryParams },
  "/api/json-datasets/{id}": {
    params: createJsonDataset,
    bodies: { PUT: jsonDataset, PATCH: (w) => ({ description: `dataset of ${w.marker}`, data: { patchedBy: w.marker } }) },
  },
  "/api/trusted-access/clients": {
    bodies: { POST: (w) => ({ client_name: w.name("client"), access_token_validity_seconds: 3600, account_ids: [w.account.id] }) },
  },
  "/api/trusted-access/clients/{id}": {
    params: trustedClientParams,
    bodies: { PATCH: (w) => ({ client_name: w.name("client"), access_token_validity_seconds: 7200 }) },
  },
  "/api/trusted-access/clients/{id}/secret": {
    params: trustedClientParams,
    bodies: { POST: () => ({ grace_period_seconds: 60 }) },
  },
  "/api/trusted-access/push/tokens": {
    bodies: {
      POST: (w) => ({ username: w.name("pushed"), account: w.account.name, fullname: `pushed user of ${w.marker}`, groups: ["Users"], attributes: [{ key: "region", values: ["emea"] }] }),
    },
  },
  "/api/trusted-access/pull/tokens": {
    bodies: { POST: (w) => ({ username: w.admin.username, account: w.account.name }) },
  },
  "/api/trusted-access/tokens/{tokenId}": { params: tokenParams },
  "/api/folders": {
    bodies: { POST: (w) => ({ folder_name: w.name("Folder"), description: `folder of ${w.marker}`, content_type: "DASHBOARDS" }) },
    references: { parent_id: (w, _p, value) => ({ folder_name: w.name("Folder"), parent_id: value }) },
  },
  "/api/folders/tree-state": {
    bodies: { PUT: () => ({ folder_ids: [] }) },
    references: { folder_ids: (_w, _p, value) => ({ folder_ids: [value] }) },
  },
  "/api/folders/{id}": {
    params: folderParams,
    bodies: { PATCH: (w) => ({ description: `changed folder of ${w.marker}` }) },
    references: { parent_id: (_w, _p, value) => ({ parent_id: value }) },
  },
  "/api/folders/{id}/children": { params: folderParams },
  "/api/folders/{id}/contents": { params: folderParams },
  "/api/folders/{id}/path": { params: folderParams },
  "/api/folders/{id}/permissions": {
    params: folderParams,
    bodies: { PUT: (w) => ({ content: [{ principalType: "USER", principalId: w.admin.id, permissions: ["READ", "WRITE"] }] }) },
    references: { "content[].principalId": (_w, _p, value) => ({ content: [{ principalType: "USER", principalId: value, permissions: ["READ"] }] }) },
  },
  "/api/folders/{id}/items/{itemType}/{itemId}": {
    params: filedItemParams,
    bodies: { PUT: (w) => ({ name: `dashboard of ${w.marker}` }) },
  },
  "/api/connection/types": {
    bodies: { POST: connectionTypeBody },
  },
  "/api/connection/types/{id}": {
    params: connectionTypeParams,
    bodies: {
      PUT: connectionTypeBody,
      PATCH: (w) => ({ enabled: false, disabledMessage: `retired by ${w.marker}` }),
    },
  },
  "/api/connection/types/{id}/accounts": {
    params: connectionTypeParams,
    bodies: { PUT: (w) => [w.account.id] },
  },
  "/api/connections": {
    bodies: { POST: connectionBody },
  },
  "/api/connections/validate": {
    bodies: { POST: connectionBody },
  },
  "/api/connections/{connectionId}": {
    params: async (w) => ({ connectionId: await createConnection(w) }),
    bodies: { PUT: connectionBody, PATCH: (w) => ({ name: w.name("Connection") }) },
    upsertsById: ["PUT"],
  },
  "/api/connections/{connectionId}/schema": { params: sharedConnectionParams },
  "/api/connections/{connectionId}/test": { params: sharedConnectionParams },
  "/api/connections/{connectionId}/schema/{schemaName}/describe": {
    params: async (w) => ({ ...(await sharedConnectionParams(w)), schemaName: "sales" }),
  },
  "/api/connections/{connectionId}/preview": {
    params: sharedConnectionParams,
    bodies: { POST: () => ({ schema: "sales", table: "customers", limit: 5 }) },
  },
  "/api/sources/data-entities/describe": {
    // No path parameters: this makes the connection the body names exist first.
    params: async (w) => {
      await ensureSharedConnection(w);
      return {};
    },
    bodies: { POST: (w) => ({ connectionId: sharedConnectionId(w), schema: "sales", table: "customers" }) },
    references: {
      "singleCollection.connectionId": (_w, _p, value) => ({ type: "SINGLE_COLLECTION", singleCollection: { connectionId: value, schema: "sales", collection: "customers" } }),
    },
  },
  "/api/materialized-views": {
    // No path parameters: this makes the source and the connection the body names exist first.
    params: async (w) => {
      await Promise.all([ensureViewSource(w, "usersMayWrite"), ensureSharedConnection(w)]);
      return {};
    },
    bodies: { POST: (w) => viewBody(w, viewSourceId(w, "usersMayWrite")) },
  },
  "/api/materialized-views/{id}": {
    params: createView,
    bodies: {
      PUT: (w) => viewBody(w, viewSourceId(w, "adminOnly")),
      PATCH: (w) => ({ description: `changed view of ${w.marker}`, enabled: false }),
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
  account_ids: { collection: "/api/accounts", value: async (w) => w.account.id },
  principalId: { collection: "/api/users", value: (w) => w.shared("user", async () => (await createUser(w.account.id, { name: w.name("user") })).id) },
  sourceId: { collection: "/api/sources", value: (w) => sharedSource(w) },
  userId: { collection: "/api/users", value: (w) => w.shared("user", async () => (await createUser(w.account.id, { name: w.name("user") })).id) },
  groupId: { collection: "/api/groups", value: (w) => w.shared("group", async () => (await createGroup(w.account.id, w.name("group"))).id) },
  connectionId: { collection: "/api/connections", value: (w) => ensureSharedConnection(w) },
  connectionTypeId: { collection: "/api/connection/types", value: (w) => w.shared("connectionType", () => createConnectionType(w)) },
  folderId: { collection: "/api/folders", value: (w) => sharedFolder(w) },
  connectorId: { notAReference: "names a connector of the service (postgresql, http-json, ...), not an object of an account" },
  calendarId: { collection: "/api/calendars", value: (w) => w.shared("calendar", () => createCalendar(w)) },
  parent_id: { collection: "/api/folders", value: (w) => sharedFolder(w) },
  folder_ids: { collection: "/api/folders", value: (w) => sharedFolder(w) },
  dataEntityId: { notAReference: "names a table of the source's remote database, not an object of this API" },
  itemId: { notAReference: "a folder item of an import bundle: a dashboard or report kept outside this service, known by its own id (folders are not imported yet)" },
  // Read-only members a PUT of a source takes back as GET answered them, and does not use.
  ownerUserId: { notAReference: "read-only on PUT /api/sources/{sourceId}: accepted and not used" },
  createdByUserID: { notAReference: "read-only audit member: accepted and not used" },
  lastModifiedByUserID: { notAReference: "read-only audit member: accepted and not used" },
  targetId: { notAReference: "an audit filter: the id of any kind of object, compared as text; naming another account's finds nothing" },
  requestId: { notAReference: "an audit filter: a request's X-Request-Id, not an object" },
};

/** Member names that look like references to other objects. */
export const REFERENCE_NAME = /^(?!id$).*(?:Id|Ids|ID|_id|_ids)$/;

/** Every folder request carries the preview header. */
const PREVIEW = { "X-Enable-Preview": "true" };

/**
 * A library root of the world's account, made by its admin, that every user of the account may
 * READ (the built-in Users group holds READ): the matrices then see 403s for WRITE, CREATE,
 * DELETE and ADMINISTER, not only 404s.
 */
async function createFolder(world: World): Promise<string> {
  const made = await call("POST", "/api/folders", {
    as: as(world.admin),
    headers: PREVIEW,
    body: { folder_name: world.name("Folder"), description: `folder of ${world.marker}`, content_type: "DASHBOARDS" },
  });
  const id = (await expectStatus("folder", made, 201)).json.id as string;
  const usersGroup = await usersGroupId(world);
  const granted = await call("PUT", `/api/folders/${id}/permissions`, {
    as: as(world.admin),
    headers: PREVIEW,
    body: { content: [{ principalType: "GROUP", principalId: usersGroup, permissions: ["READ"] }] },
  });
  await expectStatus("folder permissions", granted, 200);
  return id;
}

/** The id of the account's built-in Users group, which every user caller of the matrices is in. */
function usersGroupId(world: World): Promise<string> {
  return world.shared("usersGroup", async () => {
    const res = await call("GET", `/api/groups?accountId=${world.account.id}&maxResults=1000`);
    return (await expectStatus("groups", res, 200)).json.content.find((g: { name: string }) => g.name === "Users").id as string;
  });
}

/** The world's folder that body members name (parent_id, folder_ids): never deleted by the harness. */
function sharedFolder(world: World): Promise<string> {
  return world.shared("folder", () => createFolder(world));
}

async function folderParams(world: World): Promise<PathParams> {
  return { id: await createFolder(world) };
}

/** A dashboard filed in a fresh folder. */
async function filedItemParams(world: World): Promise<PathParams> {
  const id = await createFolder(world);
  const itemId = world.name("dashboard");
  const res = await call("PUT", `/api/folders/${id}/items/DASHBOARD/${itemId}`, { as: as(world.admin), headers: PREVIEW, body: { name: `dashboard of ${world.marker}` } });
  await expectStatus("filed item", res, 201);
  return { id, itemType: "DASHBOARD", itemId };
}
