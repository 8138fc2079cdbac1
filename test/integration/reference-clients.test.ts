import { describe, expect, it } from "vitest";
import { basic, call, PASSWORD, SUPERVISOR, unique, type CallResult } from "./helpers";
import { connectionBody, createConnection } from "./connection-helpers";

/**
 * Replays of real clients written for the reference product, with their exact requests: methods,
 * paths behind the context path they are configured with, headers and bodies (README, "Clients
 * of the reference product"). Each runs against the real Worker (src/index.ts) with CONTEXT_PATH
 * set, and every answer is checked against the document that Worker serves there (call()).
 * Every step must answer the status the client expects: both treat any status >= 400 as failure.
 */

/**
 * The public Python client isw-da/composer-mcp (src/composer_mcp/client.py): an httpx client with
 * base URL {host}{context path}, Basic auth, and Accept and Content-Type both set to Composer's
 * vendor type on EVERY request (GET and DELETE included); httpx adds its own Accept-Encoding and
 * User-Agent. Paths are normalised to /api/...; bodies are sent with `json=` (compact JSON).
 */
const COMPOSER_CONTEXT = "/composer";
const COMPOSER_JSON = "application/vnd.composer.v3+json";

function composerClient(username: string, password: string) {
  const headers = {
    Accept: COMPOSER_JSON,
    "Content-Type": COMPOSER_JSON,
    "Accept-Encoding": "gzip, deflate",
    "User-Agent": "python-httpx/0.28.1",
    Authorization: basic(username, password),
  };
  const request = async (method: string, path: string, json?: unknown): Promise<CallResult> => {
    const res = await call(method, `${COMPOSER_CONTEXT}${path}`, { as: null, headers, body: json, contextPath: COMPOSER_CONTEXT });
    // The client reads every answer as JSON in the type it asked for; an empty body is None.
    if (res.text !== "") expect(res.headers.get("Content-Type"), `${method} ${path}`).toBe(COMPOSER_JSON);
    return res;
  };
  return {
    get: (path: string) => request("GET", path),
    post: (path: string, json: unknown) => request("POST", path, json),
    put: (path: string, json: unknown) => request("PUT", path, json),
    delete: (path: string) => request("DELETE", path),
  };
}

/**
 * The public Node.js tool Zoomdata/admin-sample-provisioner (provisioner.js, utils.js, config.js,
 * app.js): request-promise with `json: true`, baseUrl https://{server}/zoomdata/api/, the
 * supervisor's Basic credentials, and these headers on every request.
 */
const ZOOMDATA_CONTEXT = "/zoomdata";
const ZOOMDATA_HEADERS = {
  accept: "application/vnd.zoomdata.v2+json,application/vnd.zoomdata+json",
  "x-zoomdata-media-type": "application/vnd.zoomdata.v1+json",
  "content-type": "application/vnd.zoomdata+json",
  "cache-control": "no-cache",
  authorization: basic(SUPERVISOR.username, SUPERVISOR.password),
};

function zoomdataRequest(method: string, url: string, body?: unknown): Promise<CallResult> {
  return call(method, `${ZOOMDATA_CONTEXT}/api/${url}`, { as: null, headers: ZOOMDATA_HEADERS, body, contextPath: ZOOMDATA_CONTEXT });
}

/** A status the client takes as success (httpx's caller and request-promise both reject >= 400), and the one expected. */
function expectStep(res: CallResult, status: number, step: string) {
  expect(res.status, `${step}: ${res.text.slice(0, 300)}`).toBe(status);
}

describe("the Composer client (isw-da/composer-mcp) behind /composer", () => {
  it("creates an account and its admin, reads the user, creates a source and a field, lists them, upserts and deletes a custom metric", async () => {
    const supervisor = composerClient(SUPERVISOR.username, SUPERVISOR.password);

    // tools/accounts.py create_account: the reference's AccountUserResource, {account: {name, disabled}, users: []}.
    const accountName = unique("Composer Tenant");
    const account = await supervisor.post("/api/accounts", { account: { name: accountName, disabled: false }, users: [] });
    expectStep(account, 201, "create_account");
    expect(account.json).toMatchObject({ name: accountName, disabled: false });

    // Its administrator, through the client's generic post: the reference's UserResource members (fullname, accountId) plus the group.
    const adminName = unique("composer-admin");
    const admin = await supervisor.post("/api/users", {
      name: adminName,
      password: PASSWORD,
      fullname: "Composer Admin",
      email: "admin@composer.example",
      accountId: account.json.id,
      groups: ["Administrators"],
    });
    expectStep(admin, 201, "create the admin");
    expect(admin.json).toMatchObject({ name: adminName, fullName: "Composer Admin", accountId: account.json.id, groups: ["Administrators"] });

    // client.py _ensure_running_user_id and tools/discovery.py: GET /api/user first, reading `id` (or `userId`) and `name`.
    const client = composerClient(adminName, PASSWORD);
    const me = await client.get("/api/user");
    expectStep(me, 200, "GET /api/user");
    expect(me.json).toMatchObject({ id: admin.json.id, name: adminName, account: { id: account.json.id, name: accountName }, signedInWith: "basic" });
    expect(me.json.activeRoles).toContain("ROLE_CREATE_SOURCES");

    // A connection of the account for the source to read. Not through the client: its create_connection
    // sends the reference's `type: "EDC2"`, which no connection type here has (README, Clients of the reference product).
    const connection = await createConnection({ id: admin.json.id, username: adminName, password: PASSWORD, accountId: account.json.id }, connectionBody(unique("Warehouse")));

    // tools/sources.py create_source_v2: {name, description, storage: {dataEntities: [...], joins: []}}, native fields made by to_native_field.
    const sourceName = unique("Orders");
    const source = await client.post("/api/sources", {
      name: sourceName,
      description: "Orders of the sample warehouse",
      storage: {
        dataEntities: [
          {
            id: "orders",
            name: "orders",
            type: "SINGLE_COLLECTION",
            singleCollection: { connectionId: connection.id, schema: "sales", collection: "orders" },
            nativeFields: [
              { origin: { type: "NATIVE", nativeOrigin: { originalName: "customer_id", originalType: "INTEGER", dataEntityId: "orders" } }, name: "customer_id", label: "Customer", dataType: "INTEGER", visible: true },
            ],
          },
        ],
        joins: [],
      },
    });
    expectStep(source, 201, "create_source_v2");
    expect(source.json).toMatchObject({ name: sourceName, connectionId: connection.id });
    const sourceId: string = source.json.id;

    // A field: to_native_field's SourceFieldResource, posted to the source's fields.
    const field = await client.post(`/api/sources/${sourceId}/fields`, {
      origin: { type: "NATIVE", nativeOrigin: { originalName: "amount", originalType: "NUMBER", dataEntityId: "orders" } },
      name: "amount",
      label: "Amount",
      dataType: "NUMBER",
      visible: true,
    });
    expectStep(field, 201, "create a field");
    expect(field.json).toMatchObject({ name: "amount", dataType: "NUMBER" });

    // list_sources and get_source_fields: GET, unwrapping {content}.
    const sources = await client.get("/api/sources");
    expectStep(sources, 200, "list_sources");
    expect(sources.json.content.map((s: { id: string }) => s.id)).toContain(sourceId);
    const fields = await client.get(`/api/sources/${sourceId}/fields`);
    expectStep(fields, 200, "get_source_fields");
    expect(fields.json.content.map((f: { name: string }) => f.name).sort()).toEqual(["amount", "customer_id"]);

    // Custom metrics: the client's body (name, label, expression, visible, numberFormat preset EUR), upserted with PUT:
    // created (201), then replaced (200); add_custom_metric's POST creates another; then list and delete.
    const eur = { type: "CURRENCY", currencyCode: "EUR", decimals: 2, separator: true, standardUnit: "NONE" };
    const metric = { name: "revenue_per_customer", label: "Revenue per customer", expression: "CASE WHEN COUNTD(customer_id) > 0 THEN SUM(amount) / COUNTD(customer_id) ELSE 0 END", visible: true, numberFormat: eur };
    expectStep(await client.put(`/api/sources/${sourceId}/custom-metrics/revenue_per_customer`, metric), 201, "upsert a custom metric (create)");
    const replaced = await client.put(`/api/sources/${sourceId}/custom-metrics/revenue_per_customer`, { ...metric, label: "Revenue / customer" });
    expectStep(replaced, 200, "upsert a custom metric (update)");
    expect(replaced.json).toMatchObject({ label: "Revenue / customer", dataType: "NUMBER", numberFormat: eur });
    expectStep(await client.post(`/api/sources/${sourceId}/custom-metrics`, { name: "orders_count", label: "Orders", expression: "COUNT(*)", visible: true }), 201, "add_custom_metric");
    const metrics = await client.get(`/api/sources/${sourceId}/custom-metrics`);
    expectStep(metrics, 200, "list_custom_metrics");
    expect(metrics.json.content.map((m: { name: string }) => m.name).sort()).toEqual(["Volume", "orders_count", "revenue_per_customer"]);
    const deleted = await client.delete(`/api/sources/${sourceId}/custom-metrics/revenue_per_customer`);
    expectStep(deleted, 204, "delete_custom_metric");
    expect(deleted.text).toBe("");
    expectStep(await client.get(`/api/sources/${sourceId}/custom-metrics/revenue_per_customer`), 404, "the deleted metric is gone");
  });
});

describe("the Composer client's calls of the reference's own endpoints (issue 17), behind /composer", () => {
  it("describes a table, creates a source from it, replaces it, tests the connection, manages the account's users and admins, pushes a token", async () => {
    const supervisor = composerClient(SUPERVISOR.username, SUPERVISOR.password);
    const accountName = unique("Composer Tenant");
    const account = await supervisor.post("/api/accounts", { account: { name: accountName, disabled: false }, users: [] });
    expectStep(account, 201, "create_account");
    const accountId: string = account.json.id;
    const adminName = unique("composer-admin");
    const admin = await supervisor.post("/api/users", { name: adminName, password: PASSWORD, fullname: "Composer Admin", accountId, groups: ["Administrators"] });
    expectStep(admin, 201, "create the admin");
    const client = composerClient(adminName, PASSWORD);
    const connection = await createConnection({ id: admin.json.id, username: adminName, password: PASSWORD, accountId }, connectionBody(unique("Warehouse")));

    // tools/connections.py test_connection: POST /connections/{id}/test with {}.
    const tested = await client.post(`/api/connections/${connection.id}/test`, {});
    expectStep(tested, 200, "test_connection");
    expect(tested.json).toMatchObject({ connected: true });

    // tools/sources.py describe_entity: the SINGLE_COLLECTION data entity; it reads content (or nativeFields).
    const described = await client.post("/api/sources/data-entities/describe", {
      type: "SINGLE_COLLECTION",
      singleCollection: { connectionId: connection.id, schema: "sales", collection: "orders" },
    });
    expectStep(described, 200, "describe_entity");
    expect(described.json.content.length).toBeGreaterThan(0);

    // create_source: storage naming the table, no nativeFields: the fields come from the table.
    const source = await client.post("/api/sources", {
      name: unique("Orders"),
      description: "",
      storage: { dataEntities: [{ id: "orders", name: "orders", type: "SINGLE_COLLECTION", singleCollection: { connectionId: connection.id, schema: "sales", collection: "orders" } }], joins: [] },
    });
    expectStep(source, 201, "create_source");
    const sourceId: string = source.json.id;
    const fields = await client.get(`/api/sources/${sourceId}/fields`);
    expect(fields.json.content.map((f: { name: string }) => f.name).sort()).toEqual(described.json.content.map((f: { name: string }) => f.name).sort());

    // clear_forced_filters: GET the source, set forcedFilters to [], PUT it back whole; then update_source with a new description.
    const read = await client.get(`/api/sources/${sourceId}`);
    expectStep(await client.put(`/api/sources/${sourceId}`, { ...read.json, forcedFilters: [] }), 200, "clear_forced_filters");
    const updated = await client.put(`/api/sources/${sourceId}`, { ...read.json, description: "Orders, replaced" });
    expectStep(updated, 200, "update_source");
    expect(updated.json).toMatchObject({ id: sourceId, description: "Orders, replaced", connectionId: connection.id });

    // tools/accounts.py: read the users, add one (the whole list written back), promote it (the whole admin list).
    const users = await supervisor.get(`/api/accounts/${accountId}/users`);
    expectStep(users, 200, "get_account_users");
    expect(users.json).toEqual([{ id: admin.json.id, name: adminName }]);
    const analyst = await supervisor.post("/api/users", { name: unique("composer-analyst"), password: PASSWORD, accountId });
    expectStep(analyst, 201, "create a user");
    const members = [...users.json, { id: analyst.json.id, name: analyst.json.name }];
    expectStep(await supervisor.put(`/api/accounts/${accountId}/users`, members), 200, "add_users_to_account");
    const admins = await client.get(`/api/accounts/${accountId}/admins`);
    expectStep(admins, 200, "get_account_admins");
    const promoted = await client.put(`/api/accounts/${accountId}/admins`, [...admins.json, { id: analyst.json.id, name: analyst.json.name }]);
    expectStep(promoted, 200, "add_admins_to_account");
    expect(promoted.json.map((u: { id: string }) => u.id).sort()).toEqual([admin.json.id, analyst.json.id].sort());

    // tools/tokens.py mint_push_token: attributes as the map {key: [value]}, with the trusted client's Basic credentials.
    const registered = await call("POST", "/api/trusted-access/clients", { body: { client_name: unique("composer-embed"), access_token_validity_seconds: 600, account_ids: [accountId] } });
    expect(registered.status, registered.text).toBe(201);
    const trusted = composerClient(registered.json.client_id, registered.json.client_secret);
    const pushed = await trusted.post("/api/trusted-access/push/tokens", { username: unique("viewer"), account: accountName, groups: ["Users"], attributes: { partner_id: ["P_007"] } });
    expectStep(pushed, 200, "mint_push_token");
    expect(pushed.json.token_type).toBe("bearer");
  });
});

describe("the Zoomdata provisioner (Zoomdata/admin-sample-provisioner) behind /zoomdata", () => {
  it("creates an account, reads it by name and deletes it by the id its links give", async () => {
    // createAccount: POST accounts with {name}; the tool prints response.name.
    const name = unique("Training");
    const created = await zoomdataRequest("POST", "accounts", { name });
    expectStep(created, 201, "createAccount");
    expect(created.headers.get("Content-Type")).toBe("application/vnd.zoomdata+json");
    expect(created.json.name).toBe(name);

    // getAccountIdByName: GET accounts/name/{name}, the id read from response.links[0].href.split('/').pop().
    // (The tool's Object.assign also leaves the create's body in its shared options, so the real GET carries
    // {name} as a body: a fetch Request cannot, so it is left out here; the DELETE below carries it.)
    const byName = await zoomdataRequest("GET", `accounts/name/${encodeURIComponent(name)}`);
    expectStep(byName, 200, "getAccountIdByName");
    expect(byName.headers.get("Content-Type")).toBe("application/vnd.zoomdata+json");
    const accountId = (byName.json.links[0].href as string).split("/").pop();
    expect(accountId).toBe(created.json.id);
    expect(byName.json.links[0].href).toBe(`${ZOOMDATA_CONTEXT}/api/accounts/${accountId}`);

    // deleteAccount: DELETE accounts/{id}, still carrying the create's {name} body in the vendor type.
    const deleted = await zoomdataRequest("DELETE", `accounts/${accountId}`, { name });
    expectStep(deleted, 204, "deleteAccount");
    expectStep(await zoomdataRequest("GET", `accounts/name/${encodeURIComponent(name)}`), 404, "the account is gone");
  });
});
