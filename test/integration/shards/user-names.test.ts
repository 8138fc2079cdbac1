import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createAccount, createUser, expectError, PASSWORD, shardNameOf, unique } from "../helpers";

/**
 * User names are unique across every shard (docs/sharding.md, "User names"): the directory's
 * user_names holds each name, claimed before a shard's write gives a user that name. Two accounts
 * here live on different databases (DB, the directory's own, and SHARD_2), whose own unique indexes
 * cannot see each other's users.
 */

/** Two accounts, one on each shard (placement alternates: a few creations land on both). */
async function accountsOnBothShards(): Promise<[{ id: string }, { id: string }]> {
  const found: Record<string, { id: string }> = {};
  for (let i = 0; i < 4 && Object.keys(found).length < 2; i++) {
    const account = await createAccount();
    found[await shardNameOf(account.id)] ??= account;
  }
  expect(Object.keys(found).sort()).toEqual(["DB", "SHARD_2"]);
  return [found.DB!, found.SHARD_2!];
}

const create = (accountId: string, name: string) => call("POST", "/api/users", { body: { name, password: PASSWORD, accountId } });
const claimOf = (name: string) => env.DB.prepare("SELECT user_id AS userId, account_id AS accountId FROM user_names WHERE name = ?").bind(name).first<{ userId: string; accountId: string }>();
/** Users of that name on every database. */
async function usersNamed(name: string): Promise<number> {
  let n = 0;
  for (const database of [env.DB, env.SHARD_2]) n += (await database.prepare("SELECT count(*) AS n FROM users WHERE name = ?").bind(name).first<number>("n"))!;
  return n;
}

describe("user names over a directory and two shards", () => {
  it("a name taken on one shard is refused on the other (409 DUPLICATED), by create and by rename", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    const taken = await createUser(onShard2.id);
    expectError(await create(onDb.id, taken.username), 409, "DUPLICATED", ["body.name"]);
    const other = await createUser(onDb.id);
    expectError(await call("PUT", `/api/users/${other.id}`, { body: { name: taken.username, accountId: onDb.id } }), 409, "DUPLICATED", ["body.name"]);
    expect(await usersNamed(taken.username)).toBe(1);
    expect(await claimOf(taken.username)).toEqual({ userId: taken.id, accountId: onShard2.id });
    expect(await claimOf(other.username)).toEqual({ userId: other.id, accountId: onDb.id });
  });

  it("the same name created in both accounts at once: one 201, one 409, one user", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    for (let i = 0; i < 5; i++) {
      const name = unique("race");
      const answers = await Promise.all([create(onDb.id, name), create(onShard2.id, name)]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const winner = answers.find((a) => a.status === 201)!.json as { id: string; accountId: string };
      expect(await claimOf(name)).toEqual({ userId: winner.id, accountId: winner.accountId });
      expect(await usersNamed(name)).toBe(1);
    }
  });

  it("a rename lets go of the old name and holds the new; a rename that lost (412) claims nothing", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    const user = await createUser(onShard2.id);
    const renamed = unique("renamed");
    const res = await call("PUT", `/api/users/${user.id}`, { body: { name: renamed, accountId: onShard2.id } });
    expect(res.status).toBe(200);
    expect(await claimOf(user.username)).toBeNull();
    expect((await create(onDb.id, user.username)).status).toBe(201);
    expectError(await create(onDb.id, renamed), 409, "DUPLICATED", ["body.name"]);

    const lost = unique("lost");
    const stale = await call("PUT", `/api/users/${user.id}`, { body: { name: lost, accountId: onShard2.id }, headers: { "If-Match": '"0000000000000000"' } });
    expect(stale.status).toBe(412);
    expect(await claimOf(lost)).toBeNull();
    expect(await claimOf(renamed)).toEqual({ userId: user.id, accountId: onShard2.id });
  });

  it("deleting a user, or its account, frees its name for any account", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    const user = await createUser(onShard2.id);
    expect((await call("DELETE", `/api/users/${user.id}`)).status).toBe(204);
    expect(await claimOf(user.username)).toBeNull();
    expect((await create(onDb.id, user.username)).status).toBe(201);

    const doomed = await createAccount();
    const member = await createUser(doomed.id);
    expect((await call("DELETE", `/api/accounts/${doomed.id}`)).status).toBe(204);
    expect(await claimOf(member.username)).toBeNull();
    expect((await create(onShard2.id, member.username)).status).toBe(201);
  });

  it("a claim left behind (a Worker that died between the directory's write and the shard's) is freed once stale, never while fresh", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    const claim = (name: string, claimedAt: string) =>
      env.DB.prepare("INSERT INTO user_names (name, user_id, account_id, claimed_at) VALUES (?, ?, ?, ?)").bind(name, crypto.randomUUID(), onShard2.id, claimedAt).run();
    const old = unique("orphan");
    await claim(old, new Date(Date.now() - 10 * 60_000).toISOString());
    const res = await create(onDb.id, old);
    expect(res.status).toBe(201);
    expect(await claimOf(old)).toEqual({ userId: (res.json as { id: string }).id, accountId: onDb.id });

    const fresh = unique("inflight");
    await claim(fresh, new Date().toISOString());
    expectError(await create(onDb.id, fresh), 409, "DUPLICATED", ["body.name"]);
  });

  it("a moved account's users keep their names: still refused elsewhere, still theirs", async () => {
    const [onDb, onShard2] = await accountsOnBothShards();
    const user = await createUser(onShard2.id);
    const moved = await call("POST", `/api/accounts/${onShard2.id}/move`, { body: { shard: "DB" } });
    expect(moved.status).toBe(200);
    expect(await shardNameOf(onShard2.id)).toBe("DB");
    expectError(await create(onDb.id, user.username), 409, "DUPLICATED", ["body.name"]);
    expect(await claimOf(user.username)).toEqual({ userId: user.id, accountId: onShard2.id });
    expect(await usersNamed(user.username)).toBe(1);
  });
});
