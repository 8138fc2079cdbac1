import { beforeAll, describe, expect, it } from "vitest";
import { listConnectors } from "../../src/connectors";
import { builtInConnectionType } from "../../src/domain/connectors/built-in-types";
import { as, call, createAccount, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import { connectionBody, createConnection } from "./connection-helpers";

const TYPE_MEMBERS = [
  "connectorId",
  "createdByUserID",
  "createdDate",
  "description",
  "disabledMessage",
  "enabled",
  "id",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "maxSupportedVersion",
  "minSupportedVersion",
  "name",
  "onPremise",
  "parameters",
  "subStorageType",
  "type",
];

let account: { id: string; name: string };
let other: { id: string; name: string };
let admin: TestUser;
let otherAdmin: TestUser;
let member: TestUser;

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  otherAdmin = await createUser(other.id, { groups: ["Users", "Administrators"] });
  member = await createUser(account.id);
});

const typeBody = (overrides: Record<string, unknown> = {}) => ({ connectorId: "postgresql", name: unique("Warehouse"), ...overrides });

async function createType(overrides: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/connection/types", { body: typeBody(overrides) });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe("built-in connection types", () => {
  it("are one per connector, generated from its parameter descriptors (the migration's rows are exactly these)", async () => {
    const res = await call("GET", "/api/connection/types");
    expect(res.status).toBe(200);
    for (const connector of listConnectors()) {
      const expected = builtInConnectionType(connector);
      const { createdDate: _created, lastModifiedDate: _modified, ...stored } = res.json.content.find((t: { id: string }) => t.id === connector.id) ?? {};
      // A difference means the migration's INSERT no longer matches the connector: the message is the row it should hold.
      expect(stored, JSON.stringify(expected)).toEqual({
        ...expected,
        enabled: true,
        disabledMessage: null,
        minSupportedVersion: null,
        maxSupportedVersion: null,
        onPremise: false,
        createdByUserID: "system",
        lastModifiedByUserID: "system",
      });
    }
  });

  it("are read by every signed-in user: secret keys are PASSWORD, families end with a dot, deprecated settings are hidden", async () => {
    const res = await call("GET", "/api/connection/types/http-json", { as: as(member) });
    expect(res.status).toBe(200);
    const byKey = Object.fromEntries(res.json.parameters.map((p: { key: string }) => [p.key, p]));
    expect(byKey.authorization).toMatchObject({ valueType: "PASSWORD", required: false });
    expect(byKey["secretHeader."]).toMatchObject({ valueType: "PASSWORD" });
    expect(byKey.url).toMatchObject({ valueType: "URL", required: true, requireValidation: true });
    const postgres = await call("GET", "/api/connection/types/postgresql", { as: as(member) });
    expect(postgres.json.parameters.find((p: { key: string }) => p.key === "ssl")).toMatchObject({ visible: false, valueType: "BOOLEAN" });
    expect(postgres.json.parameters.find((p: { key: string }) => p.key === "sslmode").values).toEqual(["disable", "prefer", "require"]);
  });
});

describe("connection types: supervisor writes", () => {
  it("creates (201, Location, ETag), reads, lists with filters, replaces (E3), patches, deletes (E4, 204)", async () => {
    const created = await call("POST", "/api/connection/types", { body: typeBody({ description: "Our warehouse", parameters: undefined }) });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(TYPE_MEMBERS);
    expect(created.json).toMatchObject({ connectorId: "postgresql", type: "POSTGRESQL", subStorageType: "POSTGRESQL", enabled: true, createdByUserID: "supervisor" });
    // Without parameters, the connector's own.
    expect(created.json.parameters.map((p: { key: string }) => p.key)).toEqual(["host", "port", "database", "user", "password", "sslmode", "ssl"]);
    const location = created.headers.get("Location")!;
    expect(location).toBe(`/api/connection/types/${created.json.id}`);
    const etag = created.headers.get("ETag")!;

    const read = await call("GET", location, { as: as(member) });
    expect(read.json).toEqual(created.json);
    expect(read.headers.get("ETag")).toBe(etag);

    const byName = await call("GET", `/api/connection/types?name=${encodeURIComponent(created.json.name)}`);
    expect(byName.json.content.map((t: { id: string }) => t.id)).toEqual([created.json.id]);

    const replaced = await call("PUT", location, {
      body: {
        id: created.json.id,
        connectorId: "postgresql",
        name: created.json.name,
        type: "WAREHOUSE",
        subStorageType: "PG",
        minSupportedVersion: "13",
        onPremise: true,
        parameters: [
          { key: "host", required: true },
          { key: "database", required: true, label: "Database name", sequenceNumber: 5 },
          { key: "user", required: true },
          { key: "password", valueType: "PASSWORD" },
          { key: "sslmode", values: ["disable", "require"] },
        ],
      },
      headers: { "If-Match": etag },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json).toMatchObject({ type: "WAREHOUSE", subStorageType: "PG", minSupportedVersion: "13", onPremise: true, description: null });
    expect(replaced.json.parameters[1]).toEqual({
      key: "database",
      label: "Database name",
      valueType: "STRING",
      required: true,
      helper: null,
      visible: true,
      userAttribute: false,
      values: [],
      sequenceNumber: 5,
      requireValidation: false,
    });
    expect(replaced.headers.get("ETag")).not.toBe(etag);

    const stale = await call("PATCH", location, { body: { enabled: false }, headers: { "If-Match": etag } });
    expectError(stale, 412, "PRECONDITION_FAILED");

    const patched = await call("PATCH", location, { body: { enabled: false, disabledMessage: "Retired: use Snowflake" } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ enabled: false, disabledMessage: "Retired: use Snowflake", type: "WAREHOUSE" });
    expect(patched.json.parameters).toEqual(replaced.json.parameters);

    const disabled = await call("GET", "/api/connection/types?enabled=false");
    expect(disabled.json.content.map((t: { id: string }) => t.id)).toContain(created.json.id);
    const enabled = await call("GET", "/api/connection/types?enabled=true");
    expect(enabled.json.content.map((t: { id: string }) => t.id)).not.toContain(created.json.id);

    expect((await call("DELETE", location)).status).toBe(204);
    expectError(await call("GET", location), 404, "NOT_FOUND");
    expectError(await call("PUT", location, { body: typeBody() }), 404, "NOT_FOUND");
  });

  it("refuses users (403), a taken name (409), an unknown connector or a type without the keys its connector needs (400), and changes nothing", async () => {
    const taken = await createType();
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/connection/types", { as: as(admin), body: typeBody() }), 403, "FORBIDDEN");
    expectError(await call("PATCH", `/api/connection/types/${taken.id}`, { as: as(admin), body: { enabled: false } }), 403, "FORBIDDEN");
    expectError(await call("DELETE", `/api/connection/types/${taken.id}`, { as: as(admin) }), 403, "FORBIDDEN");
    expectError(await call("POST", "/api/connection/types", { body: typeBody({ name: taken.name }) }), 409, "DUPLICATED");
    expectError(await call("POST", "/api/connection/types", { body: typeBody({ connectorId: "oracle" }) }), 400, "VALIDATION_FAILED", ["body.connectorId"]);
    const incomplete = await call("POST", "/api/connection/types", { body: typeBody({ parameters: [{ key: "host", required: true }] }) });
    expectError(incomplete, 400, "VALIDATION_FAILED", ["body.parameters"]);
    expect(incomplete.json.problems.map((p: { message: string }) => p.message)).toEqual([
      'The PostgreSQL connector needs "database": declare it',
      'The PostgreSQL connector needs "user": declare it',
    ]);
    const twice = await call("POST", "/api/connection/types", { body: typeBody({ parameters: [{ key: "host" }, { key: "host" }] }) });
    expectError(twice, 400, "VALIDATION_FAILED", ["body.parameters[1].key"]);
    expectError(await call("POST", "/api/connection/types", { body: typeBody({ parameters: [{ key: "host", valueType: "DATE" }] }) }), 400, "VALIDATION_FAILED");
    expectError(await call("PUT", `/api/connection/types/${taken.id}`, { body: { ...typeBody(), id: "another" } }), 400, "ID_MISMATCH");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("the accounts that may use a type", () => {
  it("empty: every account; listed: only those, the others see nothing of it (404, absent from the list)", async () => {
    const type = await createType();
    const path = `/api/connection/types/${type.id}/accounts`;
    expect((await call("GET", path)).json).toEqual([]);
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(otherAdmin) })).status).toBe(200);

    const put = await call("PUT", path, { body: [account.id] });
    expect(put.status).toBe(200);
    expect(put.json).toEqual([account.id]);
    expect((await call("GET", path)).json).toEqual([account.id]);

    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(member) })).status).toBe(200);
    const unknownType = await call("GET", "/api/connection/types/no-such-type", { as: as(otherAdmin) });
    const hidden = await call("GET", `/api/connection/types/${type.id}`, { as: as(otherAdmin) });
    expectError(hidden, 404, "NOT_FOUND");
    expect(hidden.json.message).toBe(unknownType.json.message);
    const listed = await call("GET", "/api/connection/types", { as: as(otherAdmin) });
    expect(listed.json.content.map((t: { id: string }) => t.id)).not.toContain(type.id);
    expect(listed.json.content.map((t: { id: string }) => t.id)).toContain("postgresql");

    // The other account cannot create connections of it: the type is not available to it.
    const refused = await call("POST", "/api/connections", { as: as(otherAdmin), body: connectionBody(unique("c"), { connectionTypeId: type.id }) });
    expectError(refused, 400, "VALIDATION_FAILED", ["body.connectionTypeId"]);

    expect((await call("PUT", path, { body: [] })).json).toEqual([]);
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(otherAdmin) })).status).toBe(200);
  });

  it("refuses unknown accounts and repeated ones (400), an unknown type (404), users (403), changing nothing", async () => {
    const type = await createType();
    const path = `/api/connection/types/${type.id}/accounts`;
    const before = await dbSnapshot();
    expectError(await call("PUT", path, { body: [account.id, "no-such-account"] }), 400, "VALIDATION_FAILED", ["body[1]"]);
    expectError(await call("PUT", path, { body: [account.id, account.id] }), 400, "VALIDATION_FAILED");
    expectError(await call("PUT", "/api/connection/types/no-such-type/accounts", { body: [] }), 404, "NOT_FOUND");
    expectError(await call("GET", "/api/connection/types/no-such-type/accounts"), 404, "NOT_FOUND");
    expectError(await call("GET", path, { as: as(admin) }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("a type in use", () => {
  it("cannot be deleted: 409 naming the connections that use it, in every account", async () => {
    const type = await createType();
    const mine = await createConnection(admin, connectionBody(unique("Uses"), { connectionTypeId: type.id }));
    const theirs = await createConnection(otherAdmin, connectionBody(unique("AlsoUses"), { connectionTypeId: type.id }));
    const before = await dbSnapshot();
    const refused = await call("DELETE", `/api/connection/types/${type.id}`);
    expectError(refused, 409, "CONNECTION_TYPE_IN_USE", ["id"]);
    const users = refused.json.problems[0].dependencies[type.name].accessible;
    expect(users.map((u: { id: string; type: string }) => [u.id, u.type]).sort()).toEqual([[mine.id, "CONNECTION"], [theirs.id, "CONNECTION"]].sort());
    expect(users.find((u: { id: string }) => u.id === theirs.id).parent).toEqual({ id: other.id, name: other.name, type: "ACCOUNT" });
    expect(await dbSnapshot()).toEqual(before);

    expect((await call("DELETE", `/api/connections/${mine.id}`, { as: as(admin) })).status).toBe(204);
    expect((await call("DELETE", `/api/connections/${theirs.id}`, { as: as(otherAdmin) })).status).toBe(204);
    expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
  });

  it("holds under concurrency: a delete and a connection create fired together never both succeed", async () => {
    for (let round = 0; round < 5; round++) {
      const type = await createType();
      const [deleted, created] = await Promise.all([
        call("DELETE", `/api/connection/types/${type.id}`),
        call("POST", "/api/connections", { as: as(admin), body: connectionBody(unique("Racer"), { connectionTypeId: type.id }) }),
      ]);
      const outcome = `${deleted.status}/${created.status}`;
      // Either the type went first (the create finds no type: 400), or the connection did (the delete is refused: 409).
      expect(["204/400", "409/201"], `${outcome} ${deleted.text} ${created.text}`).toContain(outcome);
      if (created.status === 201) {
        expect((await call("GET", `/api/connection/types/${type.id}`)).status).toBe(200);
        await call("DELETE", `/api/connections/${created.json.id}`, { as: as(admin) });
      }
    }
  });
});

describe("a disabled type", () => {
  it("refuses new connections, changes and validations with its disabledMessage; its connections stay readable", async () => {
    const type = await createType();
    const connection = await createConnection(admin, connectionBody(unique("Before"), { connectionTypeId: type.id }));
    await call("PATCH", `/api/connection/types/${type.id}`, { body: { enabled: false, disabledMessage: "Retired on 1 December: use the Hyperdrive type" } });
    const before = await dbSnapshot();

    for (const res of [
      await call("POST", "/api/connections", { as: as(admin), body: connectionBody(unique("After"), { connectionTypeId: type.id }) }),
      await call("PUT", `/api/connections/${connection.id}`, { as: as(admin), body: connectionBody(connection.name, { connectionTypeId: type.id }) }),
      await call("POST", "/api/connections/validate", { as: as(admin), body: connectionBody(unique("Check"), { connectionTypeId: type.id }) }),
      await call("GET", `/api/connections/${connection.id}/schema`, { as: as(admin) }),
    ]) {
      expectError(res, 409, "CONNECTION_TYPE_DISABLED");
      expect(res.json.message).toBe("Retired on 1 December: use the Hyperdrive type");
    }
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", `/api/connections/${connection.id}`, { as: as(member) })).status).toBe(200);

    // Without a message of its own, the answer says which type is disabled.
    await call("PATCH", `/api/connection/types/${type.id}`, { body: { disabledMessage: null } });
    const plain = await call("POST", "/api/connections/validate", { as: as(admin), body: connectionBody(unique("Check"), { connectionTypeId: type.id }) });
    expect(plain.json.message).toBe(`The connection type '${type.name}' is disabled`);
  });
});
