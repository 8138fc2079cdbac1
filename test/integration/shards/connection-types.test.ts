import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, expectError, unique, type TestUser, shardNameOf } from "../helpers";
import { callWithVars, connectionBody, createConnection, roundTrips } from "../connection-helpers";

/**
 * Connection types over a directory and two shards (docs/connections.md, "Over several databases"): DB is
 * the directory and the first shard, SHARD_2 the second and keeps copies of every type and of its
 * list of accounts. Every request goes through the real Worker; the databases are read directly
 * only to see what each holds.
 */
const DATABASES = { DB: env.DB, SHARD_2: env.SHARD_2 } as const;
type ShardName = keyof typeof DATABASES;

const shardOf = shardNameOf;

/** The type's row and its list of accounts as one database holds them (null: no row). */
async function typeOn(name: ShardName, id: string) {
  const database = DATABASES[name];
  const row = await database.prepare("SELECT * FROM connection_types WHERE id = ?").bind(id).first();
  const accounts = (await database.prepare("SELECT account_id FROM connection_type_accounts WHERE type_id = ? ORDER BY account_id").bind(id).all<{ account_id: string }>()).results;
  return row ? { row, accounts: accounts.map((a) => a.account_id) } : null;
}

/** The copy on SHARD_2 is the directory's row and list, value for value. */
async function expectCopied(id: string) {
  const directory = await typeOn("DB", id);
  expect(directory).not.toBeNull();
  expect(await typeOn("SHARD_2", id)).toEqual(directory);
}

const typeBody = (overrides: Record<string, unknown> = {}) => ({ connectorId: "postgresql", name: unique("Warehouse"), ...overrides });

async function createType(overrides: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/connection/types", { body: typeBody(overrides) });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; name: string };
}

/** An account with a connection manager on each shard. */
const placed: Partial<Record<ShardName, { id: string; name: string; manager: TestUser }>> = {};

beforeAll(async () => {
  for (let i = 0; i < 6 && !(placed.DB && placed.SHARD_2); i++) {
    const account = await createAccount();
    const shard = await shardOf(account.id);
    if (!placed[shard]) placed[shard] = { ...account, manager: await createUser(account.id, { groups: ["Users", "Administrators"] }) };
  }
  expect(Object.keys(placed).sort()).toEqual(["DB", "SHARD_2"]);
});

const on = (name: ShardName) => placed[name]!;

describe("connection types over a directory and two shards", () => {
  it("a type the supervisor creates is copied to SHARD_2 and used by connections of accounts on both shards", async () => {
    const type = await createType();
    await expectCopied(type.id);
    for (const name of ["DB", "SHARD_2"] as const) {
      const { manager, id: accountId } = on(name);
      // A user reads the types of its own shard: the copy on SHARD_2.
      const listed = await call("GET", "/api/connection/types", { as: as(manager) });
      expect(listed.json.content.map((t: { id: string }) => t.id)).toContain(type.id);
      const connection = await createConnection(manager, connectionBody(unique("Uses"), { connectionTypeId: type.id }));
      expect(connection.connectionTypeId).toBe(type.id);
      const stored = await DATABASES[name].prepare("SELECT connection_type_id FROM connections WHERE account_id = ? AND id = ?").bind(accountId, connection.id).first("connection_type_id");
      expect(stored).toBe(type.id);
      expect((await call("DELETE", `/api/connections/${connection.id}`, { as: as(manager) })).status).toBe(204);
    }
    expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
  });

  it("an update, a list of accounts and a deletion reach every shard; the supervisor reads the directory", async () => {
    const type = await createType();
    const patched = await call("PATCH", `/api/connection/types/${type.id}`, { body: { enabled: false, disabledMessage: "Closed for the night", name: unique("Renamed") } });
    expect(patched.status, patched.text).toBe(200);
    await expectCopied(type.id);
    const refused = await call("POST", "/api/connections", { as: as(on("SHARD_2").manager), body: connectionBody(unique("Late"), { connectionTypeId: type.id }) });
    expectError(refused, 409, "CONNECTION_TYPE_DISABLED");
    expect(refused.json.message).toBe("Closed for the night");
    expect((await call("PATCH", `/api/connection/types/${type.id}`, { body: { enabled: true } })).status).toBe(200);

    // Only the account on SHARD_2: its copy of the list names it; the DB account no longer sees the type.
    const path = `/api/connection/types/${type.id}/accounts`;
    expect((await call("PUT", path, { body: [on("SHARD_2").id] })).status).toBe(200);
    await expectCopied(type.id);
    expect((await typeOn("SHARD_2", type.id))!.accounts).toEqual([on("SHARD_2").id]);
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(on("SHARD_2").manager) })).status).toBe(200);
    expectError(await call("GET", `/api/connection/types/${type.id}`, { as: as(on("DB").manager) }), 404, "NOT_FOUND");
    const other = await call("POST", "/api/connections", { as: as(on("DB").manager), body: connectionBody(unique("c"), { connectionTypeId: type.id }) });
    expectError(other, 400, "VALIDATION_FAILED", ["body.connectionTypeId"]);
    // Only the account on DB: the copy on SHARD_2 names an account that lives elsewhere, so SHARD_2's accounts see nothing of it.
    expect((await call("PUT", path, { body: [on("DB").id] })).status).toBe(200);
    await expectCopied(type.id);
    expectError(await call("GET", `/api/connection/types/${type.id}`, { as: as(on("SHARD_2").manager) }), 404, "NOT_FOUND");
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(on("DB").manager) })).status).toBe(200);
    expect((await call("GET", path)).json).toEqual([on("DB").id]);

    expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
    expect(await typeOn("DB", type.id)).toBeNull();
    expect(await typeOn("SHARD_2", type.id)).toBeNull();
    expectError(await call("GET", `/api/connection/types/${type.id}`), 404, "NOT_FOUND");
  });

  it("refuses to delete a type a connection uses on SHARD_2 only (409 naming it), leaving every copy as it was", async () => {
    const type = await createType();
    expect((await call("PUT", `/api/connection/types/${type.id}/accounts`, { body: [on("DB").id, on("SHARD_2").id] })).status).toBe(200);
    const connection = await createConnection(on("SHARD_2").manager, connectionBody(unique("Holds"), { connectionTypeId: type.id }));
    const before = { DB: await typeOn("DB", type.id), SHARD_2: await typeOn("SHARD_2", type.id) };
    expect(before.SHARD_2).toEqual(before.DB);

    const refused = await call("DELETE", `/api/connection/types/${type.id}`);
    expectError(refused, 409, "CONNECTION_TYPE_IN_USE", ["id"]);
    const users = refused.json.problems[0].dependencies[type.name].accessible;
    expect(users).toEqual([{ id: connection.id, name: connection.name, type: "CONNECTION", parent: { id: on("SHARD_2").id, name: on("SHARD_2").name, type: "ACCOUNT" } }]);
    expect({ DB: await typeOn("DB", type.id), SHARD_2: await typeOn("SHARD_2", type.id) }).toEqual(before);
    // The copies were put back whole: the type still serves both shards.
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(on("DB").manager) })).status).toBe(200);
    expect((await call("GET", `/api/connection/types/${type.id}`, { as: as(on("SHARD_2").manager) })).status).toBe(200);

    expect((await call("DELETE", `/api/connections/${connection.id}`, { as: as(on("SHARD_2").manager) })).status).toBe(204);
    expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
    expect(await typeOn("SHARD_2", type.id)).toBeNull();
  });

  it("holds under concurrency: a delete and a connection create on SHARD_2 fired together never both succeed", async () => {
    const { manager } = on("SHARD_2");
    for (let round = 0; round < 5; round++) {
      const type = await createType();
      const [deleted, created] = await Promise.all([
        call("DELETE", `/api/connection/types/${type.id}`),
        call("POST", "/api/connections", { as: as(manager), body: connectionBody(unique("Racer"), { connectionTypeId: type.id }) }),
      ]);
      const outcome = `${deleted.status}/${created.status}`;
      expect(["204/400", "409/201"], `${outcome} ${deleted.text} ${created.text}`).toContain(outcome);
      if (created.status === 201) {
        await expectCopied(type.id);
        expect((await call("DELETE", `/api/connections/${created.json.id}`, { as: as(manager) })).status).toBe(204);
        expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
      }
      expect(await typeOn("SHARD_2", type.id)).toBeNull();
    }
  });

  it("a copy that missed a write is made right by the type's next write; a copy written later is never replaced by an older one", async () => {
    const type = await createType();
    // As if SHARD_2's copy of the last writes had failed: the type is missing there.
    await env.SHARD_2.prepare("DELETE FROM connection_types WHERE id = ?").bind(type.id).run();
    expectError(await call("GET", `/api/connection/types/${type.id}`, { as: as(on("SHARD_2").manager) }), 404, "NOT_FOUND");
    expect((await call("PATCH", `/api/connection/types/${type.id}`, { body: {} })).status).toBe(200);
    await expectCopied(type.id);

    // A copy stamped later than the directory's row (a later write whose copy arrived first) stays as it is.
    await env.SHARD_2.prepare("UPDATE connection_types SET last_modified_date = '2999-01-01T00:00:00.000Z', description = 'later' WHERE id = ?").bind(type.id).run();
    expect((await call("PATCH", `/api/connection/types/${type.id}`, { body: { description: "older" } })).status).toBe(200);
    expect((await typeOn("SHARD_2", type.id))!.row).toMatchObject({ description: "later" });
    await env.SHARD_2.prepare("UPDATE connection_types SET last_modified_date = '2000-01-01T00:00:00.000Z' WHERE id = ?").bind(type.id).run();

    // A rename that has not reached SHARD_2 does not keep a new type from taking the old name there.
    const renamedAway = type.name;
    await env.DB.prepare("UPDATE connection_types SET name = ? WHERE id = ?").bind(unique("Moved"), type.id).run();
    const taker = await createType({ name: renamedAway });
    await expectCopied(taker.id);
    expect((await typeOn("SHARD_2", type.id))!.row).toMatchObject({ name: `${renamedAway} (${type.id})` });
    expect((await call("PATCH", `/api/connection/types/${type.id}`, { body: {} })).status).toBe(200);
    await expectCopied(type.id);

    for (const id of [type.id, taker.id]) expect((await call("DELETE", `/api/connection/types/${id}`)).status).toBe(204);
  });

  it("an account's deletion takes it out of every copy of the types' lists", async () => {
    const gone = await createAccount();
    const type = await createType();
    expect((await call("PUT", `/api/connection/types/${type.id}/accounts`, { body: [gone.id, on("SHARD_2").id] })).status).toBe(200);
    await expectCopied(type.id);
    expect((await call("DELETE", `/api/accounts/${gone.id}`)).status).toBe(204);
    await expectCopied(type.id);
    expect((await typeOn("SHARD_2", type.id))!.accounts).toEqual([on("SHARD_2").id]);
    expect((await call("GET", `/api/connection/types/${type.id}/accounts`)).json).toEqual([on("SHARD_2").id]);
    expect((await call("DELETE", `/api/connection/types/${type.id}`)).status).toBe(204);
  });

  it("costs one more round trip per write (the copies, in parallel) and none per read", async () => {
    await call("GET", "/api/connection/types?name=none"); // places the supervisor's requests: this isolate remembers where the default account lives
    const created = await call("POST", "/api/connection/types", { body: typeBody() });
    expect(roundTrips(created)).toBe(2);
    const id = created.json.id;
    expect(roundTrips(await call("GET", `/api/connection/types/${id}`))).toBe(1);
    expect(roundTrips(await call("PATCH", `/api/connection/types/${id}`, { body: { description: "x" } }))).toBe(3);
    expect(roundTrips(await call("PUT", `/api/connection/types/${id}/accounts`, { body: [] }))).toBe(3);
    // The read, the copies' deletion, the directory's, the copies' once more (an update's copy may have been on its way).
    expect(roundTrips(await call("DELETE", `/api/connection/types/${id}`))).toBe(4);
  });
});

describe("connection types on one database (SHARDS = DB, the default)", () => {
  const single = { SHARDS: "DB" };

  it("writes the directory only, with today's round trips: nothing reaches SHARD_2's copies", async () => {
    const before = await env.SHARD_2.prepare("SELECT (SELECT count(*) FROM connection_types) AS types, (SELECT max(last_modified_date) FROM connection_types) AS latest, (SELECT count(*) FROM connection_type_accounts) AS listed").first();
    const created = await callWithVars(single, "POST", "/api/connection/types", { body: typeBody() });
    expect(created.status, created.text).toBe(201);
    expect(roundTrips(created)).toBe(1);
    const id = created.json.id;
    const patched = await callWithVars(single, "PATCH", `/api/connection/types/${id}`, { body: { description: "one database" } });
    expect(patched.status, patched.text).toBe(200);
    expect(roundTrips(patched)).toBe(2);
    const listed = await callWithVars(single, "PUT", `/api/connection/types/${id}/accounts`, { body: [on("DB").id] });
    expect(listed.status, listed.text).toBe(200);
    expect(roundTrips(listed)).toBe(2);
    const deleted = await callWithVars(single, "DELETE", `/api/connection/types/${id}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect(roundTrips(deleted)).toBe(2);
    const after = await env.SHARD_2.prepare("SELECT (SELECT count(*) FROM connection_types) AS types, (SELECT max(last_modified_date) FROM connection_types) AS latest, (SELECT count(*) FROM connection_type_accounts) AS listed").first();
    expect(after).toEqual(before);
  });
});
