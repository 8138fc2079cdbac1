import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, expectError, unique, shardNameOf } from "../helpers";

/**
 * POST /api/accounts/{id}/move through the Worker over a directory (DB) and two shards (DB,
 * SHARD_2): the API's side of a move (db/shards/move.ts has its own tests of the copying).
 */
const DATABASES = { DB: env.DB, SHARD_2: env.SHARD_2 } as const;
type ShardName = keyof typeof DATABASES;

const shardOf = shardNameOf;
const groupsOn = async (database: D1Database, accountId: string) =>
  (await database.prepare("SELECT id FROM groups WHERE account_id = ? ORDER BY id").bind(accountId).all<{ id: string }>()).results.map((r) => r.id);
const other = (name: ShardName): ShardName => (name === "DB" ? "SHARD_2" : "DB");

async function accountWithData() {
  const account = await createAccount();
  const admin = await createUser(account.id, { groups: ["Administrators"] });
  await createGroup(account.id, unique("g"));
  return { account, admin, home: await shardOf(account.id) };
}

describe("POST /api/accounts/{id}/move", () => {
  it("moves an account with its rows, after which its users work on the new shard, and back", async () => {
    const { account, admin, home } = await accountWithData();
    const groups = await groupsOn(DATABASES[home], account.id);
    const away = other(home);
    const res = await call("POST", `/api/accounts/${account.id}/move`, { body: { shard: away } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: account.id, from: home, shard: away, moved: true });
    expect(res.json.tables.find((t: { table: string }) => t.table === "groups")).toEqual({ table: "groups", rows: 3 });
    expect(await shardOf(account.id)).toBe(away);
    expect(await groupsOn(DATABASES[away], account.id)).toEqual(groups);
    expect(await groupsOn(DATABASES[home], account.id)).toEqual([]);
    expect((await call("GET", `/api/accounts/${account.id}`)).json).toMatchObject({ shard: away, numberOfUsers: 1 });

    // Its user signs in and writes where the account now is.
    const made = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("after"), privileges: [] } });
    expect(made.status, made.text).toBe(201);
    expect(await groupsOn(DATABASES[away], account.id)).toContain(made.json.id);
    // The move is audited, on the account's new shard.
    const events = await call("GET", `/api/audit-events?accountId=${account.id}&action=account.move`);
    expect(events.status, events.text).toBe(200);
    expect(JSON.stringify(events.json)).toContain(away);

    const back = await call("POST", `/api/accounts/${account.id}/move`, { body: { shard: home } });
    expect(back.json).toMatchObject({ from: away, shard: home, moved: true });
    expect(await groupsOn(DATABASES[home], account.id)).toEqual([...groups, made.json.id].sort());
    expect(await groupsOn(DATABASES[away], account.id)).toEqual([]);
  });

  it("changes nothing for a move to the shard the account is on", async () => {
    const { account, home } = await accountWithData();
    const res = await call("POST", `/api/accounts/${account.id}/move`, { body: { shard: home } });
    expect(res.json).toEqual({ id: account.id, from: home, shard: home, moved: false, tables: [] });
  });

  it("refuses a shard the deployment does not have, an unknown account, and another caller than the supervisor", async () => {
    const { account, admin } = await accountWithData();
    expectError(await call("POST", `/api/accounts/${account.id}/move`, { body: { shard: "SHARD_9" } }), 400, "VALIDATION_FAILED", ["body.shard"]);
    expectError(await call("POST", `/api/accounts/${account.id}/move`, { body: { shard: "DB", extra: 1 } }), 400, "VALIDATION_FAILED");
    expectError(await call("POST", `/api/accounts/${crypto.randomUUID()}/move`, { body: { shard: "DB" } }), 404, "NOT_FOUND");
    expectError(await call("POST", `/api/accounts/${account.id}/move`, { as: as(admin), body: { shard: "DB" } }), 403, "FORBIDDEN");
  });

  it("runs one of two simultaneous moves of an account; the other is refused or finds it moved", async () => {
    const { account, home } = await accountWithData();
    const groups = await groupsOn(DATABASES[home], account.id);
    const away = other(home);
    const both = await Promise.all([0, 1].map(() => call("POST", `/api/accounts/${account.id}/move`, { body: { shard: away } })));
    const moved = both.filter((r) => r.status === 200 && r.json.moved);
    expect(moved).toHaveLength(1);
    for (const r of both.filter((r) => !(r.status === 200 && r.json.moved))) {
      if (r.status === 200) expect(r.json.moved).toBe(false);
      else expectError(r, 409, "ACCOUNT_MOVING");
    }
    expect(await groupsOn(DATABASES[away], account.id)).toEqual(groups);
    expect(await groupsOn(DATABASES[home], account.id)).toEqual([]);
  });

  it("loses no write made while the account moves: each is refused (409) or lands on the shard the account ends on", async () => {
    const { account, admin, home } = await accountWithData();
    const away = other(home);
    const writes = Array.from({ length: 12 }, (_, i) => call("POST", "/api/groups", { as: as(admin), body: { name: `during-${i}`, privileges: [] } }));
    const [moveRes, ...answers] = await Promise.all([call("POST", `/api/accounts/${account.id}/move`, { body: { shard: away } }), ...writes]);
    expect(moveRes.status, moveRes.text).toBe(200);
    const created: string[] = [];
    for (const r of answers) {
      if (r.status === 201) created.push(r.json.id);
      else expectError(r, 409, "ACCOUNT_MOVING");
    }
    const onAway = await groupsOn(DATABASES[away], account.id);
    for (const id of created) expect(onAway).toContain(id);
    expect(await groupsOn(DATABASES[home], account.id)).toEqual([]);
    // Writes refused during the move go through once it is over.
    const retry = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("retry"), privileges: [] } });
    expect(retry.status, retry.text).toBe(201);
  });
});
