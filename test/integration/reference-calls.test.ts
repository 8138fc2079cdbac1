// The reference product's own calls within this API's resources (issue 17, section 6): the shapes
// isw-da/composer-mcp sends, against the real Worker, D1 and the PostgreSQL of the global setup.
import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import { connectionBody, connectionWorld, createConnection, postgresParameters, roundTrips } from "./connection-helpers";

let manager: TestUser;
let member: TestUser;
let creator: TestUser;
let warehouse: { id: string; name: string };

beforeAll(async () => {
  ({ manager, member, creator, warehouse } = await connectionWorld());
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

describe("PUT /api/sources/{sourceId}: the reference's full replace of a source", () => {
  const put = (user: TestUser, id: string, body: unknown, headers: Record<string, string> = {}) => call("PUT", `/api/sources/${id}`, { as: as(user), body, headers });

  it("takes back what GET answered, changed (the client's read-modify-write), and replaces the source's own members; its fields stay", async () => {
    const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Orders"), description: "old", connectionId: warehouse.id, features: ["TEXT_SEARCH"], fields: [{ name: "qty", origin: { type: "NATIVE", nativeOrigin: { originalName: "qty", originalType: "INT" } } }] } });
    expect(source.status, source.text).toBe(201);
    const read = await call("GET", `/api/sources/${source.json.id}`, { as: as(creator) });
    // tools/sources.py clear_forced_filters: GET, set forcedFilters to [], PUT the whole body back.
    const renamed = unique("Renamed");
    const res = await put(creator, source.json.id, { ...read.json, name: renamed, forcedFilters: [] }, { "If-Match": read.headers.get("ETag")! });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: source.json.id, name: renamed, description: "old", connectionId: warehouse.id, features: ["TEXT_SEARCH"], ownerUserId: creator.id });
    expect(res.headers.get("ETag")).not.toBe(read.headers.get("ETag"));
    // A full replace: what is omitted goes (description, connection, features), enabled becomes true.
    const replaced = await put(creator, source.json.id, { name: renamed, enabled: false });
    expect(replaced.json).toMatchObject({ name: renamed, description: null, connectionId: null, features: [], enabled: false });
    expect((await call("GET", `/api/sources/${source.json.id}`, { as: as(creator) })).json).toEqual(replaced.json);
    // The reference's storage alias names the connection.
    const viaStorage = await put(creator, source.json.id, { name: renamed, storage: { dataEntities: [{ type: "SINGLE_COLLECTION", singleCollection: { connectionId: warehouse.id, schema: "sales", collection: "orders" } }], joins: [] } });
    expect(viaStorage.json.connectionId).toBe(warehouse.id);
    const fields = await call("GET", `/api/sources/${source.json.id}/fields`, { as: as(creator) });
    expect(fields.json.content.map((f: { name: string }) => f.name)).toEqual(["qty"]);
  });

  it("refuses what it cannot keep, naming the member, and changes nothing", async () => {
    const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Kept") } });
    const taken = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Taken") } });
    const other = await createAccount();
    const theirs = await createConnection(await createUser(other.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] }), connectionBody(unique("Theirs")));
    const id = source.json.id;
    const before = await dbSnapshot();
    expectError(await put(creator, id, { name: "x", id: taken.json.id }), 400, "ID_MISMATCH", ["body.id"]);
    expectError(await put(creator, id, { name: "x", accountId: other.id }), 400, "VALIDATION_FAILED", ["body.accountId"]);
    expectError(await put(creator, id, { name: "x", connectionId: theirs.id }), 400, "VALIDATION_FAILED", ["body.connectionId"]);
    expectError(await put(creator, id, { name: "x", storage: { dataEntities: [{ singleCollection: { connectionId: "no-such" } }] } }), 400, "VALIDATION_FAILED", [
      "body.storage.dataEntities[0].singleCollection.connectionId",
    ]);
    expectError(await put(creator, id, { name: "x", storage: { dataEntities: [{ nativeFields: [] }] } }), 400, "VALIDATION_FAILED", ["body.storage.dataEntities[0].nativeFields"]);
    expectError(await put(creator, id, { name: "x", fields: [] }), 400, "VALIDATION_FAILED", ["body.fields"]);
    expectError(await put(creator, id, { name: "x", forcedFilters: [{ sid: { type: "USER", principal: "*" }, filter: { field: "a", operator: "EQUALS", values: ["1"] } }] }), 400, "VALIDATION_FAILED", ["body.forcedFilters"]);
    expectError(await put(creator, id, { name: taken.json.name }), 409, "DUPLICATED");
    expectError(await put(creator, id, { name: "x" }, { "If-Match": '"stale"' }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("keeps facetFiltering sound: removing TEXT_SEARCH while a field uses it is a 400", async () => {
    const source = await call("POST", "/api/sources", {
      as: as(creator),
      body: { name: unique("Search"), features: ["TEXT_SEARCH"], fields: [{ name: "tag", facetFiltering: { enabled: true }, origin: { type: "NATIVE", nativeOrigin: { originalName: "tag", originalType: "TEXT" } } }] },
    });
    expect(source.status, source.text).toBe(201);
    expectError(await put(creator, source.json.id, { name: source.json.name, features: [] }), 400, "VALIDATION_FAILED", ["body.features"]);
    expect((await put(creator, source.json.id, { name: source.json.name, features: ["TEXT_SEARCH"] })).status).toBe(200);
  });

  it("needs WRITE (a reader gets 403); another account's source or none is a 404; of two PUTs with one If-Match, one wins", async () => {
    const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Guarded") } });
    const id = source.json.id;
    await call("PUT", `/api/sources/${id}/permissions`, { as: as(creator), body: { content: [{ principalType: "USER", principalId: member.id, permission: "READ" }] } });
    expectError(await put(member, id, { name: "x" }), 403, "FORBIDDEN");
    const other = await createAccount();
    const stranger = await createUser(other.id, { groups: ["Users", "Administrators"] });
    expectError(await put(stranger, id, { name: "x" }), 404, "NOT_FOUND");
    expectError(await put(creator, "no-such-source", { name: "x" }), 404, "NOT_FOUND");
    const etag = source.headers.get("ETag")!;
    const results = await Promise.all([unique("A"), unique("B")].map((name) => put(creator, id, { name }, { "If-Match": etag })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
  });
});

describe("the account's users and administrators: GET and PUT /api/accounts/{accountId}/users and /admins", () => {
  let tenant: { id: string; name: string };
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  const view = (u: TestUser) => ({ id: u.id, name: u.username });
  const byName = (list: { id: string; name: string }[]) => [...list].sort((a, b) => (a.name < b.name ? -1 : 1));
  const users = (who: TestUser | null, accountId = tenant.id) => call("GET", `/api/accounts/${accountId}/users`, who ? { as: as(who) } : {});
  const admins = (who: TestUser | null, accountId = tenant.id) => call("GET", `/api/accounts/${accountId}/admins`, who ? { as: as(who) } : {});
  const putList = (list: "users" | "admins", who: TestUser | null, body: unknown, accountId = tenant.id) =>
    call("PUT", `/api/accounts/${accountId}/${list}`, who ? { as: as(who), body } : { body });

  beforeAll(async () => {
    tenant = await createAccount();
    admin = await createUser(tenant.id, { name: unique("a-admin"), groups: ["Users", "Administrators"] });
    alice = await createUser(tenant.id, { name: unique("b-alice") });
    bob = await createUser(tenant.id, { name: unique("c-bob") });
  });

  it("GET answers the account's users and its administrators as [{id, name}], by name; the supervisor names any account", async () => {
    const res = await users(admin);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual(byName([view(admin), view(alice), view(bob)]));
    expect((await users(null)).json).toEqual(res.json);
    expect((await admins(admin)).json).toEqual([view(admin)]);
  });

  it("PUT users: the list that names every user (by id, by name) is answered as it is, and nothing changes; one left out is a 409 naming it", async () => {
    const other = await createAccount();
    const stranger = await createUser(other.id);
    const before = await dbSnapshot();
    // tools/accounts.py add_users_to_account: a flat array of {id, name}, read first and written back whole.
    const current = (await users(admin)).json;
    const res = await putList("users", admin, current);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual(current);
    expect((await putList("users", null, [{ id: admin.id }, { name: alice.username }, { id: bob.id, name: bob.username }])).status).toBe(200);
    const left = expectError(await putList("users", admin, [{ id: admin.id }, { id: alice.id }]), 409, "ACCOUNT_USERS_INCOMPLETE");
    expect(left.message).toContain("DELETE /api/users");
    expect(JSON.stringify(left.problems)).toContain(bob.username);
    expectError(await putList("users", admin, [...current, view(stranger)]), 400, "VALIDATION_FAILED", ["body[3].id"]);
    expectError(await putList("users", admin, [...current, { name: "nobody-at-all" }]), 400, "VALIDATION_FAILED", ["body[3].name"]);
    expectError(await putList("users", admin, [{ id: alice.id, name: bob.username }, { id: admin.id }, { id: bob.id }]), 400, "VALIDATION_FAILED", ["body[0].name"]);
    expectError(await putList("users", admin, [...current, { id: alice.id }]), 400, "VALIDATION_FAILED", ["body[3].id"]);
    expectError(await putList("users", admin, [{}]), 400, "VALIDATION_FAILED", ["body[0].id"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("PUT admins replaces who holds ROLE_ADMIN: joining or leaving Administrators, and the role; the answer and GET agree", async () => {
    await createUser(tenant.id, { name: unique("d-carol") }); // not listed anywhere below: stays a plain user
    const roled = await createUser(tenant.id, { name: unique("e-roled"), roles: ["ROLE_ADMIN"] });
    // add_admins_to_account: the whole list.
    const res = await putList("admins", admin, [view(admin), view(alice)]);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual(byName([view(admin), view(alice)]));
    expect((await admins(admin)).json).toEqual(res.json);
    const aliceNow = (await call("GET", `/api/users/${alice.id}`)).json;
    expect(aliceNow.groups).toEqual(["Administrators", "Users"]);
    // The user who held ROLE_ADMIN by its own roles lost it, and keeps the rest of itself.
    const roledNow = (await call("GET", `/api/users/${roled.id}`)).json;
    expect(roledNow).toMatchObject({ roles: [], groups: ["Users"] });
    // Alice signs in as an administrator now (her cached privileges went), then loses it again.
    expect((await call("GET", "/api/user", { as: as(alice) })).json.activeRoles).toContain("ROLE_ADMIN");
    expect((await putList("admins", admin, [{ id: admin.id }])).json).toEqual([view(admin)]);
    expect((await call("GET", "/api/user", { as: as(alice) })).json.activeRoles).not.toContain("ROLE_ADMIN");
    expect((await call("GET", `/api/users/${alice.id}`)).json.groups).toEqual(["Users"]);
  });

  it("refuses, changing nothing: leaving oneself out, a user admin through another group (409); granting without ROLE_ADMIN (403)", async () => {
    const group = await createGroup(tenant.id, unique("Owners"), ["ROLE_ADMIN"]);
    const owner = await createUser(tenant.id, { name: unique("f-owner"), groups: ["Users", group.name] });
    const groupAdmin = await createUser(tenant.id, { name: unique("g-groups"), roles: ["ROLE_ADMINISTER_GROUPS"] });
    const before = await dbSnapshot();
    expectError(await putList("admins", admin, [view(owner)]), 409, "ADMINS_NOT_REPLACEABLE");
    expectError(await putList("admins", admin, [view(admin)]), 409, "ADMINS_NOT_REPLACEABLE");
    expectError(await putList("admins", groupAdmin, [view(admin), view(owner), view(bob)]), 403, "PRIVILEGE_ESCALATION");
    expect(await dbSnapshot()).toEqual(before);
    // The same list as now changes nothing, so it needs no ROLE_ADMIN.
    const current = (await admins(groupAdmin)).json;
    expect((await putList("admins", groupAdmin, current)).status).toBe(200);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("who may call: ROLE_ADMINISTER_USERS for users, ROLE_ADMINISTER_GROUPS for admins (403 otherwise); another account, or none, is a 404", async () => {
    expectError(await users(alice), 403, "FORBIDDEN");
    expectError(await admins(alice), 403, "FORBIDDEN");
    const other = await createAccount();
    const theirAdmin = await createUser(other.id, { groups: ["Users", "Administrators"] });
    expectError(await users(theirAdmin), 404, "NOT_FOUND");
    expectError(await admins(theirAdmin), 404, "NOT_FOUND");
    expectError(await putList("users", theirAdmin, []), 404, "NOT_FOUND");
    expectError(await putList("admins", theirAdmin, []), 404, "NOT_FOUND");
    expectError(await users(null, "no-such-account"), 404, "NOT_FOUND");
  });

  it("of concurrent PUTs of different admin lists, each answer is one list and the end state is exactly one of them", async () => {
    // The administrators left by the tests above (the group's owner among them) stay in both.
    const kept = (await admins(null)).json.filter((u: { id: string }) => u.id !== alice.id && u.id !== bob.id);
    const lists = [[...kept, view(alice)], [...kept, view(bob)]];
    const results = await Promise.all(lists.map((list) => putList("admins", null, list)));
    for (const r of results) expect([200, 412], r.text).toContain(r.status);
    const now = (await admins(null)).json;
    expect(lists.map((l) => JSON.stringify(byName(l)))).toContain(JSON.stringify(now));
  });
});
