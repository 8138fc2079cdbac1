// The reference product's own calls within this API's resources (issue 17, section 6): the shapes
// isw-da/composer-mcp sends, against the real Worker, D1 and the PostgreSQL of the global setup.
import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import { connectionBody, createConnection, postgresParameters, roundTrips } from "./connection-helpers";

let account: { id: string; name: string };
let manager: TestUser;
let member: TestUser;
let creator: TestUser;
let warehouse: { id: string; name: string };

beforeAll(async () => {
  account = await createAccount();
  manager = await createUser(account.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
  member = await createUser(account.id);
  creator = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
  warehouse = await createConnection(manager, connectionBody(unique("Warehouse")));
});

const describeTable = (user: TestUser, body: unknown) => call("POST", "/api/sources/data-entities/describe", { as: as(user), body });

describe("the data-entity describe takes the reference's SINGLE_COLLECTION data entity", () => {
  it("answers the same fields for {type, singleCollection: {connectionId, schema, collection}} as for ours", async () => {
    const ours = await describeTable(member, { connectionId: warehouse.id, schema: "sales", table: "orders" });
    expect(ours.status, ours.text).toBe(200);
    // tools/sources.py describe_entity's body, exactly.
    const theirs = await describeTable(member, { type: "SINGLE_COLLECTION", singleCollection: { connectionId: warehouse.id, schema: "sales", collection: "orders" } });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.json).toEqual(ours.json);
    expect(theirs.json.content.map((f: { name: string }) => f.name)).toEqual(["id", "customer_id", "amount", "ordered_on", "tags", "details"]);
  });

  it("refuses both forms at once, neither, or an incomplete singleCollection (400 naming each member)", async () => {
    const table = { connectionId: warehouse.id, schema: "sales", collection: "orders" };
    expectError(await describeTable(member, { connectionId: warehouse.id, singleCollection: table }), 400, "VALIDATION_FAILED", ["body.connectionId"]);
    expectError(await describeTable(member, { type: "SINGLE_COLLECTION" }), 400, "VALIDATION_FAILED", ["body.connectionId", "body.schema", "body.table"]);
    expectError(await describeTable(member, { singleCollection: { connectionId: warehouse.id, schema: "sales" } }), 400, "VALIDATION_FAILED", ["body.singleCollection.collection"]);
    expectError(await describeTable(member, { type: "JOIN", singleCollection: table }), 400, "VALIDATION_FAILED", ["body.type"]);
    // Another account's connection, through the alias too: 404 as a missing one.
    const other = await createAccount();
    const theirManager = await createUser(other.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
    const theirs = await createConnection(theirManager, connectionBody(unique("Theirs")));
    expectError(await describeTable(member, { singleCollection: { ...table, connectionId: theirs.id } }), 404, "NOT_FOUND");
  });
});

describe("POST /api/connections/{connectionId}/test: a stored connection, tested", () => {
  const testConnection = (user: TestUser, id: string, body: unknown = {}) => call("POST", `/api/connections/${id}/test`, { as: as(user), body });

  it("connects with the stored parameters, secrets included: a ConnectionValidationResult, after one D1 read, changing nothing", async () => {
    await testConnection(manager, warehouse.id); // signs the manager in: its credential is cached from now on
    const before = await dbSnapshot();
    const res = await testConnection(manager, warehouse.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ connected: true, message: expect.any(String) });
    expect(roundTrips(res)).toBe(1);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a connection that cannot connect is a 200 with connected: false and why", async () => {
    const wrong = await createConnection(manager, connectionBody(unique("Wrong"), { allParameters: postgresParameters({ password: "Wr0ng-Passw0rd-!" }) }));
    const res = await testConnection(manager, wrong.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json.connected).toBe(false);
    expect(res.json.message).toMatch(/password|authentication/i);
    expect(res.text).not.toContain("Wr0ng-Passw0rd-!");
  });

  it("needs ROLE_MANAGE_CONNECTIONS (403); another account's connection or none is a 404; a disabled one a 409", async () => {
    expectError(await testConnection(member, warehouse.id), 403, "FORBIDDEN");
    const other = await createAccount();
    const theirs = await createConnection(await createUser(other.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] }), connectionBody(unique("Theirs")));
    expectError(await testConnection(manager, theirs.id), 404, "NOT_FOUND");
    expectError(await testConnection(manager, "no-such-connection"), 404, "NOT_FOUND");
    const disabled = await createConnection(manager, connectionBody(unique("Off"), { disabled: true }));
    expectError(await testConnection(manager, disabled.id), 409, "CONNECTION_DISABLED");
  });
});

describe("a source created with the reference's storage gets its fields from the table", () => {
  // tools/sources.py create_source: storage naming the table, no nativeFields.
  const storageBody = (name: string, singleCollection: Record<string, string>) => ({
    name,
    description: "",
    storage: { dataEntities: [{ id: "orders", name: "orders", type: "SINGLE_COLLECTION", singleCollection }], joins: [] },
  });

  it("reads the table's columns as the describe answers them, and creates the source with them in one batch", async () => {
    const described = await describeTable(creator, { connectionId: warehouse.id, schema: "sales", table: "orders" });
    const res = await call("POST", "/api/sources", { as: as(creator), body: storageBody(unique("Orders"), { connectionId: warehouse.id, schema: "sales", collection: "orders" }) });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connectionId).toBe(warehouse.id);
    const fields = await call("GET", `/api/sources/${res.json.id}/fields`, { as: as(creator) });
    const pairs = (list: { name: string; dataType: string }[]) => list.map((f) => `${f.name}:${f.dataType}`).sort();
    expect(pairs(fields.json.content)).toEqual(pairs(described.json.content));
    expect(fields.json.content).toHaveLength(6);
    const amount = fields.json.content.find((f: { name: string }) => f.name === "amount");
    expect(amount).toMatchObject({ visible: true, defaultMetric: "sum", origin: { nativeOrigin: { originalName: "amount", originalType: "numeric(10,2)", dataEntityId: "sales.orders" } } });
  });

  it("fields sent (nativeFields) are kept as sent: the table is not read", async () => {
    const body = storageBody(unique("Sent"), { connectionId: warehouse.id, schema: "sales", collection: "no_such_table" });
    body.storage.dataEntities[0] = { ...body.storage.dataEntities[0], nativeFields: [{ name: "qty", origin: { type: "NATIVE", nativeOrigin: { originalName: "qty", originalType: "INT" } } }] } as never;
    const res = await call("POST", "/api/sources", { as: as(creator), body });
    expect(res.status, res.text).toBe(201);
    const fields = await call("GET", `/api/sources/${res.json.id}/fields`, { as: as(creator) });
    expect(fields.json.content.map((f: { name: string }) => f.name)).toEqual(["qty"]);
  });

  it("a table the store lacks, or a connection the account lacks, is a 400 naming the member, and nothing is created", async () => {
    const before = await dbSnapshot();
    const at = "body.storage.dataEntities[0].singleCollection";
    expectError(
      await call("POST", "/api/sources", { as: as(creator), body: storageBody(unique("Nope"), { connectionId: warehouse.id, schema: "sales", collection: "no_such_table" }) }),
      400,
      "VALIDATION_FAILED",
      [`${at}.collection`],
    );
    expectError(
      await call("POST", "/api/sources", { as: as(creator), body: storageBody(unique("Nope"), { connectionId: "no-such-connection", schema: "sales", collection: "orders" }) }),
      400,
      "VALIDATION_FAILED",
      [`${at}.connectionId`],
    );
    expect(await dbSnapshot()).toEqual(before);
  });
});
