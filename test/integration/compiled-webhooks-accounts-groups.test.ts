import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { as, call, createAccount, createAccountOn, createUser, databaseOf, databases, unique, type TestUser } from "./helpers";
import { allEverywhere, countEverywhere } from "./every-database";
import { bearerFor, createClient } from "./trusted-access-helpers";

// Webhook, account and group statements compiled once per isolate (src/db/compiled.ts): interleaved
// requests of several accounts each read and write their own row with their own values, in the
// round trips they took before (test/integration/harness/round-trips.ts).

/** Accounts, each with an administrator signed in already (a cold sign-in reads the user: a round trip of its own). */
async function adminsOfAccounts(count: number) {
  const accounts = await Promise.all(Array.from({ length: count }, () => createAccount()));
  const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
  for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });
  return { accounts, admins };
}

const trips = (res: { headers: Headers }) => res.headers.get("X-D1-Round-Trips");

describe("webhook reads and writes, compiled once per isolate", () => {
  const HOOKS = "/api/webhooks";
  const urlOf = (name: string) => `${inject("connectorServers").webhookReceiverUrl}/hooks/${name}`;
  /** A subscription as stored on its account's database. */
  const storedHook = async (accountId: string, id: string) =>
    (await databaseOf(accountId)).prepare("SELECT account_id, url, events, description, enabled, consecutive_failures FROM webhooks WHERE id = ?").bind(id).first();

  it("create, read, update and delete each of many interleaved subscriptions of different accounts with its own values", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    // Disabled: they receive nothing while the test runs.
    const bodies = admins.map((_, i) => ({ url: urlOf(unique(`hook-${i}`)), events: [["*"], ["group.*"], ["group.create", "user.update"], ["source.*"]][i]!, description: `hook ${i}`, enabled: false }));
    const created = await Promise.all(admins.map((admin, i) => call("POST", HOOKS, { as: as(admin), body: bodies[i] })));
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(201);
      expect(trips(res)).toBe("1");
      expect(res.json, `hook ${i}`).toMatchObject({ ...bodies[i], accountId: accounts[i]!.id, consecutiveFailures: 0, disabledReason: null });
      expect(await storedHook(accounts[i]!.id, res.json.id), `hook ${i}`).toEqual({
        account_id: accounts[i]!.id,
        url: bodies[i]!.url,
        events: JSON.stringify(bodies[i]!.events),
        description: bodies[i]!.description,
        enabled: 0,
        consecutive_failures: 0,
      });
    }
    const ids = created.map((res) => res.json.id as string);
    // Failures the service counted (i + 1 of them): re-enabling resets them, any other change keeps them.
    for (const [i, id] of ids.entries()) await (await databaseOf(accounts[i]!.id)).prepare("UPDATE webhooks SET consecutive_failures = ? WHERE id = ?").bind(i + 1, id).run();

    // Each reads its own (twice, interleaved), and another account's is not found.
    const reads = await Promise.all([...ids, ...ids.slice().reverse()].map((id) => call("GET", `${HOOKS}/${id}`, { as: as(admins[ids.indexOf(id)]!) })));
    for (const res of reads) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("1");
      const i = ids.indexOf(res.json.id);
      expect(res.json).toMatchObject({ ...bodies[i], accountId: accounts[i]!.id, consecutiveFailures: i + 1 });
    }
    expect((await call("GET", `${HOOKS}/${ids[1]}`, { as: as(admins[0]!) })).status).toBe(404);

    // Each changes other members (one template per set of them), half with If-Match.
    const patches = [{ url: urlOf(unique("moved")) }, { events: ["custom-metric.update"], description: "one" }, { description: "two", enabled: false }, { enabled: true }];
    const etags = reads.slice(0, 4).map((res) => res.headers.get("ETag")!);
    const patched = await Promise.all(
      admins.map((admin, i) => call("PATCH", `${HOOKS}/${ids[i]}`, { as: as(admin), body: patches[i], headers: i % 2 ? { "If-Match": etags[i]! } : undefined })),
    );
    const expected = bodies.map((body, i) => ({ ...body, ...patches[i], consecutiveFailures: i === 3 ? 0 : i + 1 }));
    for (const [i, res] of patched.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json, `hook ${i}`).toMatchObject({ id: ids[i], accountId: accounts[i]!.id, ...expected[i] });
      expect(await storedHook(accounts[i]!.id, ids[i]!), `hook ${i}`).toEqual({
        account_id: accounts[i]!.id,
        url: expected[i]!.url,
        events: JSON.stringify(expected[i]!.events),
        description: expected[i]!.description,
        enabled: i === 3 ? 1 : 0,
        consecutive_failures: expected[i]!.consecutiveFailures,
      });
    }
    // A stale If-Match misses.
    expect((await call("PATCH", `${HOOKS}/${ids[1]}`, { as: as(admins[1]!), body: { description: "late" }, headers: { "If-Match": etags[1]! } })).status).toBe(412);

    // Two deleted at once (one with If-Match) beside reads of the others; a stale If-Match misses.
    const current = patched.map((res) => res.headers.get("ETag")!);
    const [gone0, gone2, kept1, kept3] = await Promise.all([
      call("DELETE", `${HOOKS}/${ids[0]}`, { as: as(admins[0]!) }),
      call("DELETE", `${HOOKS}/${ids[2]}`, { as: as(admins[2]!), headers: { "If-Match": current[2]! } }),
      call("GET", `${HOOKS}/${ids[1]}`, { as: as(admins[1]!) }),
      call("GET", `${HOOKS}/${ids[3]}`, { as: as(admins[3]!) }),
    ]);
    for (const res of [gone0, gone2]) {
      expect(res.status, res.text).toBe(204);
      expect(trips(res)).toBe("2");
    }
    for (const res of [kept1, kept3]) expect(res.status).toBe(200);
    expect((await call("DELETE", `${HOOKS}/${ids[1]}`, { as: as(admins[1]!), headers: { "If-Match": etags[1]! } })).status).toBe(412);
    const left = await Promise.all(ids.map((id, i) => storedHook(accounts[i]!.id, id)));
    expect(left.map((row) => row !== null)).toEqual([false, true, false, true]);
  });

  it("list each of many interleaved subscriptions' deliveries, its own only, with and without an outcome and a limit; the supervisor's own too", async () => {
    const { accounts, admins } = await adminsOfAccounts(3);
    const hooks = await Promise.all(admins.map((admin, i) => call("POST", HOOKS, { as: as(admin), body: { url: urlOf(unique(`deliveries-${i}`)), events: ["*"], enabled: false } })));
    const supervisors = await call("POST", HOOKS, { body: { url: urlOf(unique("supervisors")), events: ["*"], enabled: false } });
    expect(supervisors.status, supervisors.text).toBe(201);
    // Subscription i has i + 3 deliveries, newest last, their outcomes in turn; the supervisor's (in the directory) has two.
    const outcomes = ["PENDING", "DELIVERED", "FAILED"];
    const deliveriesOf = new Map<string, { id: string; outcome: string }[]>();
    const place = async (database: D1Database, hookId: string, count: number) => {
      const rows = Array.from({ length: count }, (_, n) => ({ id: crypto.randomUUID(), outcome: outcomes[n % 3]!, at: `2026-01-0${n + 1}T00:00:00.000Z` }));
      await database.batch(
        rows.map((row) =>
          database
            .prepare("INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, outcome, created_at, updated_at) VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5)")
            .bind(row.id, hookId, crypto.randomUUID(), row.outcome, row.at),
        ),
      );
      deliveriesOf.set(hookId, rows.reverse());
    };
    for (const [i, res] of hooks.entries()) await place(await databaseOf(accounts[i]!.id), res.json.id, i + 3);
    await place(env.DB, supervisors.json.id, 2);

    const ask = (hookId: string, query: string, user?: TestUser) => ({ hookId, query, user });
    const asks = [
      ...hooks.flatMap((res, i) => [ask(res.json.id, "", admins[i]), ask(res.json.id, "?outcome=FAILED", admins[i]), ask(res.json.id, "?maxResults=2", admins[i]), ask(res.json.id, "?outcome=PENDING&maxResults=1")]),
      ask(supervisors.json.id, ""),
      ask(supervisors.json.id, "?outcome=DELIVERED"),
    ];
    const twice = [...asks, ...asks.slice().reverse()];
    const answers = await Promise.all(twice.map((a) => call("GET", `${HOOKS}/${a.hookId}/deliveries${a.query}`, a.user ? { as: as(a.user) } : {})));
    answers.forEach((res, n) => {
      const { hookId, query, user } = twice[n]!;
      expect(res.status, res.text).toBe(200);
      if (user) expect(trips(res)).toBe("1");
      const params = new URLSearchParams(query);
      const outcome = params.get("outcome");
      const wanted = deliveriesOf
        .get(hookId)!
        .filter((row) => outcome === null || row.outcome === outcome)
        .slice(0, Number(params.get("maxResults") ?? 50));
      expect(res.json.content.map((row: { id: string; outcome: string }) => ({ id: row.id, outcome: row.outcome })), `${hookId}${query}`).toEqual(wanted.map(({ id, outcome }) => ({ id, outcome })));
    });
    // Another account's subscription is not found, with or without a filter.
    expect((await call("GET", `${HOOKS}/${hooks[1]!.json.id}/deliveries`, { as: as(admins[0]!) })).status).toBe(404);
    expect((await call("GET", `${HOOKS}/${supervisors.json.id}/deliveries?outcome=FAILED`, { as: as(admins[0]!) })).status).toBe(404);
  });
});

describe("an account's creation, compiled once per isolate", () => {
  it("creates each of many interleaved accounts with its own values and its own two built-in groups", async () => {
    const bodies = Array.from({ length: 4 }, (_, i) => ({
      name: unique(`Created ${i}`),
      ...(i % 2 === 0 && { disabled: true }),
      ...(i !== 3 && { replyToAddress: `reply-${i}@example.com`, senderDisplayName: `Sender ${i}` }),
      attributes: i === 1 ? [] : [{ key: `k${i}`, value: `v${i}` }],
    }));
    const created = await Promise.all(bodies.map((body) => call("POST", "/api/accounts", { body })));
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(201);
      expect(res.json, `account ${i}`).toMatchObject({ name: bodies[i]!.name, disabled: i % 2 === 0, replyToAddress: bodies[i]!.replyToAddress ?? null });
      const id = res.json.id as string;
      const rows = await allEverywhere("SELECT name, disabled, is_default, reply_to_address, sender_display_name, attributes, moving, revision FROM accounts WHERE id = ?", id);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row, `account ${i}`).toEqual({
          name: bodies[i]!.name,
          disabled: i % 2 === 0 ? 1 : 0,
          is_default: 0,
          reply_to_address: bodies[i]!.replyToAddress ?? null,
          sender_display_name: bodies[i]!.senderDisplayName ?? null,
          attributes: JSON.stringify(bodies[i]!.attributes.map((a) => ({ ...a, isSecured: false }))),
          moving: 0,
          revision: JSON.parse(res.headers.get("ETag")!),
        });
      }
      const groups = await (await databaseOf(id)).prepare("SELECT name, privileges, built_in, account_id FROM groups WHERE account_id = ? ORDER BY name").bind(id).all();
      expect(groups.results.map((g) => [g.name, JSON.parse(String(g.privileges)).length > 0, g.built_in]), `account ${i}`).toEqual([
        ["Administrators", true, 1],
        ["Users", false, 1],
      ]);
    }
    // One name, two creations at once: one account.
    const name = unique("Twice");
    const twice = await Promise.all([call("POST", "/api/accounts", { body: { name } }), call("POST", "/api/accounts", { body: { name } })]);
    expect(twice.map((res) => res.status).sort()).toEqual([201, 409]);
    expect(await countEverywhere("SELECT count(*) AS n FROM groups WHERE account_id IN (SELECT id FROM accounts WHERE name = ?)", name)).toBe(2);
  });
});

describe("an account's update, compiled once per isolate", () => {
  it("stores each of many interleaved PATCHes of different accounts with its own values, and revokes the tokens of those it disables only", async () => {
    // Over several databases, on each in turn: the shard's copy of an account is written apart from the directory's row.
    const bindings = databases().map(([binding]) => binding);
    const accounts = [];
    for (let i = 0; i < 4; i++) accounts.push(await createAccountOn(bindings[i % bindings.length]!));
    const members = await Promise.all(accounts.map((a) => createUser(a.id)));
    const client = await createClient();
    const tokens = await Promise.all(members.map((member) => bearerFor(client, member.username)));
    const etags = await Promise.all(accounts.map(async (a) => (await call("GET", `/api/accounts/${a.id}`)).headers.get("ETag")!));
    // Accounts 0 and 2 disabled; each another name and addresses; half with If-Match.
    const patches = accounts.map((_, i) => ({
      name: unique(`renamed-${i}`),
      disabled: i % 2 === 0,
      replyToAddress: i === 3 ? null : `reply-${i}@example.com`,
      senderDisplayName: `Sender ${i}`,
      attributes: [{ key: `k${i}`, value: `v${i}`, isSecured: i === 1 }],
    }));
    const patched = await Promise.all(accounts.map((a, i) => call("PATCH", `/api/accounts/${a.id}`, { body: patches[i], headers: i % 2 ? { "If-Match": etags[i]! } : undefined })));
    for (const [i, res] of patched.entries()) {
      expect(res.status, res.text).toBe(200);
      const { attributes, ...shown } = patches[i]!;
      expect(res.json, `account ${i}`).toMatchObject({ id: accounts[i]!.id, ...shown });
      // The directory's row and the shard's copy (one row on one database).
      const rows = await allEverywhere("SELECT name, disabled, reply_to_address, sender_display_name, attributes, revision FROM accounts WHERE id = ?", accounts[i]!.id);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row, `account ${i}`).toEqual({
          name: shown.name,
          disabled: i % 2 === 0 ? 1 : 0,
          reply_to_address: shown.replyToAddress,
          sender_display_name: shown.senderDisplayName,
          attributes: JSON.stringify(attributes),
          revision: JSON.parse(res.headers.get("ETag")!),
        });
      }
      const left = await countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE token_id = ?", tokens[i]!.tokenId);
      expect(left, `account ${i}'s token`).toBe(i % 2 === 0 ? 0 : 1);
    }
    // A stale If-Match misses.
    expect((await call("PATCH", `/api/accounts/${accounts[1]!.id}`, { body: { senderDisplayName: "late" }, headers: { "If-Match": etags[1]! } })).status).toBe(412);
  });
});

describe("a group's create and update, compiled once per isolate", () => {
  it("creates, reads and replaces each of many interleaved groups of different accounts with its own values", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const bodies = admins.map((_, i) => ({ name: unique(`Team ${i}`), description: i === 2 ? undefined : `team ${i}`, privileges: [[], ["ROLE_VIEW_AUDIT"], ["ROLE_ADMIN"], ["ROLE_ADMIN", "ROLE_VIEW_AUDIT"]][i]! }));
    const created = await Promise.all(admins.map((admin, i) => call("POST", "/api/groups", { as: as(admin), body: bodies[i] })));
    const storedGroup = (i: number, id: string) =>
      databaseOf(accounts[i]!.id).then((d1) => d1.prepare("SELECT account_id, name, description, privileges, built_in, revision FROM groups WHERE id = ?").bind(id).first());
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(201);
      expect(trips(res)).toBe("1");
      expect(res.json, `group ${i}`).toMatchObject({ ...bodies[i], description: bodies[i]!.description ?? null, accountId: accounts[i]!.id, builtIn: false });
      expect(await storedGroup(i, res.json.id), `group ${i}`).toEqual({
        account_id: accounts[i]!.id,
        name: bodies[i]!.name,
        description: bodies[i]!.description ?? null,
        privileges: JSON.stringify(bodies[i]!.privileges),
        built_in: 0,
        revision: JSON.parse(res.headers.get("ETag")!),
      });
    }
    const ids = created.map((res) => res.json.id as string);

    // Each replaced at once, half with If-Match, beside reads of each (another account's group is not found).
    const replacements = bodies.map((body, i) => ({ name: unique(`Renamed ${i}`), description: i === 1 ? null : `renamed ${i}`, privileges: [...body.privileges].reverse().slice(0, i % 3) }));
    const [replaced, reads] = await Promise.all([
      Promise.all(admins.map((admin, i) => call("PUT", `/api/groups/${ids[i]}`, { as: as(admin), body: replacements[i], headers: i % 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : undefined }))),
      Promise.all(admins.map((admin, i) => call("GET", `/api/groups/${ids[(i + 1) % 4]}`, { as: as(admin) }))),
    ]);
    for (const res of reads) expect(res.status).toBe(404);
    for (const [i, res] of replaced.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json, `group ${i}`).toMatchObject({ id: ids[i], accountId: accounts[i]!.id, ...replacements[i] });
      expect(await storedGroup(i, ids[i]!), `group ${i}`).toEqual({
        account_id: accounts[i]!.id,
        name: replacements[i]!.name,
        description: replacements[i]!.description,
        privileges: JSON.stringify(replacements[i]!.privileges),
        built_in: 0,
        revision: JSON.parse(res.headers.get("ETag")!),
      });
      expect((await call("GET", `/api/groups/${ids[i]}`, { as: as(admins[i]!) })).json, `group ${i}`).toMatchObject(replacements[i]!);
    }
    // A stale If-Match misses.
    expect((await call("PUT", `/api/groups/${ids[1]}`, { as: as(admins[1]!), body: bodies[1], headers: { "If-Match": created[1]!.headers.get("ETag")! } })).status).toBe(412);
  });
});

describe("an account's users and administrators, compiled once per isolate", () => {
  it("lists and replaces each of many interleaved accounts' administrators with its own users; another account's is not found", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const others = await Promise.all(accounts.map((a) => Promise.all([createUser(a.id), createUser(a.id)])));
    const path = (i: number, list: "users" | "admins") => `/api/accounts/${accounts[i]!.id}/${list}`;
    const ref = (u: TestUser) => ({ id: u.id });
    // Account i's administrators become its admin and, for even i, its first other user (by id or by name).
    const wanted = accounts.map((_, i) => (i % 2 === 0 ? [admins[i]!, others[i]![0]!] : [admins[i]!]));
    const [users, replaced, foreign, asSupervisor] = await Promise.all([
      Promise.all(accounts.map((_, i) => call("GET", path(i, "users"), { as: as(admins[i]!) }))),
      Promise.all(accounts.map((_, i) => call("PUT", path(i, "admins"), { as: as(admins[i]!), body: wanted[i]!.map((u, k) => (k % 2 ? { name: u.username } : ref(u))) }))),
      Promise.all(accounts.map((_, i) => call("GET", path((i + 1) % 4, "admins"), { as: as(admins[i]!) }))),
      Promise.all(accounts.map((_, i) => call("GET", path(i, "users")))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    const names = (list: TestUser[]) => list.map((u) => u.username).sort();
    for (const [i, res] of users.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("1");
      expect(res.json.map((u: { name: string }) => u.name).sort(), `account ${i}`).toEqual(names([admins[i]!, ...others[i]!]));
      expect(asSupervisor[i]!.json, `account ${i}`).toEqual(res.json);
    }
    for (const [i, res] of replaced.entries()) {
      expect(res.status, `account ${i}: ${res.text}`).toBe(200);
      expect(res.json.map((u: { name: string }) => u.name), `account ${i}`).toEqual(names(wanted[i]!));
      const listed = await call("GET", path(i, "admins"), { as: as(admins[i]!) });
      expect(listed.json.map((u: { name: string }) => u.name), `account ${i}`).toEqual(names(wanted[i]!));
      const roles = await (await databaseOf(accounts[i]!.id))
        .prepare("SELECT u.name, u.last_modified_by_user_id AS modifier FROM users u JOIN user_groups ug ON ug.user_id = u.id JOIN groups g ON g.id = ug.group_id WHERE g.name = 'Administrators' AND u.account_id = ? ORDER BY u.name")
        .bind(accounts[i]!.id)
        .all();
      expect(roles.results.map((r) => r.name), `account ${i}`).toEqual(names(wanted[i]!));
      if (i % 2 === 0) expect(roles.results.find((r) => r.name === others[i]![0]!.username)?.modifier, `account ${i}`).toBe(admins[i]!.id);
    }
    // Back to its admin alone: the promoted user is demoted again, in its own account only.
    const back = await call("PUT", path(0, "admins"), { as: as(admins[0]!), body: [ref(admins[0]!)] });
    expect(back.status, back.text).toBe(200);
    expect((await call("GET", path(0, "admins"), { as: as(admins[0]!) })).json.map((u: { name: string }) => u.name)).toEqual([admins[0]!.username]);
    expect((await call("GET", path(2, "admins"), { as: as(admins[2]!) })).json.map((u: { name: string }) => u.name)).toEqual(names(wanted[2]!));
  });
});
