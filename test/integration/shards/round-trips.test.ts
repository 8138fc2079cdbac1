import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { invalidateUser } from "../../../src/auth/cache";
import { forgetPlacement } from "../../../src/db/shards/routing";
import { ROUND_TRIPS } from "../harness/round-trips";
import { as, call, createAccount, createUser, unique } from "../helpers";

/**
 * What routing costs over a directory and two shards (X-D1-Round-Trips; docs/sharding.md): nothing
 * on a warm isolate, one directory read for an account the isolate has not placed lately or a cold
 * sign-in, and one trip per shard for a supervisor's object located by id. The module state the
 * Worker keeps per isolate (credential cache, placements) is this test's too: it is cleared to make
 * a request cold.
 */
const SHARD_COUNT = env.TEST_DATABASES.length;
const tripsOf = (res: { headers: Headers }) => Number(res.headers.get("X-D1-Round-Trips"));

async function userOnShard2() {
  for (;;) {
    const account = await createAccount();
    if ((await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(account.id).first("shard")) === "SHARD_2") {
      return { account, admin: await createUser(account.id, { groups: ["Administrators"] }) };
    }
  }
}

describe("round trips over two shards", () => {
  it("a warm user's reads and writes take the round trips they take on one database", async () => {
    const { admin } = await userOnShard2();
    await call("GET", "/api/user", { as: as(admin) });
    const read = await call("GET", "/api/groups", { as: as(admin) });
    expect(read.status).toBe(200);
    expect(tripsOf(read)).toBe(ROUND_TRIPS["GET /api/groups"]);
    const write = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("g"), privileges: [] } });
    expect(write.status).toBe(201);
    expect(tripsOf(write)).toBe(ROUND_TRIPS["POST /api/groups"]);
  });

  it("an account this isolate has not placed lately costs one directory read", async () => {
    const { account, admin } = await userOnShard2();
    await call("GET", "/api/user", { as: as(admin) });
    forgetPlacement(account.id);
    const read = await call("GET", "/api/groups", { as: as(admin) });
    expect(tripsOf(read)).toBe(ROUND_TRIPS["GET /api/groups"]! + 1);
  });

  it("a cold sign-in asks the directory whose the name is and where its account lives, then reads", async () => {
    const { account, admin } = await userOnShard2();
    invalidateUser(admin.id);
    forgetPlacement(account.id);
    const read = await call("GET", "/api/groups", { as: as(admin) });
    expect(read.status).toBe(200);
    // The name's account and its shard in one directory read (user_names), the user's row, then the list.
    expect(tripsOf(read)).toBe(1 + 1 + ROUND_TRIPS["GET /api/groups"]!);
  });

  it("the supervisor's read of an object by id asks every shard which account holds it", async () => {
    const { admin } = await userOnShard2();
    const res = await call("GET", `/api/users/${admin.id}`);
    expect(res.status).toBe(200);
    expect(tripsOf(res)).toBe(SHARD_COUNT + ROUND_TRIPS["GET /api/users/{id}"]!);
  });
});
