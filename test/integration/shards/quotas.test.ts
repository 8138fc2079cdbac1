import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, expectError, unique } from "../helpers";

/**
 * The supervisor's quota of an account over a directory and two shards (docs/sharding.md): PUT
 * /api/quota names the account in its body, so the request is placed on that account's shard
 * (placedForWrite) before its first statement, and the limits live, and apply, with the account.
 */
async function accountOnShard2() {
  for (let i = 0; i < 4; i++) {
    const account = await createAccount();
    if ((await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(account.id).first("shard")) === "SHARD_2") return account;
  }
  throw new Error("no new account landed on SHARD_2");
}

const count = (database: D1Database, table: string, accountId: string) => database.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`).bind(accountId).first<number>("n");

describe("quotas over two shards", () => {
  it("writes an account's quota on its shard, where the supervisor and the account's admin read it and its limits apply", async () => {
    const account = await accountOnShard2();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const put = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] } });
    expect(put.status, put.text).toBe(201);
    expect({ quotas: await count(env.SHARD_2, "quotas", account.id), limits: await count(env.SHARD_2, "quota_limits", account.id) }).toEqual({ quotas: 1, limits: 1 });
    expect({ quotas: await count(env.DB, "quotas", account.id), limits: await count(env.DB, "quota_limits", account.id) }).toEqual({ quotas: 0, limits: 0 });

    for (const who of [undefined, as(admin)]) {
      const read = await call("GET", `/api/quota/${account.id}`, { as: who });
      expect(read.status, read.text).toBe(200);
      expect(read.json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 0 }]);
    }
    expect((await call("POST", "/api/sources", { as: as(admin), body: { name: unique("first") } })).status).toBe(201);
    expectError(await call("POST", "/api/sources", { as: as(admin), body: { name: unique("second") } }), 409, "QUOTA_EXCEEDED");

    // A replace finds the quota it replaces there (200, not a second create).
    const replaced = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 2 }] } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json.quotas).toEqual([{ type: "SOURCE", limit: 2, consumption: 1 }]);
  });

  it("refuses the quota of an account whose copy is being moved (409 ACCOUNT_MOVING), as every write of it", async () => {
    const account = await accountOnShard2();
    await env.SHARD_2.prepare("UPDATE accounts SET moving = 1 WHERE id = ?").bind(account.id).run();
    expectError(await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] } }), 409, "ACCOUNT_MOVING");
    expect(await count(env.SHARD_2, "quotas", account.id)).toBe(0);
    await env.SHARD_2.prepare("UPDATE accounts SET moving = 0 WHERE id = ?").bind(account.id).run();
    expect((await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] } })).status).toBe(201);
  });
});
