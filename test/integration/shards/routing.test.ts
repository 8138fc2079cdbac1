import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountOwnedTables, as, call, createAccount, createGroup, createUser, DEFAULT_ACCOUNT_ID, expectError, unique, shardNameOf } from "../helpers";

/**
 * The Worker over a directory and two shards (vitest.config.ts, project integration-shards): DB is
 * the directory and the first shard, SHARD_2 the second (docs/sharding.md). Every request goes
 * through the real Worker; the databases are read directly only to see where rows landed.
 */
const SHARDS = { DB: env.DB, SHARD_2: env.SHARD_2 } as const;
type ShardName = keyof typeof SHARDS;

const shardOf = shardNameOf;

/** How many rows of the account each database holds, table by table (only tables with rows). */
async function rowsOn(database: D1Database, accountId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await accountOwnedTables()) {
    const row = await database.prepare(`SELECT count(*) AS n FROM "${table}" WHERE account_id = ?`).bind(accountId).first<{ n: number }>();
    if (row!.n > 0) counts[table] = row!.n;
  }
  const account = await database.prepare("SELECT count(*) AS n FROM accounts WHERE id = ?").bind(accountId).first<{ n: number }>();
  if (account!.n > 0) counts.accounts = account!.n;
  return counts;
}

/** Creates accounts until one lands on each shard; answers one of each. */
async function accountOnEachShard(): Promise<Record<ShardName, { id: string; name: string }>> {
  const found: Partial<Record<ShardName, { id: string; name: string }>> = {};
  for (let i = 0; i < 4 && !(found.DB && found.SHARD_2); i++) {
    const account = await createAccount();
    found[await shardOf(account.id)] ??= account;
  }
  return found as Record<ShardName, { id: string; name: string }>;
}

describe("accounts over a directory and two shards", () => {
  it("places new accounts on the shard with the fewest accounts, so they land on both", async () => {
    const placed: ShardName[] = [];
    for (let i = 0; i < 4; i++) placed.push(await shardOf((await createAccount()).id));
    const count = (name: ShardName) => placed.filter((p) => p === name).length;
    // The default account is on DB; the first new one goes to the emptier SHARD_2, then they alternate.
    expect(count("DB")).toBeGreaterThan(0);
    expect(count("SHARD_2")).toBeGreaterThan(0);
    expect(Math.abs(count("DB") + 1 - count("SHARD_2"))).toBeLessThanOrEqual(1);
  });

  it("keeps an account's rows on its shard only: the directory holds its entry, its shard the copy and the rest", async () => {
    const { SHARD_2: account } = await accountOnEachShard();
    const user = await createUser(account.id);
    await createGroup(account.id, unique("group"));
    const onShard = await rowsOn(env.SHARD_2, account.id);
    expect(onShard).toMatchObject({ accounts: 1, users: 1, groups: 3, user_groups: 1 });
    // Its audit events commit with its changes, on its shard (docs/audit.md).
    const events = (database: D1Database) => database.prepare("SELECT count(*) AS n FROM audit_events WHERE account_id = ?").bind(account.id).first("n");
    expect(await events(env.SHARD_2)).toBeGreaterThanOrEqual(5);
    expect(await events(env.DB)).toBe(0);
    // On DB (the directory), only the directory's entry and its user's name: none of the account's own rows.
    expect(await rowsOn(env.DB, account.id)).toEqual({ accounts: 1, user_names: 1 });
    const entry = await env.DB.prepare("SELECT shard, moving FROM accounts WHERE id = ?").bind(account.id).first();
    expect(entry).toEqual({ shard: "SHARD_2", moving: 0 });
    expect(user.accountId).toBe(account.id);
  });

  it("serves a user of either shard: sign-in, its own reads and writes, on its own shard", async () => {
    const accounts = await accountOnEachShard();
    for (const name of ["DB", "SHARD_2"] as const) {
      const admin = await createUser(accounts[name].id, { groups: ["Administrators"] });
      const me = await call("GET", "/api/user", { as: as(admin) });
      expect(me.status, me.text).toBe(200);
      expect(me.json.accountId ?? me.json.account?.id ?? accounts[name].id).toBe(accounts[name].id);
      const group = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("own"), privileges: [] } });
      expect(group.status, group.text).toBe(201);
      const other: ShardName = name === "DB" ? "SHARD_2" : "DB";
      expect(await SHARDS[name].prepare("SELECT count(*) AS n FROM groups WHERE id = ?").bind(group.json.id).first("n")).toBe(1);
      expect(await SHARDS[other].prepare("SELECT count(*) AS n FROM groups WHERE id = ?").bind(group.json.id).first("n")).toBe(0);
      // Its list reads its own shard.
      const list = await call("GET", "/api/groups", { as: as(admin) });
      expect(list.status, list.text).toBe(200);
      expect(JSON.stringify(list.json)).toContain(group.json.id);
    }
  });

  it("routes the supervisor by the object's id, by ?accountId= and by the body's accountId", async () => {
    const { SHARD_2: account } = await accountOnEachShard();
    const user = await createUser(account.id);
    const byId = await call("GET", `/api/users/${user.id}`);
    expect(byId.status, byId.text).toBe(200);
    expect(byId.json.name).toBe(user.username);
    const listed = await call("GET", `/api/users?accountId=${account.id}`);
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.stringify(listed.json)).toContain(user.id);
    const group = await createGroup(account.id, unique("sup"));
    expect(await env.SHARD_2.prepare("SELECT account_id FROM groups WHERE id = ?").bind(group.id).first("account_id")).toBe(account.id);
    const unknown = await call("GET", `/api/users/${crypto.randomUUID()}`);
    expectError(unknown, 404, "NOT_FOUND");
  });

  it("never shows one account's objects to another's user, on the same shard or across", async () => {
    const accounts = await accountOnEachShard();
    const alice = await createUser(accounts.SHARD_2.id, { groups: ["Administrators"] });
    const bob = await createUser(accounts.DB.id, { groups: ["Administrators"] });
    const bobs = await call("GET", `/api/users/${bob.id}`, { as: as(alice) });
    expectError(bobs, 404, "NOT_FOUND");
    const alices = await call("GET", `/api/users/${alice.id}`, { as: as(bob) });
    expectError(alices, 404, "NOT_FOUND");
  });

  it("keeps the shard's copy of the account in step with the directory, and counts users on their shard", async () => {
    const { SHARD_2: account } = await accountOnEachShard();
    await createUser(account.id);
    await createUser(account.id);
    const renamed = unique("renamed");
    const put = await call("PUT", `/api/accounts/${account.id}`, { body: { name: renamed, disabled: false, attributes: [] } });
    expect(put.status, put.text).toBe(200);
    expect(await env.DB.prepare("SELECT name FROM accounts WHERE id = ?").bind(account.id).first("name")).toBe(renamed);
    expect(await env.SHARD_2.prepare("SELECT name FROM accounts WHERE id = ?").bind(account.id).first("name")).toBe(renamed);
    const one = await call("GET", `/api/accounts/${account.id}`);
    expect(one.json).toMatchObject({ name: renamed, numberOfUsers: 2 });
    const byName = await call("GET", `/api/accounts/name/${encodeURIComponent(renamed)}`);
    expect(byName.json).toMatchObject({ id: account.id, numberOfUsers: 2 });
    const list = await call("GET", "/api/accounts");
    expect(list.json.content.find((a: { id: string }) => a.id === account.id)).toMatchObject({ numberOfUsers: 2 });
    expect(list.json.content.find((a: { id: string }) => a.id === DEFAULT_ACCOUNT_ID)).toBeDefined();
  });

  it("deletes an account from its shard and from the directory", async () => {
    const { SHARD_2: account } = await accountOnEachShard();
    await createUser(account.id);
    const res = await call("DELETE", `/api/accounts/${account.id}`);
    expect(res.status, res.text).toBe(204);
    const left = await rowsOn(env.SHARD_2, account.id);
    expect(left).toEqual({});
    expect(await rowsOn(env.DB, account.id)).toEqual({});
    expectError(await call("GET", `/api/accounts/${account.id}`), 404, "NOT_FOUND");
  });

  it("refuses a write of an account whose shard copy is being moved, 409 ACCOUNT_MOVING, and still serves its reads", async () => {
    const { SHARD_2: account } = await accountOnEachShard();
    const admin = await createUser(account.id, { groups: ["Administrators"] });
    await env.SHARD_2.prepare("UPDATE accounts SET moving = 1 WHERE id = ?").bind(account.id).run();
    const before = await rowsOn(env.SHARD_2, account.id);
    expectError(await call("POST", "/api/groups", { as: as(admin), body: { name: unique("late"), privileges: [] } }), 409, "ACCOUNT_MOVING");
    expectError(await call("POST", "/api/groups", { body: { name: unique("late"), accountId: account.id, privileges: [] } }), 409, "ACCOUNT_MOVING");
    expect(await rowsOn(env.SHARD_2, account.id)).toEqual(before);
    expect((await call("GET", "/api/groups", { as: as(admin) })).status).toBe(200);
    await env.SHARD_2.prepare("UPDATE accounts SET moving = 0 WHERE id = ?").bind(account.id).run();
    expect((await call("POST", "/api/groups", { as: as(admin), body: { name: unique("after"), privileges: [] } })).status).toBe(201);
  });
});
