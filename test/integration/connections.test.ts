import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { READER_PASSWORD } from "../global-setup/fixture-data.mjs";
import { as, call, createAccount, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";
import {
  accountDatabase,
  answeredValues,
  callWithVars,
  connectionBody,
  createConnection,
  postgresParameters,
  roundTrips,
  servers,
  storedConnectionRow,
} from "./connection-helpers";

const CONNECTION_MEMBERS = [
  "accountId",
  "allParameters",
  "connectionTypeId",
  "createdByUserID",
  "createdDate",
  "creatingUserName",
  "disabled",
  "features",
  "folderId",
  "id",
  "internal",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "name",
  "originId",
  "projectId",
  "subStorageType",
  "type",
];

let account: { id: string; name: string };
let admin: TestUser;
let manager: TestUser;
let member: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  manager = await createUser(account.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
  member = await createUser(account.id);
});

describe("connections: create, read, list, upsert, delete", () => {
  it("POST creates (201, Location, ETag); GET answers the same; the list filters by name and ids", async () => {
    const name = unique("Warehouse");
    const created = await call("POST", "/api/connections", { as: as(manager), body: connectionBody(name, { accountId: account.id }) });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(CONNECTION_MEMBERS);
    expect(created.json).toMatchObject({
      name,
      type: "POSTGRESQL",
      subStorageType: "POSTGRESQL",
      accountId: account.id,
      creatingUserName: manager.username,
      disabled: false,
      connectionTypeId: "postgresql",
      folderId: null,
      projectId: null,
      originId: null,
      internal: false,
      createdByUserID: manager.id,
    });
    expect(created.json.features).toContainEqual({ name: "PREVIEW", params: {}, status: "ENABLED" });
    expect(created.headers.get("Location")).toBe(`/api/connections/${created.json.id}`);
    const read = await call("GET", created.headers.get("Location")!, { as: as(member) });
    expect(read.json).toEqual(created.json);
    expect(read.headers.get("ETag")).toBe(created.headers.get("ETag"));

    const second = await createConnection(manager, connectionBody(unique("Second")));
    const byName = await call("GET", `/api/connections?name=${encodeURIComponent(name)}`, { as: as(member) });
    expect(byName.json.content.map((c: { id: string }) => c.id)).toEqual([created.json.id]);
    const byIds = await call("GET", `/api/connections?ids=${created.json.id},${second.id}&ids=no-such-id`, { as: as(member) });
    expect(byIds.json.content.map((c: { id: string }) => c.id).sort()).toEqual([created.json.id, second.id].sort());
    const repeated = await call("GET", `/api/connections?ids=${second.id}`, { as: as(member) });
    expect(repeated.json.content.map((c: { id: string }) => c.id)).toEqual([second.id]);
  });

  it("E6 PUT creates (201, Location) then replaces (200); If-Match guards it; DELETE answers 204", async () => {
    const id = unique("sales-db").toLowerCase();
    const path = `/api/connections/${id}`;
    const created = await call("PUT", path, { as: as(manager), body: connectionBody(unique("Sales"), { folderId: null }) });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("Location")).toBe(path);
    expect(created.json.id).toBe(id);
    const etag = created.headers.get("ETag")!;

    const renamed = unique("Sales renamed");
    const replaced = await call("PUT", path, { as: as(manager), body: connectionBody(renamed, { id, disabled: true }), headers: { "If-Match": etag } });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ id, name: renamed, disabled: true, creatingUserName: manager.username, createdDate: created.json.createdDate });
    expect(replaced.headers.get("ETag")).not.toBe(etag);

    const before = await dbSnapshot();
    expectError(await call("PUT", path, { as: as(manager), body: connectionBody(renamed), headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
    expectError(await call("PUT", `/api/connections/${id}-new`, { as: as(manager), body: connectionBody(unique("n")), headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
    expectError(await call("PUT", path, { as: as(manager), body: connectionBody(renamed, { id: "another" }) }), 400, "ID_MISMATCH");
    expectError(await call("DELETE", path, { as: as(manager), headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);

    expect((await call("DELETE", path, { as: as(manager) })).status).toBe(204);
    expectError(await call("GET", path, { as: as(member) }), 404, "NOT_FOUND");
    expectError(await call("DELETE", path, { as: as(manager) }), 404, "NOT_FOUND");
  });

  it("names are unique in the account (409); ids must be URL-safe (400); users without ROLE_MANAGE_CONNECTIONS only read (403)", async () => {
    const taken = await createConnection(manager, connectionBody(unique("Taken")));
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/connections", { as: as(manager), body: connectionBody(taken.name) }), 409, "DUPLICATED");
    expectError(await call("PUT", "/api/connections/bad%20id", { as: as(manager), body: connectionBody(unique("x")) }), 400, "VALIDATION_FAILED", ["path.connectionId"]);
    expectError(await call("POST", "/api/connections", { as: as(member), body: connectionBody(unique("x")) }), 403, "FORBIDDEN");
    expectError(await call("DELETE", `/api/connections/${taken.id}`, { as: as(member) }), 403, "FORBIDDEN");
    expectError(await call("POST", "/api/connections/validate", { as: as(member), body: connectionBody(unique("x")) }), 403, "FORBIDDEN");
    expectError(await call("GET", "/api/connections"), 403, "FORBIDDEN"); // the supervisor belongs to no account
    expectError(await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { accountId: "another-account" }) }), 403, "ACCOUNT_FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("two PUTs creating one id at once: one creates (201), the other replaces (200)", async () => {
    const id = unique("twin").toLowerCase();
    const [a, b] = await Promise.all([
      call("PUT", `/api/connections/${id}`, { as: as(manager), body: connectionBody(unique("TwinA")) }),
      call("PUT", `/api/connections/${id}`, { as: as(manager), body: connectionBody(unique("TwinB")) }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const stored = await call("GET", `/api/connections/${id}`, { as: as(member) });
    expect([a.json.name, b.json.name]).toContain(stored.json.name);
  });

  it("a folder of the account organizes it, and gives it that folder's project; another id is a 400", async () => {
    const folder = await call("POST", "/api/folders", {
      as: as(admin),
      headers: { "X-Enable-Preview": "true" },
      body: { folder_name: unique("Connections"), content_type: "DASHBOARDS" },
    });
    expect(folder.status, folder.text).toBe(201);
    const filed = await createConnection(manager, connectionBody(unique("Filed"), { folderId: folder.json.id }));
    expect(filed).toMatchObject({ folderId: folder.json.id, projectId: folder.json.project_id });
    expect((await call("GET", `/api/connections/${filed.id}`, { as: as(member) })).json.projectId).toBe(folder.json.project_id);
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { folderId: 1111 }) }), 400, "VALIDATION_FAILED", ["body.folderId"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("matching the connection type", () => {
  const byTypeBody = (name: string, overrides: Record<string, unknown> = {}) => ({
    name,
    type: "POSTGRESQL",
    subStorageType: "POSTGRESQL",
    allParameters: postgresParameters(),
    ...overrides,
  });

  it("BY_ID by connectionTypeId; BY_TYPE_AND_PARAMETERS by type, subStorageType and keys, chosen by default without an id", async () => {
    const byId = await createConnection(manager, connectionBody(unique("ById")), "?strategy=BY_ID");
    expect(byId.connectionTypeId).toBe("postgresql");
    const implicit = await createConnection(manager, byTypeBody(unique("Implicit")));
    expect(implicit.connectionTypeId).toBe("postgresql");
    const explicit = await createConnection(manager, byTypeBody(unique("Explicit")), "?strategy=BY_TYPE_AND_PARAMETERS");
    expect(explicit.connectionTypeId).toBe("postgresql");
  });

  it("accepts the reference product's name of the query member, connectionTypeMatchingStrategy", async () => {
    const aliased = await call("PUT", `/api/connections/${unique("alias").toLowerCase()}?connectionTypeMatchingStrategy=BY_TYPE_AND_PARAMETERS`, {
      as: as(manager),
      body: byTypeBody(unique("Alias"), { connectionTypeId: "postgresql-hyperdrive" }),
    });
    // The alias chose BY_TYPE_AND_PARAMETERS: the body's connectionTypeId played no part.
    expect(aliased.status, aliased.text).toBe(201);
    expect(aliased.json.connectionTypeId).toBe("postgresql");
    const conflicting = await call("POST", "/api/connections?strategy=BY_ID&connectionTypeMatchingStrategy=BY_TYPE_AND_PARAMETERS", { as: as(manager), body: connectionBody(unique("x")) });
    expectError(conflicting, 400, "VALIDATION_FAILED", ["query.connectionTypeMatchingStrategy"]);
  });

  it("BY_TYPE_AND_PARAMETERS picks the narrowest type that takes every key given, and none when a key is unknown to all", async () => {
    const narrow = await call("POST", "/api/connection/types", {
      body: {
        connectorId: "postgresql",
        name: unique("Narrow"),
        type: "NARROWPG",
        subStorageType: "PG",
        parameters: [{ key: "host", required: true }, { key: "port" }, { key: "database", required: true }, { key: "user", required: true }, { key: "password", valueType: "PASSWORD" }, { key: "sslmode" }],
      },
    });
    expect(narrow.status, narrow.text).toBe(201);
    const wide = await call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: unique("Wide"), type: "NARROWPG", subStorageType: "PG" } });
    const matched = await createConnection(manager, byTypeBody(unique("Narrowest"), { type: "NARROWPG", subStorageType: "PG" }));
    expect(matched.connectionTypeId).toBe(narrow.json.id);
    // Only the wide type declares "ssl".
    const withSsl = await call("POST", "/api/connections?suppressWarnings=true", {
      as: as(manager),
      body: byTypeBody(unique("WithSsl"), { type: "NARROWPG", subStorageType: "PG", allParameters: [...postgresParameters({ sslmode: undefined }).filter((p) => p.key !== "sslmode"), { key: "ssl", value: "false" }] }),
    });
    expect(withSsl.status, withSsl.text).toBe(201);
    expect(withSsl.json.connectionTypeId).toBe(wide.json.id);

    const before = await dbSnapshot();
    const unknownKey = await call("POST", "/api/connections", { as: as(manager), body: byTypeBody(unique("x"), { allParameters: [...postgresParameters(), { key: "colour", value: "blue" }] }) });
    expectError(unknownKey, 400, "VALIDATION_FAILED", ["body.type"]);
    const missing = await call("POST", "/api/connections", { as: as(manager), body: { name: unique("x"), allParameters: postgresParameters() } });
    expectError(missing, 400, "VALIDATION_FAILED", ["body.type", "body.subStorageType"]);
    const noId = await call("POST", "/api/connections?strategy=BY_ID", { as: as(manager), body: byTypeBody(unique("x")) });
    expectError(noId, 400, "VALIDATION_FAILED", ["body.connectionTypeId"]);
    const unknownType = await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { connectionTypeId: "no-such-type" }) });
    expectError(unknownType, 400, "VALIDATION_FAILED", ["body.connectionTypeId"]);
    const contradicting = await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { type: "HTTP_JSON" }) });
    expectError(contradicting, 400, "VALIDATION_FAILED", ["body.type"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("parameter problems: ERROR and WARNING", () => {
  const problemsOf = (res: { json: { problems: { name: string; level: string; message: string }[] } }) =>
    res.json.problems.map((p) => [p.name, p.level, p.message]);

  it("a missing required key, a value outside the allowed ones and a wrong valueType are ERRORs, which suppressWarnings does not lift", async () => {
    const before = await dbSnapshot();
    const body = connectionBody(unique("Broken"), {
      allParameters: postgresParameters({ database: undefined, sslmode: "sometimes", port: "fifty" }).filter((p) => p.key !== "database"),
    });
    for (const query of ["", "?suppressWarnings=true"]) {
      const res = await call("POST", `/api/connections${query}`, { as: as(manager), body });
      expectError(res, 400, "VALIDATION_FAILED");
      expect(problemsOf(res)).toEqual([
        ["body.allParameters[1]", "ERROR", "Port must be a whole number."],
        ["body.allParameters", "ERROR", "database: Database is required."],
        ["body.allParameters[4]", "ERROR", "TLS mode must be one of: disable, prefer, require."],
      ]);
      const validated = await call("POST", `/api/connections/validate${query}`, { as: as(manager), body });
      expect(problemsOf(validated)).toEqual(problemsOf(res));
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("an unknown key and a deprecated setting are WARNINGs: 400 without suppressWarnings, stored with it", async () => {
    const allParameters = [...postgresParameters({ sslmode: undefined }).filter((p) => p.key !== "sslmode"), { key: "ssl", value: "false" }, { key: "colour", value: "blue" }];
    const body = connectionBody(unique("Warned"), { allParameters });
    const before = await dbSnapshot();
    const warned = await call("POST", "/api/connections", { as: as(manager), body });
    expectError(warned, 400, "VALIDATION_FAILED");
    expect(problemsOf(warned)).toEqual([
      ["body.allParameters[5]", "WARNING", '"ssl" is deprecated. Use sslmode instead: ssl=true is sslmode=require, ssl=false is sslmode=disable (ssl applies only when sslmode is not set).'],
      ["body.allParameters[6]", "WARNING", '"colour" is not a parameter of this connection type; no connector reads it.'],
    ]);
    expectError(await call("POST", "/api/connections/validate", { as: as(manager), body }), 400, "VALIDATION_FAILED");
    expect(await dbSnapshot()).toEqual(before);

    const stored = await call("POST", "/api/connections?suppressWarnings=true", { as: as(manager), body });
    expect(stored.status, stored.text).toBe(201);
    expect(answeredValues(stored.json)).toMatchObject({ ssl: "false", colour: "blue" });
    // The deprecated ssl=false means sslmode=disable: the connection works.
    const validated = await call("POST", "/api/connections/validate?suppressWarnings=true", { as: as(manager), body });
    expect(validated.json).toMatchObject({ connected: true });
    // Rule 5 holds for E15 too: the stored warnings block until suppressed.
    expectError(await call("GET", `/api/connections/${stored.json.id}/schema`, { as: as(member) }), 400, "VALIDATION_FAILED");
    const schemas = await call("GET", `/api/connections/${stored.json.id}/schema?suppressWarnings=true`, { as: as(member) });
    expect(schemas.json).toEqual({ content: ["hr", "public", "sales"] });
  });

  it("each key once; systemAccess and its other name isSystemAccess are kept", async () => {
    const twice = await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { allParameters: [...postgresParameters(), { key: "host", value: "127.0.0.1" }] }) });
    expectError(twice, 400, "VALIDATION_FAILED", ["body.allParameters[6].key"]);
    const flagged = await createConnection(manager, connectionBody(unique("Flags"), {
      allParameters: postgresParameters().map((p) => (p.key === "user" ? { ...p, isSystemAccess: true } : p.key === "database" ? { ...p, systemAccess: true } : p)),
    }));
    expect(flagged.allParameters.filter((p: { systemAccess: boolean }) => p.systemAccess).map((p: { key: string }) => p.key)).toEqual(["database", "user"]);
  });
});

describe("secret parameters", () => {
  it("are never answered, are stored sealed, and an update that sends the key without a value keeps them", async () => {
    const created = await createConnection(manager, connectionBody(unique("Secret")));
    for (const text of [
      JSON.stringify(created),
      (await call("GET", `/api/connections/${created.id}`, { as: as(member) })).text,
      (await call("GET", "/api/connections", { as: as(member) })).text,
    ]) {
      expect(text).not.toContain(READER_PASSWORD);
    }
    expect(created.allParameters.find((p: { key: string }) => p.key === "password")).toEqual({ key: "password", systemAccess: false });

    const row = await storedConnectionRow(account.id, created.id);
    expect(JSON.stringify(row)).not.toContain(READER_PASSWORD);
    const stored = JSON.parse(row!.parameters as string).find((p: { key: string }) => p.key === "password");
    expect(Object.keys(stored).sort()).toEqual(["key", "sealed", "systemAccess"]);

    // Sent back as GET answered it (the password without a value): the stored one is kept.
    const updated = await call("PUT", `/api/connections/${created.id}`, { as: as(manager), body: { ...connectionBody(created.name), allParameters: created.allParameters } });
    expect(updated.status).toBe(200);
    expect(updated.text).not.toContain(READER_PASSWORD);
    expect((await call("GET", `/api/connections/${created.id}/schema`, { as: as(member) })).json).toEqual({ content: ["hr", "public", "sales"] });

    // A new value replaces it: a wrong one, then the data store refuses the login.
    await call("PUT", `/api/connections/${created.id}`, { as: as(manager), body: connectionBody(created.name, { allParameters: postgresParameters({ password: "Wr0ng-Passw0rd-!" }) }) });
    const refused = await call("GET", `/api/connections/${created.id}/schema`, { as: as(member) });
    expectError(refused, 422, "DATA_STORE_AUTH_FAILED");
    expect(refused.text).not.toContain("Wr0ng-Passw0rd-!");
  });

  it("validate fills a key sent without a value from the account's stored connection named by `id`", async () => {
    const created = await createConnection(manager, connectionBody(unique("Stored")));
    const withoutPassword = postgresParameters({ password: undefined });
    const fromStored = await call("POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v"), { id: created.id, allParameters: withoutPassword }) });
    expect(fromStored.json).toMatchObject({ connected: true });
    const none = await call("POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v"), { allParameters: withoutPassword }) });
    expect(none.json).toMatchObject({ connected: false, message: expect.stringMatching(/password/i) });
  });

  it("without CONNECTION_SECRETS_KEY: a secret is never stored (409); a connection without one is; validate needs no key", async () => {
    const noKey = { CONNECTION_SECRETS_KEY: undefined };
    const before = await dbSnapshot();
    const refused = await callWithVars(noKey, "POST", "/api/connections", { as: as(manager), body: connectionBody(unique("NoKey")) });
    expectError(refused, 409, "CONNECTION_SECRETS_UNAVAILABLE");
    expect(refused.text).not.toContain(READER_PASSWORD);
    expect(await dbSnapshot()).toEqual(before);
    const validated = await callWithVars(noKey, "POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("NoKey")) });
    expect(validated.json).toMatchObject({ connected: true });
    const keyless = await callWithVars(noKey, "POST", "/api/connections", { as: as(manager), body: connectionBody(unique("NoSecret"), { allParameters: postgresParameters({ password: "" }) }) });
    expect(keyless.status, keyless.text).toBe(201);
  });

  it("rotate: an older key still opens stored secrets, a write seals them again with the current one, a retired key is a 409", async () => {
    const created = await createConnection(manager, connectionBody(unique("Rotated")));
    const current = env.CONNECTION_SECRETS_KEY!;
    const rotated = { CONNECTION_SECRETS_KEY: `a-brand-new-key,${current}` };
    const first = await callWithVars(rotated, "GET", `/api/connections/${created.id}/schema`, { as: as(member) });
    expect(first.status, `${current} ${first.text}`).toBe(200);
    const sealedBefore = JSON.parse((await storedConnectionRow(account.id, created.id))!.parameters as string).find((p: { key: string }) => p.key === "password").sealed;
    const rewritten = await callWithVars(rotated, "PUT", `/api/connections/${created.id}`, { as: as(manager), body: { ...connectionBody(created.name), allParameters: created.allParameters } });
    expect(rewritten.status).toBe(200);
    const sealedAfter = JSON.parse((await storedConnectionRow(account.id, created.id))!.parameters as string).find((p: { key: string }) => p.key === "password").sealed;
    expect(sealedAfter).not.toBe(sealedBefore);
    // Only the new key now: it opens what it sealed.
    expect((await callWithVars({ CONNECTION_SECRETS_KEY: "a-brand-new-key" }, "GET", `/api/connections/${created.id}/schema`, { as: as(member) })).status).toBe(200);
    const retired = await callWithVars({ CONNECTION_SECRETS_KEY: current }, "GET", `/api/connections/${created.id}/schema`, { as: as(member) });
    expectError(retired, 409, "CONNECTION_SECRETS_UNAVAILABLE");
  });
});

describe("the CONNECTION quota", () => {
  it("counts connections and holds under concurrency: 8 simultaneous creates against a limit of 3 make exactly 3", async () => {
    const quotaAccount = await createAccount();
    const creator = await createUser(quotaAccount.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
    expect((await call("PUT", "/api/quota", { body: { accountId: quotaAccount.id, quotas: [{ type: "CONNECTION", limit: 3 }] } })).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call("POST", "/api/connections", { as: as(creator), body: connectionBody(`Quota ${i}`) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const refused of results.filter((r) => r.status !== 201)) expectError(refused, 409, "QUOTA_EXCEEDED");
    const quota = await call("GET", `/api/quota/${quotaAccount.id}`);
    expect(quota.json.quotas).toEqual([{ type: "CONNECTION", limit: 3, consumption: 3 }]);
  });
});

describe("D1 round trips", () => {
  it("E6: a create and an update cost 2 (one read, one batch); GET 1; a list page of 500 connections 1", async () => {
    const id = unique("trips").toLowerCase();
    const created = await call("PUT", `/api/connections/${id}`, { as: as(manager), body: connectionBody(unique("Trips")) });
    expect(roundTrips(created), "create").toBe(2);
    const updated = await call("PUT", `/api/connections/${id}`, { as: as(manager), body: connectionBody(unique("Trips")) });
    expect(updated.status).toBe(200);
    expect(roundTrips(updated)).toBe(2);
    expect(roundTrips(await call("GET", `/api/connections/${id}`, { as: as(member) })), "GET").toBe(1);

    // 500 connections, loaded as rows (the benchmark makes its 500 through the API).
    const big = await createAccount();
    const reader = await createUser(big.id);
    const now = new Date().toISOString();
    const database = await accountDatabase(big.id);
    const statements = Array.from({ length: 500 }, (_, i) =>
      database.prepare(
        "INSERT INTO connections (id, account_id, name, connection_type_id, parameters, creating_user_name, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) VALUES (?, ?, ?, 'postgresql', ?, 'seed', 'seed', ?, 'seed', ?)",
      ).bind(`c${i}`, big.id, `Connection ${String(i).padStart(3, "0")}`, JSON.stringify(postgresParameters({ password: undefined }).map((p) => ({ ...p, systemAccess: false }))), now, now),
    );
    await database.batch(statements);
    await call("GET", "/api/connections?name=none", { as: as(reader) }); // signs the reader in: its credential is cached from now on
    const list = await call("GET", "/api/connections", { as: as(reader) });
    expect(list.json.content).toHaveLength(500);
    expect(roundTrips(list)).toBe(1);
  });

  it("E7 reads D1 once (the type, and the stored connection it may name) and then only the data store", async () => {
    const res = await call("POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v")) });
    expect(res.json.connected).toBe(true);
    expect(roundTrips(res)).toBe(1);
  });
});

describe("deleting a connection that sources use", () => {
  it("is refused (409) naming the sources; a source must name a connection of its own account (400)", async () => {
    const connection = await createConnection(manager, connectionBody(unique("Used")));
    const source = await call("POST", "/api/sources", { as: as(admin), body: { name: unique("Orders"), connectionId: connection.id } });
    expect(source.status, source.text).toBe(201);
    expect(source.json.connectionId).toBe(connection.id);
    const before = await dbSnapshot();
    const refused = await call("DELETE", `/api/connections/${connection.id}`, { as: as(manager) });
    expectError(refused, 409, "CONNECTION_IN_USE", ["id"]);
    expect(refused.json.problems[0].dependencies[connection.name].accessible).toEqual([{ id: source.json.id, name: source.json.name, type: "SOURCE" }]);
    expectError(await call("POST", "/api/sources", { as: as(admin), body: { name: unique("Orphan"), connectionId: "no-such-connection" } }), 400, "VALIDATION_FAILED", ["body.connectionId"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("DELETE", `/api/sources/${source.json.id}`, { as: as(admin) })).status).toBe(204);
    expect((await call("DELETE", `/api/connections/${connection.id}`, { as: as(manager) })).status).toBe(204);
  });

  it("holds under concurrency: a delete and a source create fired together never leave a source on a deleted connection", async () => {
    for (let round = 0; round < 5; round++) {
      const connection = await createConnection(manager, connectionBody(unique("Race")));
      const [deleted, created] = await Promise.all([
        call("DELETE", `/api/connections/${connection.id}`, { as: as(manager) }),
        call("POST", "/api/sources", { as: as(admin), body: { name: unique("Racing"), connectionId: connection.id } }),
      ]);
      const outcome = `${deleted.status}/${created.status}`;
      expect(["204/400", "409/201"], `${outcome} ${deleted.text} ${created.text}`).toContain(outcome);
    }
  });
});

describe("isolation between accounts", () => {
  it("another account's connection is a 404 on every route, a 400 in a source, and its id is free for the caller's own", async () => {
    const otherAccount = await createAccount();
    const otherAdmin = await createUser(otherAccount.id, { groups: ["Users", "Administrators"] });
    const theirs = await createConnection(otherAdmin, connectionBody(unique("Theirs")));
    const unknown = "no-such-connection";
    const before = await dbSnapshot();
    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["DELETE", "", undefined],
      ["GET", "/schema", undefined],
      ["GET", "/schema/sales/describe", undefined],
      ["POST", "/preview", { schema: "sales", table: "customers" }],
    ] as const) {
      const res = await call(method, `/api/connections/${theirs.id}${suffix}`, { as: as(admin), body });
      const missing = await call(method, `/api/connections/${unknown}${suffix}`, { as: as(admin), body });
      expectError(res, 404, "NOT_FOUND");
      expect(res.json.message).toBe(missing.json.message);
    }
    expectError(await call("POST", "/api/sources/data-entities/describe", { as: as(admin), body: { connectionId: theirs.id, schema: "sales", table: "customers" } }), 404, "NOT_FOUND");
    expectError(await call("POST", "/api/sources", { as: as(admin), body: { name: unique("Borrowed"), connectionId: theirs.id } }), 400, "VALIDATION_FAILED", ["body.connectionId"]);
    // Their stored password does not fill ours.
    const validated = await call("POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v"), { id: theirs.id, allParameters: postgresParameters({ password: undefined }) }) });
    expect(validated.json.connected).toBe(false);
    expect((await call("GET", "/api/connections", { as: as(admin) })).json.content.map((c: { id: string }) => c.id)).not.toContain(theirs.id);
    expect(await dbSnapshot()).toEqual(before);

    // PUT to their id makes our own connection; theirs is untouched.
    const ours = await call("PUT", `/api/connections/${theirs.id}`, { as: as(manager), body: connectionBody(unique("Ours")) });
    expect(ours.status).toBe(201);
    expect(ours.json.accountId).toBe(account.id);
    const stillTheirs = await call("GET", `/api/connections/${theirs.id}`, { as: as(otherAdmin) });
    expect(stillTheirs.json).toEqual(theirs);
  });
});

describe("E7 validate: really connecting", () => {
  const validate = (allParameters = postgresParameters(), vars?: Record<string, string>) =>
    vars
      ? callWithVars(vars, "POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v"), { allParameters }) })
      : call("POST", "/api/connections/validate", { as: as(manager), body: connectionBody(unique("v"), { allParameters }) });

  it("connects, and says what deserves attention", async () => {
    const res = await validate();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      connected: true,
      message: "Connected to PostgreSQL 18.4 as reader.".replace("18.4", res.json.message.match(/PostgreSQL (\S+) /)[1]),
      warning: 'The connection is not encrypted (TLS mode "disable"): the password and the data cross the network in clear text.',
    });
  });

  it("a wrong password, a server that is down and a time-out are connected: false with a clear message, never a 5xx", async () => {
    const wrong = await validate(postgresParameters({ password: "Wr0ng-Passw0rd-!" }));
    expect(wrong.status).toBe(200);
    expect(wrong.json).toEqual({ connected: false, message: 'Password authentication failed for user "reader"' });
    expect(wrong.text).not.toContain("Wr0ng-Passw0rd-!");

    const down = await validate(postgresParameters({ port: String(servers.closedPort) }));
    expect(down.json).toMatchObject({ connected: false, message: expect.stringContaining(`Could not connect to 127.0.0.1:${servers.closedPort}`) });

    const silent = await validate(postgresParameters({ port: String(servers.blackHolePort) }), { CONNECTOR_CONNECT_TIMEOUT_MS: "800" });
    expect(silent.json).toEqual({ connected: false, message: `Could not connect to 127.0.0.1:${servers.blackHolePort} within 800 ms.` });

    const noDatabase = await validate(postgresParameters({ database: "no_such_db" }));
    expect(noDatabase.json).toEqual({ connected: false, message: 'Database "no_such_db" does not exist' });
  });

  it("a host outside CONNECTOR_ALLOWED_HOSTS is refused before anything is contacted or stored (400 naming the host)", async () => {
    const before = await dbSnapshot();
    for (const host of ["db.example.com", "10.0.0.5", "localhost", "169.254.169.254"]) {
      const res = await validate(postgresParameters({ host }));
      expectError(res, 400, "VALIDATION_FAILED", ["body.allParameters[0]"]);
      const stored = await call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("x"), { allParameters: postgresParameters({ host }) }) });
      expectError(stored, 400, "VALIDATION_FAILED", ["body.allParameters[0]"]);
    }
    // With only public hosts allowed, the loopback address is refused too.
    const loopback = await validate(postgresParameters(), { CONNECTOR_ALLOWED_HOSTS: "*" });
    expect(loopback.json.problems[0].message).toContain("loopback");
    expect(await dbSnapshot()).toEqual(before);
  });
});
