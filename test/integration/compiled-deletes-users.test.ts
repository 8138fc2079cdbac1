import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectionBody, createConnection } from "./connection-helpers";
import { allEverywhere, countEverywhere, nameAsked, otherShards, shardsAsked } from "./every-database";
import { as, call, createAccount, createGroup, createUser, databaseOf, shardNameOf, unique, type CallResult } from "./helpers";
import { createOrdersSource, createView, viewBody, viewPath } from "./materialized-view-helpers";
import { createSource } from "./source-helpers";
import { bearerFor, createClient, pullToken } from "./trusted-access-helpers";

// Deletions, and a cold sign-in's read of the user, compiled once per isolate (src/db/compiled.ts):
// interleaved requests of several accounts each delete their own object with their own values, in
// the round trips they took before (test/integration/harness/round-trips.ts), and another account's
// object is not found and stays as it was.

const trips = (res: CallResult) => res.headers.get("X-D1-Round-Trips");

/** Accounts, each with an administrator signed in already (a cold sign-in reads the user: a round trip of its own). */
async function adminsOfAccounts(count: number) {
  const accounts = await Promise.all(Array.from({ length: count }, () => createAccount()));
  const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
  for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });
  return { accounts, admins };
}

/** A row of an account's database, or null. */
const rowOf = async (accountId: string, query: string, ...values: unknown[]) => (await databaseOf(accountId)).prepare(query).bind(...values).first();

describe("a trusted-access client's deletion, compiled once per isolate", () => {
  const CLIENTS = "/api/trusted-access/clients";
  const clientRows = (clientId: string) => allEverywhere("SELECT client_id FROM trusted_access_clients WHERE client_id = ?", clientId);
  const tokensOf = (clientId: string) => countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE client_id = ?", clientId);

  it("deletes each of many interleaved clients with its own tokens, half with If-Match; the clients kept keep theirs", async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, () => createAccount()));
    const members = await Promise.all(accounts.map((a) => createUser(a.id)));
    // Four to delete, two kept; one of each serving listed accounts only.
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => createClient(i % 3 === 1 ? { account_ids: accounts.map((a) => a.id) } : {})));
    // Each client holds a token of each member (on the member's account's shard).
    for (const client of clients) for (const member of members) await bearerFor(client, member.username);
    const [doomed, kept] = [clients.slice(0, 4), clients.slice(4)];
    const etags = await Promise.all(doomed.map(async (client) => (await call("GET", `${CLIENTS}/${client.clientId}`)).headers.get("ETag")!));

    const deleted = await Promise.all(doomed.map((client, i) => call("DELETE", `${CLIENTS}/${client.clientId}`, { headers: i % 2 ? { "If-Match": etags[i]! } : undefined })));
    for (const [i, res] of deleted.entries()) {
      expect(res.status, `client ${i}: ${res.text}`).toBe(204);
      expect(trips(res), `client ${i}`).toBe(String(2 + otherShards()));
      expect(await clientRows(doomed[i]!.clientId), `client ${i}`).toEqual([]);
      expect(await tokensOf(doomed[i]!.clientId), `client ${i}'s tokens`).toBe(0);
      expect((await call("GET", `${CLIENTS}/${doomed[i]!.clientId}`)).status).toBe(404);
    }
    for (const [i, client] of kept.entries()) {
      expect((await call("GET", `${CLIENTS}/${client.clientId}`)).status, `kept ${i}`).toBe(200);
      expect(await tokensOf(client.clientId), `kept ${i}'s tokens`).toBe(members.length);
    }
    // A stale If-Match misses, and deletes nothing.
    const stale = await call("GET", `${CLIENTS}/${kept[1]!.clientId}`);
    await call("PATCH", `${CLIENTS}/${kept[1]!.clientId}`, { body: { client_name: unique("renamed") } });
    expect((await call("DELETE", `${CLIENTS}/${kept[1]!.clientId}`, { headers: { "If-Match": stale.headers.get("ETag")! } })).status).toBe(412);
    expect(await tokensOf(kept[1]!.clientId)).toBe(members.length);
  });
});

describe("a trusted client's sign-in read, compiled once per isolate", () => {
  it("authenticates each of many interleaved clients as itself: each mints only in its own account, a wrong secret is refused", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const users = await Promise.all(accounts.map((a) => createUser(a.id)));
    const clients = await Promise.all(accounts.map((a) => createClient({ account_ids: [a.id] })));
    // Each client asks for its own account's user, and for the next account's (which it does not serve).
    const [own, foreign, wrongSecret] = await Promise.all([
      Promise.all(clients.map((client, i) => pullToken(client.credentials, { username: users[i]!.username }))),
      Promise.all(clients.map((client, i) => pullToken(client.credentials, { username: users[(i + 1) % 4]!.username }))),
      Promise.all(clients.map((client, i) => pullToken({ username: client.clientId, password: clients[(i + 1) % 4]!.clientSecret }, { username: users[i]!.username }))),
    ]);
    for (const [i, res] of own.entries()) {
      expect(res.status, `client ${i}: ${res.text}`).toBe(200);
      const row = await rowOf(accounts[i]!.id, "SELECT client_id, account_id, user_id FROM access_tokens WHERE token_id = ?", res.json.token_id);
      expect(row, `client ${i}`).toEqual({ client_id: clients[i]!.clientId, account_id: accounts[i]!.id, user_id: users[i]!.id });
    }
    for (const res of foreign) expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    for (const res of wrongSecret) expect(res.status, res.text).toBe(401);
    for (const [i, client] of clients.entries()) {
      expect(await countEverywhere("SELECT COUNT(*) AS n FROM access_tokens WHERE client_id = ?", client.clientId), `client ${i}`).toBe(1);
    }
  });
});

describe("a token's revocation, compiled once per isolate", () => {
  it("revokes each of many interleaved tokens named by id or by the token itself, and no other", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const members = await Promise.all(accounts.map((a) => createUser(a.id)));
    const client = await createClient();
    // Two tokens per member: the first revoked (by id for members 0 and 2, by the token for 1 and 3), the second kept.
    const tokens = await Promise.all(members.map(async (member) => [await bearerFor(client, member.username), await bearerFor(client, member.username)] as const));
    const revoked = await Promise.all(
      tokens.map(([token], i) => call("DELETE", `/api/trusted-access/tokens/${encodeURIComponent(i % 2 ? token.bearer : token.tokenId)}`)),
    );
    for (const [i, res] of revoked.entries()) {
      expect(res.status, `token ${i}: ${res.text}`).toBe(204);
      // Over several databases, every shard is asked first which holds the token (db/shards/locate.ts).
      expect(trips(res), `token ${i}`).toBe(String(1 + shardsAsked()));
      const [gone, kept] = tokens[i]!;
      expect(await allEverywhere("SELECT token_id AS t FROM access_tokens WHERE user_id = ?", members[i]!.id), `member ${i}`).toEqual([{ t: kept.tokenId }]);
      expect((await call("GET", "/api/user", { as: { bearer: gone.bearer } })).status, `token ${i}`).toBe(401);
      expect((await call("GET", "/api/user", { as: { bearer: kept.bearer } })).json, `member ${i}`).toMatchObject({ id: members[i]!.id });
    }
    // Gone is gone: by id and by the token.
    expect((await call("DELETE", `/api/trusted-access/tokens/${tokens[0]![0].tokenId}`)).status).toBe(404);
    expect((await call("DELETE", `/api/trusted-access/tokens/${encodeURIComponent(tokens[1]![0].bearer)}`)).status).toBe(404);
  });
});

describe("a group's deletion, compiled once per isolate", () => {
  it("deletes each of many interleaved groups with its memberships; another account's group is not found and keeps its own", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    // Per account: a group to delete and one kept, a member of both.
    const groups = await Promise.all(accounts.map(async (a, i) => [await createGroup(a.id, unique(`Doomed ${i}`)), await createGroup(a.id, unique(`Kept ${i}`))] as const));
    const members = await Promise.all(accounts.map((a, i) => createUser(a.id, { groups: ["Users", groups[i]![0].name, groups[i]![1].name] })));
    const etags = await Promise.all(groups.map(async ([doomed], i) => (await call("GET", `/api/groups/${doomed.id}`, { as: as(admins[i]!) })).headers.get("ETag")!));
    const [deleted, foreign] = await Promise.all([
      Promise.all(groups.map(([doomed], i) => call("DELETE", `/api/groups/${doomed.id}`, { as: as(admins[i]!), headers: i % 2 ? { "If-Match": etags[i]! } : undefined }))),
      // Each admin tries the next account's kept group.
      Promise.all(groups.map((_, i) => call("DELETE", `/api/groups/${groups[(i + 1) % 4]![1].id}`, { as: as(admins[i]!) }))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    const groupsOf = (i: number) =>
      databaseOf(accounts[i]!.id).then(async (d1) => (await d1.prepare("SELECT g.id FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ? ORDER BY g.name").bind(members[i]!.id).all()).results);
    for (const [i, res] of deleted.entries()) {
      expect(res.status, `group ${i}: ${res.text}`).toBe(204);
      expect(trips(res), `group ${i}`).toBe("2");
      const [doomed, kept] = groups[i]!;
      expect(await rowOf(accounts[i]!.id, "SELECT id FROM groups WHERE id = ?", doomed.id), `group ${i}`).toBeNull();
      expect(await countEverywhere("SELECT count(*) AS n FROM user_groups WHERE group_id = ?", doomed.id), `group ${i}'s memberships`).toBe(0);
      // The member keeps the kept group (and Users, a built-in group of its account).
      const left = (await groupsOf(i)).map((row) => row.id);
      expect(left, `member ${i}`).toContain(kept.id);
      expect(left, `member ${i}`).toHaveLength(2);
      expect(await rowOf(accounts[i]!.id, "SELECT name FROM groups WHERE id = ?", kept.id), `kept ${i}`).toEqual({ name: kept.name });
    }
  });
});

describe("a materialized view's deletion, compiled once per isolate", () => {
  it("deletes each of many interleaved views; another account's view is not found and stays", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const sources = await Promise.all(admins.map((admin) => createOrdersSource(admin)));
    const views = await Promise.all(admins.map(async (admin, i) => [await createView(admin, viewBody(sources[i]!.id)), await createView(admin, viewBody(sources[i]!.id))] as const));
    const etags = await Promise.all(views.map(async ([doomed], i) => (await call("GET", viewPath(doomed.id), { as: as(admins[i]!) })).headers.get("ETag")!));
    const [deleted, foreign] = await Promise.all([
      Promise.all(views.map(([doomed], i) => call("DELETE", viewPath(doomed.id), { as: as(admins[i]!), headers: i % 2 ? { "If-Match": etags[i]! } : undefined }))),
      Promise.all(views.map((_, i) => call("DELETE", viewPath(views[(i + 1) % 4]![1].id), { as: as(admins[i]!) }))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    for (const [i, res] of deleted.entries()) {
      expect(res.status, `view ${i}: ${res.text}`).toBe(204);
      expect(trips(res), `view ${i}`).toBe("2");
      const [doomed, kept] = views[i]!;
      expect(await rowOf(accounts[i]!.id, "SELECT id FROM materialized_views WHERE id = ?", doomed.id), `view ${i}`).toBeNull();
      expect(await rowOf(accounts[i]!.id, "SELECT name FROM materialized_views WHERE id = ?", kept.id), `kept ${i}`).toEqual({ name: kept.name });
    }
    // A stale If-Match misses.
    expect((await call("DELETE", viewPath(views[1]![1].id), { as: as(admins[1]!), headers: { "If-Match": etags[1]! } })).status).toBe(412);
  });
});

describe("a materialized view's PATCH, compiled once per isolate for each set of members", () => {
  it("patches each of many interleaved views with its own members and values; another account's view is not found and stays", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const sources = await Promise.all(admins.map((admin) => createOrdersSource(admin)));
    const views = await Promise.all(admins.flatMap((admin, i) => [0, 1, 2].map(() => createView(admin, viewBody(sources[i]!.id)))));
    const ownerOf = (n: number) => Math.floor(n / 3);
    // Each view gets a different set of members (in a different order), some with If-Match.
    const patches: Record<string, unknown>[] = views.map((_, n) =>
      [{ name: unique(`view-${n}`) }, { enabled: n % 2 === 0, description: `patched ${n}` }, { description: null, name: unique(`v${n}`), enabled: false }][n % 3]!,
    );
    const patchOf = (n: number) => patches[n]!;
    const etags = await Promise.all(views.map(async (view, n) => (await call("GET", viewPath(view.id), { as: as(admins[ownerOf(n)]!) })).headers.get("ETag")!));
    const [patched, foreign] = await Promise.all([
      Promise.all(views.map((view, n) => call("PATCH", viewPath(view.id), { as: as(admins[ownerOf(n)]!), body: patchOf(n), headers: n % 2 ? { "If-Match": etags[n]! } : undefined }))),
      Promise.all(accounts.map((_, i) => call("PATCH", viewPath(views[((i + 1) % 4) * 3]!.id), { as: as(admins[i]!), body: { name: unique("stolen") } }))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    for (const [n, res] of patched.entries()) {
      const view = views[n]!;
      const want = { name: view.name, description: view.description ?? null, enabled: view.enabled, ...patchOf(n) };
      expect(res.status, `view ${n}: ${res.text}`).toBe(200);
      expect(trips(res), `view ${n}`).toBe("2");
      expect(res.json, `view ${n}`).toMatchObject({ id: view.id, ...want });
      const stored = await rowOf(accounts[ownerOf(n)]!.id, "SELECT name, description, enabled, last_modified_by_user_id AS modifier, revision FROM materialized_views WHERE id = ?", view.id);
      expect(stored, `view ${n}`).toMatchObject({ name: want.name, description: want.description, enabled: want.enabled ? 1 : 0, modifier: admins[ownerOf(n)]!.id });
      expect(`"${stored!.revision}"`).toBe(res.headers.get("ETag"));
    }
    // A stale If-Match misses, and changes nothing.
    const stale = await call("PATCH", viewPath(views[1]!.id), { as: as(admins[0]!), body: { name: unique("late") }, headers: { "If-Match": etags[1]! } });
    expect(stale.status, stale.text).toBe(412);
    expect(await rowOf(accounts[0]!.id, "SELECT name FROM materialized_views WHERE id = ?", views[1]!.id)).toEqual({ name: patched[1]!.json.name });
  });
});

describe("a connection's deletion, compiled once per isolate", () => {
  it("deletes each of many interleaved unused connections and refuses each used one; another account's is not found and stays", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    // Per account: a connection no source names, and one its source names.
    const connections = await Promise.all(
      admins.map(async (admin, i) => [await createConnection(admin, connectionBody(unique(`Free ${i}`))), await createConnection(admin, connectionBody(unique(`Used ${i}`)))] as const),
    );
    const sources = await Promise.all(admins.map((admin, i) => createOrdersSource(admin, { connectionId: connections[i]![1].id })));
    const etags = await Promise.all(connections.map(async ([free], i) => (await call("GET", `/api/connections/${free.id}`, { as: as(admins[i]!) })).headers.get("ETag")!));
    const [deleted, refused, foreign] = await Promise.all([
      Promise.all(connections.map(([free], i) => call("DELETE", `/api/connections/${free.id}`, { as: as(admins[i]!), headers: i % 2 ? { "If-Match": etags[i]! } : undefined }))),
      Promise.all(connections.map(([, used], i) => call("DELETE", `/api/connections/${used.id}`, { as: as(admins[i]!) }))),
      Promise.all(connections.map((_, i) => call("DELETE", `/api/connections/${connections[(i + 1) % 4]![1].id}`, { as: as(admins[i]!) }))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    for (const [i, res] of deleted.entries()) {
      const [free, used] = connections[i]!;
      expect(res.status, `connection ${i}: ${res.text}`).toBe(204);
      expect(trips(res), `connection ${i}`).toBe("2");
      expect(await rowOf(accounts[i]!.id, "SELECT id FROM connections WHERE id = ?", free.id), `connection ${i}`).toBeNull();
      // The used one is refused, naming its own account's source.
      expect(refused[i]!.status, `used ${i}: ${refused[i]!.text}`).toBe(409);
      expect(refused[i]!.text, `used ${i}`).toContain(sources[i]!.id);
      expect(await rowOf(accounts[i]!.id, "SELECT name FROM connections WHERE id = ?", used.id), `used ${i}`).toEqual({ name: used.name });
    }
  });
});

describe("a user's deletion, compiled once per isolate", () => {
  it("deletes each of many interleaved users with what goes with them, the objects of some moving to their own account's heir", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const groups = await Promise.all(accounts.map((a, i) => createGroup(a.id, unique(`Team ${i}`))));
    // Per account: a user who owns nothing, one who owns a source (deleted with transferTo: its heir), and one kept.
    const plain = await Promise.all(accounts.map((a, i) => createUser(a.id, { groups: ["Users", groups[i]!.name] })));
    const owners = await Promise.all(accounts.map((a) => createUser(a.id, { roles: ["ROLE_CREATE_SOURCES"] })));
    const heirs = await Promise.all(accounts.map((a) => createUser(a.id)));
    const kept = await Promise.all(accounts.map((a, i) => createUser(a.id, { groups: ["Users", groups[i]!.name] })));
    const owned = await Promise.all(owners.map((owner) => createSource(owner)));

    // Refused first, all at once: each lists its own source only (what a user owns, read with its own id).
    const refusals = await Promise.all(owners.map((owner, i) => call("DELETE", `/api/users/${owner.id}`, { as: as(admins[i]!) })));
    for (const [i, res] of refusals.entries()) {
      expect(res.status, `owner ${i}: ${res.text}`).toBe(409);
      expect(res.json.problems[0].dependencies[owners[i]!.username].accessible, `owner ${i}`).toEqual([{ type: "SOURCE", id: owned[i]!.id, name: owned[i]!.name }]);
    }

    const etags = await Promise.all(plain.map(async (user, i) => (await call("GET", `/api/users/${user.id}`, { as: as(admins[i]!) })).headers.get("ETag")!));
    const [deleted, transferred, foreign] = await Promise.all([
      Promise.all(plain.map((user, i) => call("DELETE", `/api/users/${user.id}`, { as: as(admins[i]!), headers: i % 2 ? { "If-Match": etags[i]! } : undefined }))),
      Promise.all(owners.map((owner, i) => call("DELETE", `/api/users/${owner.id}?transferTo=${heirs[i]!.id}`, { as: as(admins[i]!) }))),
      // Each admin tries the next account's kept user.
      Promise.all(kept.map((_, i) => call("DELETE", `/api/users/${kept[(i + 1) % 4]!.id}`, { as: as(admins[i]!) }))),
    ]);
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    for (const [i, account] of accounts.entries()) {
      // A shard other than the directory's database: the names are let go in a directory batch of their own.
      const apart = (await shardNameOf(account.id)) !== (env.DIRECTORY ?? "DB") ? 1 : 0;
      for (const [what, res, user] of [["plain", deleted[i]!, plain[i]!], ["owner", transferred[i]!, owners[i]!]] as const) {
        expect(res.status, `${what} ${i}: ${res.text}`).toBe(204);
        expect(trips(res), `${what} ${i}`).toBe(String(2 + apart));
        expect(await rowOf(account.id, "SELECT id FROM users WHERE id = ?", user.id), `${what} ${i}`).toBeNull();
        expect(await countEverywhere("SELECT count(*) AS n FROM user_groups WHERE user_id = ?", user.id), `${what} ${i}'s memberships`).toBe(0);
        expect(await countEverywhere("SELECT count(*) AS n FROM user_names WHERE user_id = ?", user.id), `${what} ${i}'s name`).toBe(0);
        expect((await call("GET", "/api/user", { as: as(user) })).status, `${what} ${i}`).toBe(401);
      }
      // The source went to this account's heir, with its own event.
      expect(await rowOf(account.id, "SELECT owner_user_id AS o FROM sources WHERE id = ?", owned[i]!.id), `source ${i}`).toEqual({ o: heirs[i]!.id });
      const moved = await allEverywhere("SELECT action, changes FROM audit_events WHERE account_id = ? AND target_id = ? AND action = 'source.update'", account.id, owned[i]!.id);
      expect(moved.map((event) => JSON.parse(String(event.changes))), `source ${i}`).toEqual([[{ member: "ownerUserId", before: owners[i]!.id, after: heirs[i]!.id }]]);
      // The kept user, and its membership, are as they were.
      expect(await rowOf(account.id, "SELECT name FROM users WHERE id = ?", kept[i]!.id), `kept ${i}`).toEqual({ name: kept[i]!.username });
      expect(await countEverywhere("SELECT count(*) AS n FROM user_groups WHERE user_id = ? AND group_id = ?", kept[i]!.id, groups[i]!.id), `kept ${i}`).toBe(1);
      expect((await call("GET", "/api/user", { as: as(kept[i]!) })).json, `kept ${i}`).toMatchObject({ id: kept[i]!.id, accountId: account.id });
    }
    // An heir of another account is no heir.
    const stranger = await createUser(accounts[0]!.id, { roles: ["ROLE_CREATE_SOURCES"] });
    await createSource(stranger);
    expect((await call("DELETE", `/api/users/${stranger.id}?transferTo=${heirs[1]!.id}`, { as: as(admins[0]!) })).status).toBe(400);
  });
});

describe("a cold sign-in's read of the user, compiled once per isolate", () => {
  it("signs in each of many interleaved users of different accounts as itself, and refuses a wrong password", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    // Users 0 and 2 administrators (their privileges come from the read's memberships), 1 and 3 not.
    const users = await Promise.all(accounts.map((a, i) => createUser(a.id, { groups: i % 2 ? ["Users"] : ["Users", "Administrators"] })));
    const [signedIn, wrong] = await Promise.all([
      Promise.all(users.map((user) => call("GET", "/api/user", { as: as(user) }))),
      call("GET", "/api/user", { as: { username: users[1]!.username, password: "not the password" } }),
    ]);
    expect(wrong.status).toBe(401);
    for (const [i, res] of signedIn.entries()) {
      expect(res.status, `user ${i}: ${res.text}`).toBe(200);
      // Not cached yet: the read of the user, then the answer's (over several databases, first whose the name is).
      expect(trips(res), `user ${i}`).toBe(String(2 + nameAsked()));
      expect(res.json, `user ${i}`).toMatchObject({ id: users[i]!.id, name: users[i]!.username, accountId: accounts[i]!.id });
      expect(res.json.activeRoles.includes("ROLE_ADMINISTER_USERS"), `user ${i}`).toBe(i % 2 === 0);
    }
  });
});
