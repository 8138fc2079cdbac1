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
