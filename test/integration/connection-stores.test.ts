// The data stores behind connections, reached through the API: E15 (schemas), describe, preview,
// and a source built from a real table in two calls. Real PostgreSQL and HTTP servers (the global
// setup) and the account's own JSON datasets; nothing is mocked.
import { beforeAll, describe, expect, it } from "vitest";
import { suggestedHttpStatus } from "../../src/connectors";
import { ERROR_CODES } from "../../src/lib/errors";
import { ERROR_CODE_OF_KIND } from "../../src/routes/connections/data-store";
import { FIXTURE_BEARER_TOKEN, FIXTURE_RECORDS, HOSTILE_TABLE_NAME } from "../global-setup/fixture-data.mjs";
import { as, call, createAccount, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import { callWithVars, connectionBody, connectionWorld, createConnection, postgresParameters, roundTrips, servers, superuserParameters } from "./connection-helpers";

let manager: TestUser;
let member: TestUser;
let creator: TestUser;
let warehouse: { id: string; name: string };

beforeAll(async () => {
  ({ manager, member, creator, warehouse } = await connectionWorld());
});

describe("E15: the schemas of the data store", () => {
  it("lists what the connection's user may use, for every user of the account, reading D1 once", async () => {
    await call("GET", "/api/connections?name=none", { as: as(member) }); // signs the member in: its credential is cached from now on
    const res = await call("GET", `/api/connections/${warehouse.id}/schema`, { as: as(member) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ content: ["hr", "public", "sales"] });
    expect(roundTrips(res)).toBe(1);
    const asSuperuser = await createConnection(manager, connectionBody(unique("Super"), { allParameters: superuserParameters() }));
    expect((await call("GET", `/api/connections/${asSuperuser.id}/schema`, { as: as(member) })).json.content).toEqual(["hr", "public", "restricted", "sales"]);
  });
});

describe("describe a schema", () => {
  it("answers its tables and views with their columns and native types", async () => {
    const res = await call("GET", `/api/connections/${warehouse.id}/schema/sales/describe`, { as: as(member) });
    expect(res.status).toBe(200);
    expect(res.json.schemaName).toBe("sales");
    expect(res.json.collections.map((c: { name: string; kind: string }) => [c.name, c.kind])).toEqual([
      ["big_orders", "VIEW"],
      ["customers", "TABLE"],
      [HOSTILE_TABLE_NAME, "TABLE"],
      ["orders", "TABLE"],
      ["slow_view", "VIEW"],
    ]);
    expect(res.json.collections[1].columns).toEqual([
      { name: "id", type: "integer", nullable: false },
      { name: "name", type: "text", nullable: false },
      { name: "email", type: "character varying(200)", nullable: true },
      { name: "vip", type: "boolean", nullable: false },
      { name: "balance", type: "numeric(12,2)", nullable: true },
      { name: "created_at", type: "timestamp with time zone", nullable: false },
    ]);
  });

  it("a schema the store does not have, or the user may not use, is a 404 DATA_STORE_NOT_FOUND saying so", async () => {
    for (const schemaName of ["nope", "restricted"]) {
      const res = await call("GET", `/api/connections/${warehouse.id}/schema/${schemaName}/describe`, { as: as(member) });
      expectError(res, 404, "DATA_STORE_NOT_FOUND");
      expect(res.json.message).toBe(`Schema "${schemaName}" does not exist, or user "reader" may not use it.`);
    }
  });
});

describe("preview", () => {
  it("answers the first rows as JSON values, at most `limit`", async () => {
    const res = await call("POST", `/api/connections/${warehouse.id}/preview`, { as: as(manager), body: { schema: "sales", table: "customers", limit: 2 } });
    expect(res.status).toBe(200);
    expect(res.json.columns.map((c: { name: string }) => c.name)).toEqual(["id", "name", "email", "vip", "balance", "created_at"]);
    expect(res.json.rows).toEqual([
      [1, "Ada", "ada@example.com", true, "1200.50", "2024-01-15 10:00:00+00"],
      [2, "Brendan", null, false, "0.00", "2024-02-01 08:30:00+00"],
    ]);
    const orders = await call("POST", `/api/connections/${warehouse.id}/preview`, { as: as(manager), body: { schema: "sales", table: "orders", limit: 1000 } });
    expect(orders.json.rows).toHaveLength(1000);
    const hostile = await call("POST", `/api/connections/${warehouse.id}/preview`, { as: as(manager), body: { schema: "sales", table: HOSTILE_TABLE_NAME } });
    expect(hostile.json.rows).toEqual([
      ["still here", 1],
      ["and here", 2],
    ]);
  });

  it("refuses more than 1000 rows (400), an unknown table (404), a caller without ROLE_MANAGE_CONNECTIONS (403)", async () => {
    const path = `/api/connections/${warehouse.id}/preview`;
    expectError(await call("POST", path, { as: as(manager), body: { schema: "sales", table: "orders", limit: 1001 } }), 400, "VALIDATION_FAILED", ["body.limit"]);
    const unknown = await call("POST", path, { as: as(manager), body: { schema: "sales", table: 'customers"; DROP TABLE sales.orders; --' } });
    expectError(unknown, 404, "DATA_STORE_NOT_FOUND");
    expectError(await call("POST", path, { as: as(member), body: { schema: "sales", table: "customers" } }), 403, "FORBIDDEN");
    expect((await call("POST", path, { as: as(manager), body: { schema: "sales", table: "orders", limit: 1 } })).json.rows).toHaveLength(1);
  });
});

describe("failures of the data store are documented 4xx with clear messages", () => {
  it("each connector failure has its errorCode, whose status is the one the connector layer suggests", () => {
    for (const [kind, code] of Object.entries(ERROR_CODE_OF_KIND)) expect(ERROR_CODES[code].status, kind).toBe(suggestedHttpStatus[kind as keyof typeof suggestedHttpStatus]);
  });

  it("wrong password: 422 DATA_STORE_AUTH_FAILED; server down: 422 DATA_STORE_UNREACHABLE; time-out: 422 DATA_STORE_TIMEOUT", async () => {
    const wrong = await createConnection(manager, connectionBody(unique("Wrong"), { allParameters: postgresParameters({ password: "Wr0ng-Passw0rd-!" }) }));
    const failed = await call("GET", `/api/connections/${wrong.id}/schema`, { as: as(member) });
    expectError(failed, 422, "DATA_STORE_AUTH_FAILED");
    expect(failed.json.message).toBe('Password authentication failed for user "reader"');
    expect(failed.text).not.toContain("Wr0ng-Passw0rd-!");

    const down = await createConnection(manager, connectionBody(unique("Down"), { allParameters: postgresParameters({ port: String(servers.closedPort) }) }));
    const unreachable = await call("GET", `/api/connections/${down.id}/schema`, { as: as(member) });
    expectError(unreachable, 422, "DATA_STORE_UNREACHABLE");
    expect(unreachable.json.message).toContain(`Could not connect to 127.0.0.1:${servers.closedPort}`);

    const silent = await createConnection(manager, connectionBody(unique("Silent"), { allParameters: postgresParameters({ port: String(servers.blackHolePort) }) }));
    const timedOut = await callWithVars({ CONNECTOR_CONNECT_TIMEOUT_MS: "800" }, "GET", `/api/connections/${silent.id}/schema`, { as: as(member) });
    expectError(timedOut, 422, "DATA_STORE_TIMEOUT");
    expect(timedOut.json.message).toBe(`Could not connect to 127.0.0.1:${servers.blackHolePort} within 800 ms.`);

    const slow = await callWithVars({ CONNECTOR_OPERATION_TIMEOUT_MS: "500" }, "POST", `/api/connections/${warehouse.id}/preview`, {
      as: as(manager),
      body: { schema: "sales", table: "slow_view" },
    });
    expectError(slow, 422, "DATA_STORE_TIMEOUT");
  });

  it("a host the policy no longer allows: a 400 naming the stored parameter, nothing contacted", async () => {
    const res = await callWithVars({ CONNECTOR_ALLOWED_HOSTS: "db.example.com" }, "GET", `/api/connections/${warehouse.id}/schema`, { as: as(member) });
    expectError(res, 400, "VALIDATION_FAILED", ["connection.allParameters[0]"]);
    expect(res.json.problems[0].message).toContain("is not in the list of hosts this service may connect to");
  });

  it("a disabled connection is not used: 409 CONNECTION_DISABLED", async () => {
    const disabled = await createConnection(manager, connectionBody(unique("Off"), { disabled: true }));
    expectError(await call("GET", `/api/connections/${disabled.id}/schema`, { as: as(member) }), 409, "CONNECTION_DISABLED");
    expectError(await call("GET", `/api/connections/${disabled.id}/schema/sales/describe`, { as: as(member) }), 409, "CONNECTION_DISABLED");
  });
});

describe("a source from a real table, in two calls", () => {
  it("describe the table as native fields, then create the source with them", async () => {
    const described = await call("POST", "/api/sources/data-entities/describe", {
      as: as(creator),
      body: { connectionId: warehouse.id, schema: "sales", table: "orders" },
    });
    expect(described.status, described.text).toBe(200);
    expect(described.json.content.map((f: { name: string; dataType: string }) => [f.name, f.dataType])).toEqual([
      ["id", "INTEGER"],
      ["customer_id", "INTEGER"],
      ["amount", "NUMBER"],
      ["ordered_on", "TIME"],
      ["tags", "ATTRIBUTE"],
      ["details", "TEXT"],
    ]);
    expect(described.json.content[2].origin).toEqual({
      type: "NATIVE",
      nativeOrigin: { originalName: "amount", originalType: "numeric(10,2)", dataEntityId: "sales.orders" },
    });

    const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Orders"), connectionId: warehouse.id, fields: described.json.content } });
    expect(source.status, source.text).toBe(201);
    expect(source.json.connectionId).toBe(warehouse.id);
    const amount = await call("GET", `/api/sources/${source.json.id}/fields/amount`, { as: as(creator) });
    expect(amount.json).toMatchObject({ dataType: "NUMBER", defaultMetric: "sum", origin: { nativeOrigin: { originalName: "amount", originalType: "numeric(10,2)", dataEntityId: "sales.orders" } } });
  });

  it("makes names a source accepts from any column name, and refuses a table the store does not have (404)", async () => {
    const described = await call("POST", "/api/sources/data-entities/describe", { as: as(member), body: { connectionId: warehouse.id, schema: "sales", table: HOSTILE_TABLE_NAME } });
    expect(described.json.content.map((f: { name: string; label: string }) => [f.name, f.label])).toEqual([
      ["a_quoted_column", 'a "quoted" column'],
      ["select", "select"],
    ]);
    const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Hostile"), connectionId: warehouse.id, fields: described.json.content } });
    expect(source.status, source.text).toBe(201);
    const before = await dbSnapshot();
    const missing = await call("POST", "/api/sources/data-entities/describe", { as: as(member), body: { connectionId: warehouse.id, schema: "sales", table: "nope" } });
    expectError(missing, 404, "DATA_STORE_NOT_FOUND");
    expectError(await call("POST", "/api/sources/data-entities/describe", { as: as(member), body: { connectionId: "no-such", schema: "sales", table: "orders" } }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("an HTTP JSON connection", () => {
  it("keeps its Authorization header secret and reads its one table", async () => {
    const body = {
      name: unique("Api"),
      connectionTypeId: "http-json",
      allParameters: [
        { key: "url", value: `${servers.jsonBaseUrl}/secured.json` },
        { key: "authorization", value: `Bearer ${FIXTURE_BEARER_TOKEN}` },
      ],
    };
    const validated = await call("POST", "/api/connections/validate", { as: as(manager), body });
    expect(validated.json).toMatchObject({ connected: true, message: expect.stringContaining("Received 1 records with 1 columns") });
    const created = await createConnection(manager, body);
    expect(JSON.stringify(created)).not.toContain(FIXTURE_BEARER_TOKEN);
    expect(created.allParameters[1]).toEqual({ key: "authorization", systemAccess: false });
    // Sent back without its value (as answered), the header is kept.
    expect((await call("PUT", `/api/connections/${created.id}`, { as: as(manager), body: { ...body, allParameters: created.allParameters } })).status).toBe(200);
    expect((await call("GET", `/api/connections/${created.id}/schema`, { as: as(member) })).json).toEqual({ content: ["default"] });
    const described = await call("GET", `/api/connections/${created.id}/schema/default/describe`, { as: as(member) });
    expect(described.json).toEqual({ schemaName: "default", collections: [{ name: "records", kind: "TABLE", columns: [{ name: "secret", type: "TEXT", nullable: false }] }] });
  });

  it("infers its columns from every record", async () => {
    const created = await createConnection(manager, { name: unique("Records"), connectionTypeId: "http-json", allParameters: [{ key: "url", value: `${servers.jsonBaseUrl}/records.json` }] });
    const described = await call("GET", `/api/connections/${created.id}/schema/default/describe`, { as: as(member) });
    expect(described.json.collections[0].columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual(
      Object.keys(FIXTURE_RECORDS[0]!).map((name) => [name, { id: "INTEGER", name: "TEXT", price: "NUMBER", active: "BOOLEAN", created: "TIME", note: "TEXT", tags: "JSON" }[name]]),
    );
  });
});

describe("the JSON-datasets connector: the account's own datasets as tables", () => {
  it("is internal, and shows the account's datasets only, with columns inferred from their records", async () => {
    const otherAccount = await createAccount();
    const otherManager = await createUser(otherAccount.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
    const dataset = (name: string, data: unknown) => ({ name, data });
    const flights = unique("flights");
    const secret = unique("their_payroll");
    for (const [user, body] of [
      [manager, dataset(flights, { records: [{ carrier: "LH", price: 120.5, seats: 3, departs: "2024-05-01T10:00:00Z" }, { carrier: "AF", price: 99, seats: 1 }] })],
      [manager, dataset(unique("settings"), { theme: "dark", retries: 3 })],
      [otherManager, dataset(secret, { rows: [{ salary: 100000 }] })],
    ] as const) {
      const res = await call("POST", "/api/json-datasets", { as: as(user), body });
      expect(res.status, res.text).toBe(201);
    }

    const connection = await createConnection(manager, { name: unique("Datasets"), connectionTypeId: "json-datasets", allParameters: [] });
    expect(connection).toMatchObject({ internal: true, type: "JSON_DATASETS", subStorageType: "JSON_DATASETS" });
    const validated = await call("POST", "/api/connections/validate", { as: as(manager), body: { name: unique("v"), connectionTypeId: "json-datasets" } });
    expect(validated.json).toEqual({ connected: true, message: 'The account\'s 2 JSON datasets are tables of schema "datasets".' });

    expect((await call("GET", `/api/connections/${connection.id}/schema`, { as: as(member) })).json).toEqual({ content: ["datasets"] });
    const described = await call("GET", `/api/connections/${connection.id}/schema/datasets/describe`, { as: as(member) });
    expect(described.status).toBe(200);
    const tables = described.json.collections.map((c: { name: string }) => c.name);
    expect(tables).toContain(flights);
    expect(tables).not.toContain(secret);
    expect(described.text).not.toContain("salary");
    expect(described.json.collections.find((c: { name: string }) => c.name === flights).columns).toEqual([
      { name: "carrier", type: "TEXT", nullable: false },
      { name: "price", type: "NUMBER", nullable: false },
      { name: "seats", type: "INTEGER", nullable: false },
      { name: "departs", type: "TIME", nullable: true },
    ]);

    const preview = await call("POST", `/api/connections/${connection.id}/preview`, { as: as(manager), body: { schema: "datasets", table: flights } });
    expect(preview.json.rows).toEqual([
      ["LH", 120.5, 3, "2024-05-01T10:00:00Z"],
      ["AF", 99, 1, null],
    ]);
    // The other account's dataset is no table here, even by its exact name.
    expectError(await call("POST", `/api/connections/${connection.id}/preview`, { as: as(manager), body: { schema: "datasets", table: secret } }), 404, "DATA_STORE_NOT_FOUND");

    const fields = await call("POST", "/api/sources/data-entities/describe", { as: as(member), body: { connectionId: connection.id, schema: "datasets", table: flights } });
    expect(fields.json.content.map((f: { name: string; dataType: string }) => [f.name, f.dataType])).toEqual([
      ["carrier", "TEXT"],
      ["price", "NUMBER"],
      ["seats", "INTEGER"],
      ["departs", "TIME"],
    ]);
  });
});
