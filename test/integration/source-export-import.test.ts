import { describe, expect, it } from "vitest";
import { READER_PASSWORD } from "../global-setup/fixture-data.mjs";
import { connectionBody, createConnection } from "./connection-helpers";
import { as, call, createAccount, createUser, dbSnapshot, expectError, unique, type TestUser } from "./helpers";

/** GET /api/sources/export and POST /api/sources/import (docs/export-import.md). */
async function world() {
  const account = await createAccount(unique("Migr"));
  const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  return { account, admin };
}

async function sourceWith(admin: TestUser, connectionId: string | null, name = unique("Flights")) {
  const res = await call("POST", "/api/sources", {
    as: as(admin),
    body: {
      name,
      description: "flights",
      connectionId,
      fields: [
        { name: "carrier", origin: { type: "NATIVE", nativeOrigin: { originalName: "carrier", originalType: "VARCHAR" } } },
        { name: "price", origin: { type: "NATIVE", nativeOrigin: { originalName: "price", originalType: "DECIMAL(10,2)" } } },
        { name: "seats", origin: { type: "NATIVE", nativeOrigin: { originalName: "seats", originalType: "INT" } } },
      ],
    },
  });
  expect(res.status, res.text).toBe(201);
  const id = res.json.id as string;
  const derived = await call("POST", `/api/sources/${id}/fields`, {
    as: as(admin),
    body: { name: "price_with_tax", origin: { type: "DERIVED", derivedOrigin: { expression: "price * 1.2" } } },
  });
  expect(derived.status, derived.text).toBe(201);
  const metric = await call("PUT", `/api/sources/${id}/custom-metrics/price_per_seat`, { as: as(admin), body: { expression: "sum(price) / sum(seats)", label: "Price per seat" } });
  expect(metric.status, metric.text).toBe(201);
  const second = await call("PUT", `/api/sources/${id}/custom-metrics/double_pps`, { as: as(admin), body: { expression: "price_per_seat * 2" } });
  expect(second.status, second.text).toBe(201);
  expect((await call("PUT", `/api/sources/${id}/security`, { as: as(admin), body: { fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } } })).status).toBe(200);
  return id;
}

/** The bundle without what is specific to an account: the ids. */
function comparable(bundle: any) {
  return {
    connections: bundle.connections.map(({ id: _id, ...rest }: any) => rest),
    sources: bundle.sources.map((s: any) => ({ ...s, definition: { ...s.definition, id: undefined, connectionId: s.definition.connectionId === null ? null : "set" } })),
  };
}

describe("source export and import", () => {
  it("round-trips sources with their connection into an empty account, never showing a secret, and imports again as the settings say", async () => {
    const a = await world();
    const connection = await createConnection(a.admin, connectionBody(unique("Sales DB")));
    const s1 = await sourceWith(a.admin, connection.id);
    const s2 = await sourceWith(a.admin, null);

    const exported = await call("GET", `/api/sources/export?ids=${s1},${s2}`, { as: as(a.admin) });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.text).not.toContain(READER_PASSWORD);
    expect(exported.json.version).toBe("1");
    expect(exported.json.connections).toHaveLength(1);
    expect(exported.json.connections[0].allParameters.find((p: any) => p.key === "password")).toEqual({ key: "password", systemAccess: false });
    expect(exported.json.sources.map((s: any) => s.definition.id)).toEqual([s1, s2]);
    expect(exported.json.sources[0].customMetrics.map((m: any) => m.name).sort()).toEqual(["Volume", "double_pps", "price_per_seat"]);
    // Repeated ids are the same request.
    expect((await call("GET", `/api/sources/export?ids=${s1}&ids=${s2}`, { as: as(a.admin) })).json).toEqual(exported.json);

    // B: the connection needs its secret, which the bundle does not carry.
    const b = await world();
    const refused = await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json });
    expectError(refused, 400, "VALIDATION_FAILED", ["body.connections[0].allParameters[4]", "body.sources[0].definition.connectionId"]);
    const dry = await call("POST", "/api/sources/import?dryRun=true", { as: as(b.admin), body: exported.json });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.connections[0].status).toBe("FAILED");
    expect(dry.json.sources.map((s: any) => s.status)).toEqual(["FAILED", "CAN_BE_CREATED"]);

    // With the connection made in B by name (its own password), the import reuses it.
    const bConnection = await createConnection(b.admin, connectionBody(connection.name));
    const before = await dbSnapshot();
    const dryAgain = await call("POST", "/api/sources/import?dryRun=true", { as: as(b.admin), body: exported.json });
    expect(dryAgain.json.sources.map((s: any) => s.status)).toEqual(["CAN_BE_CREATED", "CAN_BE_CREATED"]);
    expect(dryAgain.json.connections[0]).toMatchObject({ status: "CAN_BE_REUSED", id: bConnection.id });
    expect(await dbSnapshot()).toEqual(before);

    const imported = await call("POST", "/api/sources/import?enableDefaultRead=true", { as: as(b.admin), body: exported.json });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.connections[0]).toMatchObject({ status: "REUSED", id: bConnection.id });
    expect(imported.json.sources.map((s: any) => s.status)).toEqual(["CREATED", "CREATED"]);
    expect(imported.json.sources[0].dependencies).toEqual([{ type: "CONNECTION", id: bConnection.id }]);
    const newIds = imported.json.sources.map((s: any) => s.id);
    expect(newIds).not.toContain(s1);

    const again = await call("GET", `/api/sources/export?ids=${newIds.join(",")}`, { as: as(b.admin) });
    expect(again.status, again.text).toBe(200);
    expect(again.json.sources[0].definition.connectionId).toBe(bConnection.id);
    expect(comparable(again.json)).toEqual(comparable(exported.json));

    // The built-in Users group may READ them (enableDefaultRead).
    const reader = await createUser(b.account.id, { groups: ["Users"] });
    expect((await call("GET", `/api/sources/${newIds[0]}`, { as: as(reader) })).status).toBe(200);

    // Again: reused by default; updated when the settings say so.
    const reused = await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json });
    expect(reused.json.sources.map((s: any) => [s.status, s.id])).toEqual(newIds.map((id: string) => ["REUSED", id]));
    const changed = structuredClone(exported.json);
    changed.sources[0].definition.description = "changed";
    changed.sources[0].customMetrics = changed.sources[0].customMetrics.filter((m: any) => m.name !== "double_pps");
    changed.importSettings = { objectClassLevel: { sources: { ifExists: "UPDATE", ifDoesNotExist: "CREATE" } }, objectLevel: { sources: { [s2]: { ifExists: "REUSE", ifDoesNotExist: "CREATE" } } } };
    const updated = await call("POST", "/api/sources/import", { as: as(b.admin), body: changed });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.sources.map((s: any) => s.status)).toEqual(["UPDATED", "REUSED"]);
    const afterUpdate = await call("GET", `/api/sources/export?ids=${newIds[0]}`, { as: as(b.admin) });
    expect(afterUpdate.json.sources[0].definition.description).toBe("changed");
    expect(afterUpdate.json.sources[0].customMetrics.map((m: any) => m.name).sort()).toEqual(["Volume", "price_per_seat"]);

    // One event per object written, none with a secret.
    const events = await call("GET", `/api/audit-events?accountId=${b.account.id}&action=source.*`, { as: as(b.admin) });
    const actions = events.json.content.map((e: any) => e.action);
    expect(actions.filter((x: string) => x === "source.create")).toHaveLength(2);
    expect(actions.filter((x: string) => x === "source.update")).toHaveLength(1);
    expect(events.text).not.toContain(READER_PASSWORD);
  }, 60_000);

  it("keeps the target connection's secret on UPDATE and creates a connection whose bundle has no secret", async () => {
    const a = await world();
    const connection = await createConnection(a.admin, connectionBody(unique("Sales DB")));
    const s1 = await sourceWith(a.admin, connection.id);
    const bundle = (await call("GET", `/api/sources/export?ids=${s1}`, { as: as(a.admin) })).json;
    const b = await world();
    await createConnection(b.admin, connectionBody(connection.name, { disabled: true }));
    bundle.importSettings = { globalLevel: { ifExists: "UPDATE", ifDoesNotExist: "CREATE" } };
    const res = await call("POST", "/api/sources/import", { as: as(b.admin), body: bundle });
    expect(res.status, res.text).toBe(200);
    expect(res.json.connections[0].status).toBe("UPDATED");
    expect(res.text).not.toContain(READER_PASSWORD);
    const tested = await call("POST", `/api/connections/${res.json.connections[0].id}/test`, { as: as(b.admin) });
    expect(tested.json.connected, tested.text).toBe(true);
    const events = await call("GET", `/api/audit-events?accountId=${b.account.id}&action=connection.update`, { as: as(b.admin) });
    expect(events.json.content).toHaveLength(1);
    expect(events.text).not.toContain(READER_PASSWORD);
  }, 60_000);

  it("with X-Export-Passphrase, carries the connection's secret sealed: the import opens it, and the new connection connects", async () => {
    const passphrase = "correct horse battery staple";
    const a = await world();
    const connection = await createConnection(a.admin, connectionBody(unique("Sales DB")));
    const s1 = await sourceWith(a.admin, connection.id);
    const exported = await call("GET", `/api/sources/export?ids=${s1}`, { as: as(a.admin), headers: { "X-Export-Passphrase": passphrase } });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.text).not.toContain(READER_PASSWORD);
    expect(exported.json.secretsSealing).toMatchObject({ kdf: "PBKDF2-HMAC-SHA-256", iterations: 100000, cipher: "AES-256-GCM" });
    const password = exported.json.connections[0].allParameters.find((p: any) => p.key === "password");
    expect(password).toEqual({ key: "password", sealedValue: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/), systemAccess: false });
    // The same export again: the same bytes.
    expect((await call("GET", `/api/sources/export?ids=${s1}`, { as: as(a.admin), headers: { "X-Export-Passphrase": passphrase } })).text).toBe(exported.text);

    const b = await world();
    const before = await dbSnapshot();
    // The connection's sealed password, and so the source that uses the connection.
    const SEALED_VALUE_REFUSED = ["body.connections[0].allParameters[4].sealedValue", "body.sources[0].definition.connectionId"];
    // Without the passphrase, or with another one, or too short: refused, nothing written.
    expectError(await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json }), 400, "VALIDATION_FAILED", SEALED_VALUE_REFUSED);
    const wrong = await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json, headers: { "X-Export-Passphrase": "another long passphrase" } });
    expectError(wrong, 400, "VALIDATION_FAILED", SEALED_VALUE_REFUSED);
    expectError(await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json, headers: { "X-Export-Passphrase": "short" } }), 400, "INVALID_PASSPHRASE");
    const renamed = structuredClone(exported.json);
    renamed.connections[0].name = unique("Other DB");
    const moved = await call("POST", "/api/sources/import", { as: as(b.admin), body: renamed, headers: { "X-Export-Passphrase": passphrase } });
    expectError(moved, 400, "VALIDATION_FAILED", SEALED_VALUE_REFUSED);
    expect(await dbSnapshot()).toEqual(before);

    const imported = await call("POST", "/api/sources/import", { as: as(b.admin), body: exported.json, headers: { "X-Export-Passphrase": passphrase } });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.connections[0].status).toBe("CREATED");
    expect(imported.text).not.toContain(READER_PASSWORD);
    const tested = await call("POST", `/api/connections/${imported.json.connections[0].id}/test`, { as: as(b.admin) });
    expect(tested.json.connected, tested.text).toBe(true);
    // Stored sealed with this deployment's key, not the bundle's: B's own export without a passphrase shows no value.
    const again = await call("GET", `/api/sources/export?ids=${imported.json.sources[0].id}`, { as: as(b.admin) });
    expect(again.json.connections[0].allParameters.find((p: any) => p.key === "password")).toEqual({ key: "password", systemAccess: false });
    const events = await call("GET", `/api/audit-events?accountId=${b.account.id}&action=connection.create`, { as: as(b.admin) });
    expect(events.json.content).toHaveLength(1);
    expect(events.text).not.toContain(READER_PASSWORD);
    expect(events.text).not.toContain(password.sealedValue);
  }, 60_000);

  it("refuses unknown members, another account's source (404), and a source it may not READ (403), changing nothing", async () => {
    const a = await world();
    const b = await world();
    const theirs = await sourceWith(b.admin, null);
    expectError(await call("GET", `/api/sources/export?ids=${theirs}`, { as: as(a.admin) }), 404, "NOT_FOUND");
    const mine = await sourceWith(a.admin, null);
    const manager = await createUser(a.account.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
    expectError(await call("GET", `/api/sources/export?ids=${mine}`, { as: as(manager) }), 403, "FORBIDDEN");
    const bundle = (await call("GET", `/api/sources/export?ids=${mine}`, { as: as(a.admin) })).json;
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/sources/import", { as: as(a.admin), body: { ...bundle, extra: 1 } }), 400, "VALIDATION_FAILED", ["body.extra"]);
    const wrongConnection = structuredClone(bundle);
    wrongConnection.sources[0].definition.connectionId = "nope";
    expectError(await call("POST", "/api/sources/import", { as: as(a.admin), body: wrongConnection }), 400, "VALIDATION_FAILED", ["body.sources[0].definition.connectionId"]);
    const broken = structuredClone(bundle);
    broken.importSettings = { globalLevel: { ifExists: "CREATE", ifDoesNotExist: "CREATE" } };
    expectError(await call("POST", "/api/sources/import", { as: as(a.admin), body: broken }), 400, "VALIDATION_FAILED", ["body.sources[0]"]);
    const badMetric = structuredClone(bundle);
    badMetric.sources[0].definition.name = unique("Other");
    badMetric.sources[0].customMetrics.push({ name: "bad", expression: "sum(nope)" });
    expectError(await call("POST", "/api/sources/import", { as: as(a.admin), body: badMetric }), 400, "VALIDATION_FAILED", ["body.sources[0].customMetrics[3].expression"]);
    expect(await dbSnapshot()).toEqual(before);
  }, 60_000);

  it("two simultaneous imports of one new source make one source, and no 500", async () => {
    const a = await world();
    const bundle = (await call("GET", `/api/sources/export?ids=${await sourceWith(a.admin, null)}`, { as: as(a.admin) })).json;
    const b = await world();
    const answers = await Promise.all([1, 2, 3].map(() => call("POST", "/api/sources/import", { as: as(b.admin), body: bundle })));
    for (const res of answers) expect([200, 409], res.text).toContain(res.status);
    const statuses = answers.filter((r) => r.status === 200).map((r) => r.json.sources[0].status);
    expect(statuses.filter((s) => s === "CREATED")).toHaveLength(1);
    const list = await call("GET", "/api/sources", { as: as(b.admin) });
    expect(list.json.content.filter((s: any) => s.name === bundle.sources[0].definition.name)).toHaveLength(1);
  }, 60_000);

  it("holds the SOURCE quota", async () => {
    const a = await world();
    const bundle = (await call("GET", `/api/sources/export?ids=${await sourceWith(a.admin, null)}`, { as: as(a.admin) })).json;
    const b = await world();
    expect((await call("PUT", "/api/quota", { body: { accountId: b.account.id, quotas: [{ type: "SOURCE", limit: 0 }] } })).status).toBe(201);
    expectError(await call("POST", "/api/sources/import", { as: as(b.admin), body: bundle }), 409, "QUOTA_EXCEEDED");
  }, 60_000);
});
