import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, dbSnapshot, expectUnauthenticated, PASSWORD, SUPERVISOR, unique, type TestUser } from "./helpers";
import { allEverywhere, countEverywhere, sharded, shardsAsked } from "./every-database";
import { bearerFor, createClient, expectOAuthError, expireToken, pullToken, pushToken, roundTrips, type TestClient } from "./trusted-access-helpers";

/**
 * The token endpoints (client credentials, then a user's bearer token) and bearer sign-in:
 * exactly the user's privileges, verified on every request, refused on the next request once
 * revoked (by id, by the token, or by deleting its client or user, or disabling its account).
 */
let account: { id: string; name: string };
let admin: TestUser;
let member: TestUser;
let client: TestClient;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  member = await createUser(account.id);
  client = await createClient();
  await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 5 }] } });
});

const userNamed = async (name: string) => {
  const res = await call("GET", `/api/users?accountId=${account.id}&maxResults=1000`);
  return res.json.content.find((u: { name: string }) => u.name === name);
};
const attributesOf = async (userId: string) =>
  allEverywhere("SELECT attribute_key AS k, attribute_values AS v FROM user_attributes WHERE user_id = ? ORDER BY attribute_key", userId);

describe("push: create or update the user, then a token", () => {
  it("creates a user with its groups and attributes, and answers an RFC 6749 token that signs it in", async () => {
    const username = unique("pushed");
    const res = await pushToken(client.credentials, {
      username,
      account: account.name,
      fullname: "Pushed Person",
      email: "pushed@example.test",
      groups: ["Users", "Administrators"],
      attributes: [{ key: "region", values: ["emea"] }, { key: "none", values: [] }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_in: 3600,
      token_type: "bearer",
      token_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Pragma")).toBe("no-cache");
    // Client authentication, the reads, then one batch for the user, its groups, attributes and the token. Over
    // several databases (this file's account is on a shard other than the directory's), also: one directory read of
    // the account and of whose the name is, the new user's name claimed in the directory, and the directory's
    // confirmation of the client.
    expect(roundTrips(res)).toBe(sharded() ? 3 + 3 : 3);

    const user = await userNamed(username);
    expect(user).toMatchObject({ fullName: "Pushed Person", email: "pushed@example.test", groups: ["Administrators", "Users"], createdByUserID: `client:${client.clientId}` });
    expect(await attributesOf(user.id)).toEqual([
      { k: "none", v: "[]" },
      { k: "region", v: '["emea"]' },
    ]);
    // An administrator through its groups: the token reads the account's quota.
    expect((await call("GET", `/api/quota/${account.id}`, { as: { bearer: res.json.access_token } })).status).toBe(200);
  });

  it("a pushed user has no usable password: Basic refuses every guess until an administrator sets one", async () => {
    const username = unique("nopass");
    expect((await pushToken(client.credentials, { username, account: account.name })).status).toBe(200);
    for (const password of ["", "NONE", "not-a-real-password", PASSWORD]) {
      expectUnauthenticated(await call("GET", "/api/users", { as: { username, password }, headers: { "CF-Connecting-IP": "198.51.100.200" } }), "/api/users");
    }
    const user = await userNamed(username);
    expect(user.groups).toEqual(["Users"]);
    await call("PUT", `/api/users/${user.id}`, { body: { name: username, password: "now-a-password" } });
    expect((await call("GET", `/api/users/${user.id}`, { as: { username, password: "now-a-password" } })).status).toBe(403);
  });

  it("updates an existing user of the account: groups given replace its groups, profile members given replace theirs, the password stays", async () => {
    const existing = await createUser(account.id, { groups: ["Users"] });
    const analysts = await createGroup(account.id, unique("Analysts"));
    const res = await pushToken(client.credentials, { username: existing.username, account: account.name, fullname: "New Name", groups: [analysts.name] });
    expect(res.status, res.text).toBe(200);
    let user = await userNamed(existing.username);
    expect(user).toMatchObject({ fullName: "New Name", email: null, groups: [analysts.name] });
    expect((await call("GET", "/api/users", { as: as(existing) })).status).toBe(403);

    // Omitted members are kept; an empty list removes every group.
    await pushToken(client.credentials, { username: existing.username, account: account.name, email: "kept@example.test" });
    user = await userNamed(existing.username);
    expect(user).toMatchObject({ fullName: "New Name", email: "kept@example.test", groups: [analysts.name] });
    await pushToken(client.credentials, { username: existing.username, account: account.name, groups: [] });
    expect((await userNamed(existing.username)).groups).toEqual([]);
  });

  it("attributes given replace the stored ones; omitted, they stay", async () => {
    const username = unique("attrs");
    await pushToken(client.credentials, { username, account: account.name, attributes: [{ key: "a", values: ["1"] }, { key: "b", values: ["2"] }] });
    const user = await userNamed(username);
    await pushToken(client.credentials, { username, account: account.name });
    expect(await attributesOf(user.id)).toHaveLength(2);
    await pushToken(client.credentials, { username, account: account.name, attributes: [{ key: "c", values: ["3"] }] });
    expect(await attributesOf(user.id)).toEqual([{ k: "c", v: '["3"]' }]);
  });

  it("takes the reference product's attribute map, a string or a one-value list per key, as the same attributes", async () => {
    const username = unique("attrmap");
    // isw-da/composer-mcp mint_push_token sends `attributes` as {"partner_id": ["P_007"]}; the form is {"key": "value"}.
    const res = await pushToken(client.credentials, { username, account: account.name, attributes: { partner_id: ["P_007"], region: "emea", none: [] } });
    expect(res.status, res.text).toBe(200);
    const user = await userNamed(username);
    expect(await attributesOf(user.id)).toEqual([
      { k: "none", v: "[]" },
      { k: "partner_id", v: '["P_007"]' },
      { k: "region", v: '["emea"]' },
    ]);
    // The map replaces the stored attributes as the list does.
    expect((await pushToken(client.credentials, { username, account: account.name, attributes: { tier: "gold" } })).status).toBe(200);
    expect(await attributesOf(user.id)).toEqual([{ k: "tier", v: '["gold"]' }]);
  });

  it.each([
    ["two values for an attribute in a map", (name: string) => ({ username: unique("u"), account: name, attributes: { k: ["1", "2"] } }), 400, "invalid_request"],
    ["a map value that is not text", (name: string) => ({ username: unique("u"), account: name, attributes: { k: 7 } }), 400, "invalid_request"],
    ["a map key that is blank", (name: string) => ({ username: unique("u"), account: name, attributes: { "": "v" } }), 400, "invalid_request"],
    ["an unknown group", (name: string) => ({ username: unique("u"), account: name, groups: ["Users", "No Such Group"] }), 400, "invalid_request"],
    ["an unknown account", () => ({ username: unique("u"), account: unique("Nowhere") }), 400, "invalid_request"],
    ["no username", (name: string) => ({ account: name }), 400, "invalid_request"],
    ["no account", () => ({ username: unique("u") }), 400, "invalid_request"],
    ["a username with a colon", (name: string) => ({ username: "a:b", account: name }), 400, "invalid_request"],
    ["a bad email", (name: string) => ({ username: unique("u"), account: name, email: "not an email" }), 400, "invalid_request"],
    ["two values for an attribute", (name: string) => ({ username: unique("u"), account: name, attributes: [{ key: "k", values: ["1", "2"] }] }), 400, "invalid_request"],
    ["one attribute key twice", (name: string) => ({ username: unique("u"), account: name, attributes: [{ key: "k", values: [] }, { key: "k", values: [] }] }), 400, "invalid_request"],
    ["the supervisor's name", (name: string) => ({ username: SUPERVISOR.username, account: name }), 403, "access_denied"],
    ["the supervisor's name in capitals", (name: string) => ({ username: SUPERVISOR.username.toUpperCase(), account: name }), 403, "access_denied"],
  ])("refuses %s, and changes nothing", async (_label, body, status, error) => {
    const before = await dbSnapshot();
    expectOAuthError(await pushToken(client.credentials, body(account.name)), status, error);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("never touches another account's user: a username taken elsewhere is invalid_grant", async () => {
    const other = await createAccount();
    const theirs = await createUser(other.id, { groups: ["Users"] });
    const before = await dbSnapshot();
    const res = await pushToken(client.credentials, { username: theirs.username, account: account.name, groups: ["Administrators"] });
    expectOAuthError(res, 400, "invalid_grant");
    expect(await dbSnapshot()).toEqual(before);
    expect(res.text).not.toContain(other.name);
    expect(res.text).not.toContain(other.id);
  });

  it("of concurrent pushes of one new username, all get a token and exactly one user is made", async () => {
    const username = unique("crowd");
    const results = await Promise.all(Array.from({ length: 6 }, () => pushToken(client.credentials, { username, account: account.name, groups: ["Users"] })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await countEverywhere("SELECT count(*) AS n FROM users WHERE name = ?", username)).toBe(1);
    const user = await userNamed(username);
    for (const r of results) expect((await call("GET", `/api/users/${user.id}`, { as: { bearer: r.json.access_token } })).status).toBe(403);
  });
});

describe("pull: a token for an existing user", () => {
  it("by username alone (names are unique), or with its account's name; two round trips", async () => {
    const res = await pullToken(client.credentials, { username: member.username });
    expect(res.status, res.text).toBe(200);
    // Over several databases, also: the directory asked whose the name is, and its confirmation of the client.
    expect(roundTrips(res)).toBe(sharded() ? 2 + 2 : 2);
    expect((await pullToken(client.credentials, { username: member.username, account: account.name })).status).toBe(200);
  });

  it("refuses an unknown user or a user of another account (invalid_grant), an unknown account (invalid_request), the supervisor (access_denied)", async () => {
    const other = await createAccount();
    const before = await dbSnapshot();
    expectOAuthError(await pullToken(client.credentials, { username: unique("ghost") }), 400, "invalid_grant");
    expectOAuthError(await pullToken(client.credentials, { username: member.username, account: other.name }), 400, "invalid_grant");
    expectOAuthError(await pullToken(client.credentials, { username: member.username, account: unique("Nowhere") }), 400, "invalid_request");
    expectOAuthError(await pullToken(client.credentials, { username: SUPERVISOR.username }), 403, "access_denied");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("a client restricted to accounts", () => {
  it("issues tokens in its accounts only: another account is unauthorized_client whether it exists or not; a user elsewhere does not exist for it", async () => {
    const other = await createAccount();
    const stranger = await createUser(other.id);
    const restricted = await createClient({ account_ids: [account.id] });
    expect((await pullToken(restricted.credentials, { username: member.username })).status).toBe(200);
    const before = await dbSnapshot();
    const existing = await pushToken(restricted.credentials, { username: unique("u"), account: other.name });
    const missing = await pushToken(restricted.credentials, { username: unique("u"), account: unique("Nowhere") });
    expectOAuthError(existing, 400, "unauthorized_client");
    expectOAuthError(missing, 400, "unauthorized_client");
    expectOAuthError(await pullToken(restricted.credentials, { username: stranger.username, account: other.name }), 400, "unauthorized_client");
    // A user of an account it does not serve is answered exactly like one that does not exist.
    const ghostName = unique("ghost");
    const hidden = await pullToken(restricted.credentials, { username: stranger.username });
    const ghost = await pullToken(restricted.credentials, { username: ghostName });
    expectOAuthError(hidden, 400, "invalid_grant");
    expectOAuthError(ghost, 400, "invalid_grant");
    expect(hidden.json.error_description.replace(stranger.username, "NAME")).toBe(ghost.json.error_description.replace(ghostName, "NAME"));
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("client authentication of the token endpoints", () => {
  const from = (address: string) => ({ "CF-Connecting-IP": address });

  it.each([
    ["no credentials", () => null],
    ["a user's credentials", () => as(admin)],
    ["the supervisor's credentials", () => SUPERVISOR],
    ["an unknown client", () => ({ username: crypto.randomUUID(), password: "x".repeat(43) })],
    ["a wrong secret (its last character changed)", () => ({ username: client.clientId, password: `${client.clientSecret.slice(0, -1)}${client.clientSecret.endsWith("A") ? "Q" : "A"}` })],
    ["a bearer token", () => ({ bearer: "some-bearer-token-value" })],
  ])("%s: 401 invalid_client with a Basic challenge, nothing changed", async (_label, who) => {
    const before = await dbSnapshot();
    for (const send of [pushToken, pullToken]) {
      const res = await send(who() as never, { username: unique("u"), account: account.name }, from("192.0.2.10"));
      expectOAuthError(res, 401, "invalid_client");
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="trusted-access", charset="UTF-8"');
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses before reading the body: a bad client with a broken body is still 401", async () => {
    const res = await call("POST", "/api/trusted-access/pull/tokens", { as: null, rawBody: "{not json", headers: { "Content-Type": "application/json" } });
    // Without Accept, answered in the request's own media type.
    expectOAuthError(res, 401, "invalid_client", "application/json");
  });

  it("throttles failures per (address, client_id): 429 after ten; the right secret from elsewhere, and user logins from there, still work", async () => {
    const victim = await createClient();
    const wrong = { username: victim.clientId, password: "wrong-secret" };
    for (let i = 0; i < 10; i++) expectOAuthError(await pullToken(wrong, { username: member.username }, from("198.51.100.77")), 401, "invalid_client");
    const limited = await pullToken(wrong, { username: member.username }, from("198.51.100.77"));
    expectOAuthError(limited, 429, "temporarily_unavailable");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Locked out: even the right secret, from that address.
    expectOAuthError(await pullToken(victim.credentials, { username: member.username }, from("198.51.100.77")), 429, "temporarily_unavailable");
    expect((await pullToken(victim.credentials, { username: member.username }, from("198.51.100.78"))).status).toBe(200);
    expect((await pullToken(client.credentials, { username: member.username }, from("198.51.100.77"))).status).toBe(200);
    expect((await call("GET", "/api/users", { as: as(admin), headers: from("198.51.100.77") })).status).toBe(200);
  });
});

describe("bearer sign-in", () => {
  it("carries exactly the user's privileges, read anew on every request", async () => {
    const user = await createUser(account.id, { groups: ["Users"] });
    const { bearer } = await bearerFor(client, user.username);
    expect((await call("GET", `/api/quota/${account.id}`, { as: { bearer } })).status).toBe(403);
    await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, groups: ["Users", "Administrators"] } });
    expect((await call("GET", `/api/quota/${account.id}`, { as: { bearer } })).status).toBe(200);
    // Another account's objects stay 404, as for Basic.
    const other = await createAccount();
    expect((await call("GET", `/api/quota/${other.id}`, { as: { bearer } })).status).toBe(404);
  });

  it("verifies on every request; once this isolate knows the token, the check rides on the handler's read: E17 is 1, as with warm Basic", async () => {
    const { bearer } = await bearerFor(client, admin.username);
    // First sight: the token's own round trip, then the read (over several databases, every shard asked first where the token is).
    expect(roundTrips(await call("GET", `/api/quota/${account.id}`, { as: { bearer } }))).toBe(2 + shardsAsked());
    for (let i = 0; i < 3; i++) expect(roundTrips(await call("GET", `/api/quota/${account.id}`, { as: { bearer } }))).toBe(1);
    await call("GET", `/api/quota/${account.id}`, { as: as(admin) });
    expect(roundTrips(await call("GET", `/api/quota/${account.id}`, { as: as(admin) }))).toBe(1);
  });

  it("an expired token: 401 with `WWW-Authenticate: Bearer error=\"invalid_token\"`", async () => {
    const { bearer, tokenId } = await bearerFor(client, member.username);
    await expireToken(tokenId);
    const res = await call("GET", "/api/users", { as: { bearer } });
    expectUnauthenticated(res, "/api/users", "Bearer");
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="api", error="invalid_token"');
  });
});

describe("revocation", () => {
  const signedIn = async (bearer: string) => (await call("GET", "/api/users", { as: { bearer } })).status !== 401;

  it("by token_id or by the token itself (supervisor): 204, and refused on the very next request", async () => {
    for (const byToken of [false, true]) {
      const { bearer, tokenId } = await bearerFor(client, member.username);
      expect(await signedIn(bearer)).toBe(true);
      const res = await call("DELETE", `/api/trusted-access/tokens/${encodeURIComponent(byToken ? bearer : tokenId)}`);
      expect(res.status).toBe(204);
      // Over several databases, every shard is asked first which holds the token (db/shards/locate.ts).
      expect(roundTrips(res)).toBe(1 + shardsAsked());
      expect(await signedIn(bearer)).toBe(false);
      expectOAuthError(await call("DELETE", `/api/trusted-access/tokens/${tokenId}`), 404, "invalid_request");
    }
  });

  it("only by the supervisor", async () => {
    const { bearer, tokenId } = await bearerFor(client, member.username);
    expectOAuthError(await call("DELETE", `/api/trusted-access/tokens/${tokenId}`, { as: as(admin) }), 403, "access_denied");
    expectOAuthError(await call("DELETE", `/api/trusted-access/tokens/${tokenId}`, { as: { bearer } }), 403, "access_denied");
    expect(await signedIn(bearer)).toBe(true);
  });

  it("deleting the user revokes its tokens at once", async () => {
    const user = await createUser(account.id);
    const { bearer } = await bearerFor(client, user.username);
    expect((await call("DELETE", `/api/users/${user.id}`)).status).toBe(204);
    expect(await signedIn(bearer)).toBe(false);
  });

  it("disabling the account revokes its users' tokens for good: enabling it again does not bring them back, and no new token is issued meanwhile", async () => {
    const doomed = await createAccount();
    const user = await createUser(doomed.id);
    const { bearer } = await bearerFor(client, user.username);
    const other = await bearerFor(client, member.username);
    expect((await call("PUT", `/api/accounts/${doomed.id}`, { body: { name: doomed.name, disabled: true } })).status).toBe(200);
    expect(await signedIn(bearer)).toBe(false);
    expect(await signedIn(other.bearer)).toBe(true);
    expectOAuthError(await pullToken(client.credentials, { username: user.username }), 403, "access_denied");
    expectOAuthError(await pushToken(client.credentials, { username: user.username, account: doomed.name }), 403, "access_denied");
    expect((await call("PUT", `/api/accounts/${doomed.id}`, { body: { name: doomed.name, disabled: false } })).status).toBe(200);
    expect(await signedIn(bearer)).toBe(false);
    expect((await pullToken(client.credentials, { username: user.username })).status).toBe(200);
  });

  it("a token request racing the account's disable leaves no token that works", async () => {
    const doomed = await createAccount();
    const user = await createUser(doomed.id);
    const results = await Promise.all([
      call("PUT", `/api/accounts/${doomed.id}`, { body: { name: doomed.name, disabled: true } }),
      ...Array.from({ length: 6 }, () => pullToken(client.credentials, { username: user.username })),
    ]);
    for (const r of results.slice(1).filter((r) => r.status === 200)) expect(await signedIn(r.json.access_token)).toBe(false);
    expect(await countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE account_id = ?", doomed.id)).toBe(0);
  });
});

describe("expired tokens are swept", () => {
  it("each issuance deletes some expired tokens, so the table does not grow without end", async () => {
    const stale = await bearerFor(client, member.username);
    await expireToken(stale.tokenId);
    await bearerFor(client, member.username);
    expect(await countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE token_id = ?", stale.tokenId)).toBe(0);
  });
});

