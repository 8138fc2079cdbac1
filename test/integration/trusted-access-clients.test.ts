import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/domain/passwords";
import { as, call, createAccount, createUser, dbSnapshot, unique, type TestUser } from "./helpers";
import { countEverywhere, otherShards } from "./every-database";
import { bearerFor, createClient, expectOAuthError, pullToken, pushToken, roundTrips } from "./trusted-access-helpers";

/**
 * Trusted-access clients (supervisor only): their secret is shown once, stored as a digest, and
 * stops working when it expires, is rotated (at once or after a grace period), or the client goes.
 */
const CLIENTS = "/api/trusted-access/clients";
let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe("creating a client", () => {
  it("answers 201 with Location, ETag and the only copy of a 256-bit secret; stores its SHA-256 only", async () => {
    const name = unique("portal");
    const res = await call("POST", CLIENTS, { body: { client_name: name, access_token_validity_seconds: 900 } });
    expect(res.status, res.text).toBe(201);
    // Over several databases, one more per shard other than the directory's: the client's stub there.
    expect(roundTrips(res)).toBe(1 + otherShards());
    const client = res.json;
    expect(client).toEqual({
      client_name: name,
      access_token_validity_seconds: 900,
      client_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_secret_expires_at: 0,
      token_endpoint_auth_method: "client_secret_basic",
      client_id_issued_at: expect.any(Number),
      account_ids: null,
      previous_client_secret_expires_at: null,
    });
    expect(res.headers.get("Location")).toBe(`${CLIENTS}/${client.client_id}`);
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]+"$/);
    expect(Math.abs(client.client_id_issued_at - Date.now() / 1000)).toBeLessThan(120);

    const row = await env.DB.prepare("SELECT * FROM trusted_access_clients WHERE client_id = ?").bind(client.client_id).first<Record<string, unknown>>();
    expect(row!.secret_digest).toBe(await sha256Hex(client.client_secret));
    expect(JSON.stringify(row)).not.toContain(client.client_secret);
  });

  it("never shows the secret again: not in the list, a read, an update, nor an error", async () => {
    const created = (await call("POST", CLIENTS, { body: { client_name: unique("quiet"), access_token_validity_seconds: 60 } })).json;
    const secret: string = created.client_secret;
    const answers = [
      await call("GET", CLIENTS),
      await call("GET", `${CLIENTS}/${created.client_id}`),
      await call("PATCH", `${CLIENTS}/${created.client_id}`, { body: { access_token_validity_seconds: 120 } }),
      await call("POST", CLIENTS, { body: { client_name: created.client_name, access_token_validity_seconds: 60 } }),
      await pullToken({ username: created.client_id, password: `${secret}x` }, { username: admin.username }, { "CF-Connecting-IP": "203.0.113.90" }),
    ];
    for (const res of answers) {
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain("client_secret\"");
    }
    expect(answers[0]!.json.content.some((c: { client_id: string }) => c.client_id === created.client_id)).toBe(true);
  });

  it("lists {content} by name, in one round trip", async () => {
    const res = await call("GET", CLIENTS);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    const names = res.json.content.map((c: { client_name: string }) => c.client_name);
    expect(names).toEqual([...names].sort());
  });

  it("shows each client in the list as its own GET shows it (the list builds its objects from the row's values itself)", async () => {
    const other = await createAccount();
    const restricted = await createClient({ account_ids: [account.id, other.id] });
    const expiring = await createClient({ client_secret_expires_at: inAnHour() });
    const rotated = await createClient({ client_secret_expires_at: inAnHour() });
    expect((await call("POST", `${CLIENTS}/${rotated.clientId}/secret`, { body: { grace_period_seconds: 3600 } })).status).toBe(200);
    const list = await call("GET", CLIENTS);
    expect(list.status).toBe(200);
    const listed = new Map(list.json.content.map((c: { client_id: string }) => [c.client_id, c]));
    for (const { clientId } of [restricted, expiring, rotated]) {
      const one = await call("GET", `${CLIENTS}/${clientId}`);
      expect(listed.get(clientId)).toEqual(one.json);
    }
    expect(listed.get(restricted.clientId)).toMatchObject({ account_ids: [account.id, other.id], client_secret_expires_at: 0, previous_client_secret_expires_at: null });
    expect(listed.get(expiring.clientId)).toMatchObject({ account_ids: null, client_secret_expires_at: expect.any(Number) });
    expect(listed.get(rotated.clientId)).toMatchObject({ previous_client_secret_expires_at: expect.any(Number) });
  });

  it("may be restricted to accounts, which must exist", async () => {
    const other = await createAccount();
    const restricted = await call("POST", CLIENTS, { body: { client_name: unique("one"), access_token_validity_seconds: 60, account_ids: [account.id, other.id, account.id] } });
    expect(restricted.status).toBe(201);
    expect(restricted.json.account_ids).toEqual([account.id, other.id]);
    expect(roundTrips(restricted)).toBe(2 + otherShards());

    const before = await dbSnapshot();
    const res = await call("POST", CLIENTS, { body: { client_name: unique("bad"), access_token_validity_seconds: 60, account_ids: [account.id, crypto.randomUUID()] } });
    expectOAuthError(res, 400, "invalid_request");
    expect(res.json.error_description).toContain("account_ids");
    expect(await dbSnapshot()).toEqual(before);
  });

  it.each([
    ["no access_token_validity_seconds", { client_name: "x" }],
    ["no client_name", { access_token_validity_seconds: 60 }],
    ["an empty client_name", { client_name: " ", access_token_validity_seconds: 60 }],
    ["a control character in client_name", { client_name: "a\u0000b", access_token_validity_seconds: 60 }],
    ["a validity of 0", { client_name: "x", access_token_validity_seconds: 0 }],
    ["a validity over 30 days", { client_name: "x", access_token_validity_seconds: 2_592_001 }],
    ["a fractional validity", { client_name: "x", access_token_validity_seconds: 1.5 }],
    ["a validity as text", { client_name: "x", access_token_validity_seconds: "60" }],
    ["a secret expiry in the past", { client_name: "x", access_token_validity_seconds: 60, client_secret_expires_at: 1_000_000_000 }],
    ["a secret expiry in milliseconds", { client_name: "x", access_token_validity_seconds: 60, client_secret_expires_at: Date.now() + 3_600_000 }],
    ["another auth method", { client_name: "x", access_token_validity_seconds: 60, token_endpoint_auth_method: "client_secret_post" }],
    ["an empty account list", { client_name: "x", access_token_validity_seconds: 60, account_ids: [] }],
  ])("refuses %s: 400 invalid_request, nothing stored", async (_label, body) => {
    const before = await dbSnapshot();
    expectOAuthError(await call("POST", CLIENTS, { body }), 400, "invalid_request");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("keeps names unique: 409, and of concurrent creates with one name exactly one wins", async () => {
    const name = unique("taken");
    const results = await Promise.all(Array.from({ length: 8 }, () => call("POST", CLIENTS, { body: { client_name: name, access_token_validity_seconds: 60 } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expectOAuthError(r, 409, "invalid_request");
    const listed = (await call("GET", CLIENTS)).json.content.filter((c: { client_name: string }) => c.client_name === name);
    expect(listed).toHaveLength(1);
  });
});

describe("who may manage clients", () => {
  it("the supervisor only: 401 invalid_client without credentials, 403 access_denied for an admin or a token user", async () => {
    const client = await createClient();
    const token = await bearerFor(client, admin.username);
    for (const path of [CLIENTS, `${CLIENTS}/${client.clientId}`]) {
      expectOAuthError(await call("GET", path, { as: null }), 401, "invalid_client");
      expectOAuthError(await call("GET", path, { as: as(admin) }), 403, "access_denied");
      expectOAuthError(await call("GET", path, { as: { bearer: token.bearer } }), 403, "access_denied");
      expectOAuthError(await call("GET", path, { as: { bearer: "not-a-token-of-this-service" } }), 401, "invalid_token");
      // Client credentials are no user's: they open the token endpoints only.
      expectOAuthError(await call("GET", path, { as: client.credentials, headers: { "CF-Connecting-IP": "203.0.113.91" } }), 401, "invalid_client");
    }
  });

  it("an unknown client id: 404 invalid_request (the supervisor's credentials are fine)", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      expectOAuthError(await call("GET", `${CLIENTS}/${id}`), 404, "invalid_request");
      expectOAuthError(await call("PATCH", `${CLIENTS}/${id}`, { body: { client_name: "x" } }), 404, "invalid_request");
      expectOAuthError(await call("DELETE", `${CLIENTS}/${id}`), 404, "invalid_request");
      expectOAuthError(await call("POST", `${CLIENTS}/${id}/secret`, { body: {} }), 404, "invalid_request");
    }
  });

  it("answers of the pipeline under /api/trusted-access/ are OAuth bodies too", async () => {
    expectOAuthError(await call("PUT", CLIENTS, { body: {} }), 405, "invalid_request");
    expectOAuthError(await call("GET", "/api/trusted-access/nothing-here"), 404, "invalid_request");
    expectOAuthError(await call("GET", CLIENTS, { headers: { Accept: "text/html" } }), 406, "invalid_request");
    expectOAuthError(await call("POST", CLIENTS, { rawBody: "x", headers: { "Content-Type": "text/plain" } }), 415, "invalid_request");
  });
});

describe("changing a client", () => {
  it("PATCH changes the members given and keeps the others; ETag and If-Match as everywhere", async () => {
    const created = (await call("POST", CLIENTS, { body: { client_name: unique("patch"), access_token_validity_seconds: 60 } })).json;
    const path = `${CLIENTS}/${created.client_id}`;
    const etag = (await call("GET", path)).headers.get("ETag")!;
    const expiry = inAnHour();
    const res = await call("PATCH", path, { body: { access_token_validity_seconds: 7200, client_secret_expires_at: expiry }, headers: { "If-Match": etag } });
    expect(res.status, res.text).toBe(200);
    expect(roundTrips(res)).toBe(2);
    expect(res.json).toMatchObject({ client_name: created.client_name, access_token_validity_seconds: 7200, client_secret_expires_at: expiry, account_ids: null });
    expect(res.headers.get("ETag")).not.toBe(etag);
    expect((await call("GET", path)).json).toEqual(res.json);

    const taken = (await createClient()).clientId;
    const takenName = (await call("GET", `${CLIENTS}/${taken}`)).json.client_name;
    const before = await dbSnapshot();
    expectOAuthError(await call("PATCH", path, { body: { client_name: unique("late") }, headers: { "If-Match": etag } }), 412, "invalid_request");
    expectOAuthError(await call("PATCH", path, { body: { access_token_validity_seconds: 0 } }), 400, "invalid_request");
    expectOAuthError(await call("PATCH", path, { body: { account_ids: [crypto.randomUUID()] } }), 400, "invalid_request");
    expectOAuthError(await call("PATCH", path, { body: { client_name: takenName } }), 409, "invalid_request");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("of two concurrent PATCHes with the same If-Match, one wins and the other gets 412", async () => {
    const created = (await call("POST", CLIENTS, { body: { client_name: unique("race"), access_token_validity_seconds: 60 } })).json;
    const path = `${CLIENTS}/${created.client_id}`;
    const etag = (await call("GET", path)).headers.get("ETag")!;
    const results = await Promise.all([100, 200].map((v) => call("PATCH", path, { body: { access_token_validity_seconds: v }, headers: { "If-Match": etag } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
  });

  it("a new validity applies to tokens issued from then on", async () => {
    const client = await createClient();
    await call("PATCH", `${CLIENTS}/${client.clientId}`, { body: { access_token_validity_seconds: 42 } });
    expect((await pullToken(client.credentials, { username: admin.username })).json.expires_in).toBe(42);
  });

  it("narrowing its accounts revokes the tokens it issued elsewhere, at once", async () => {
    const other = await createAccount();
    const otherUser = await createUser(other.id);
    const client = await createClient();
    const here = await bearerFor(client, admin.username);
    const there = await bearerFor(client, otherUser.username);
    const res = await call("PATCH", `${CLIENTS}/${client.clientId}`, { body: { account_ids: [account.id] } });
    expect(res.status).toBe(200);
    expect((await call("GET", "/api/users", { as: { bearer: here.bearer } })).status).toBe(200);
    expect((await call("GET", "/api/users", { as: { bearer: there.bearer } })).status).toBe(401);
    expectOAuthError(await pullToken(client.credentials, { username: otherUser.username }), 400, "invalid_grant");
    // Lifting the restriction (null) serves every account again.
    await call("PATCH", `${CLIENTS}/${client.clientId}`, { body: { account_ids: null } });
    expect((await pullToken(client.credentials, { username: otherUser.username })).status).toBe(200);
  });
});

describe("the client secret", () => {
  it("stops working when it expires: 401 invalid_client with a Basic challenge", async () => {
    const client = await createClient({ client_secret_expires_at: inAnHour() });
    expect((await pullToken(client.credentials, { username: admin.username })).status).toBe(200);
    await env.DB.prepare("UPDATE trusted_access_clients SET client_secret_expires_at = ? WHERE client_id = ?").bind(Math.floor(Date.now() / 1000) - 1, client.clientId).run();
    expectOAuthError(await pullToken(client.credentials, { username: admin.username }), 401, "invalid_client");
  });

  it("rotated without grace: the answer shows the new secret once; the old one stops at once; tokens keep working", async () => {
    const client = await createClient();
    const token = await bearerFor(client, admin.username);
    const res = await call("POST", `${CLIENTS}/${client.clientId}/secret`, { body: {} });
    expect(res.status, res.text).toBe(200);
    expect(roundTrips(res)).toBe(2);
    const secret = res.json.client_secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(client.clientSecret);
    expect(res.json.previous_client_secret_expires_at).toBeNull();
    expectOAuthError(await pullToken(client.credentials, { username: admin.username }), 401, "invalid_client");
    expect((await pullToken({ username: client.clientId, password: secret }, { username: admin.username })).status).toBe(200);
    expect((await call("GET", "/api/users", { as: { bearer: token.bearer } })).status).toBe(200);
    expect((await call("GET", `${CLIENTS}/${client.clientId}`)).text).not.toContain(secret);
  });

  it("rotated with a grace period: both work until it ends (never past the old secret's own expiry)", async () => {
    const expiry = inAnHour();
    const client = await createClient({ client_secret_expires_at: expiry });
    const res = await call("POST", `${CLIENTS}/${client.clientId}/secret`, { body: { grace_period_seconds: 86_400, client_secret_expires_at: 0 } });
    expect(res.json.previous_client_secret_expires_at).toBe(expiry);
    expect(res.json.client_secret_expires_at).toBe(0);
    expect((await pullToken(client.credentials, { username: admin.username })).status).toBe(200);
    expect((await pullToken({ username: client.clientId, password: res.json.client_secret }, { username: admin.username })).status).toBe(200);
    // The grace period over, the old secret fails.
    await env.DB.prepare("UPDATE trusted_access_clients SET previous_secret_expires_at = ? WHERE client_id = ?").bind(Math.floor(Date.now() / 1000) - 1, client.clientId).run();
    expectOAuthError(await pullToken(client.credentials, { username: admin.username }), 401, "invalid_client");
  });

  it("rotated with revoke_tokens: every token the client issued stops working", async () => {
    const client = await createClient();
    const token = await bearerFor(client, admin.username);
    const other = await bearerFor(await createClient(), admin.username);
    await call("POST", `${CLIENTS}/${client.clientId}/secret`, { body: { revoke_tokens: true } });
    expect((await call("GET", "/api/users", { as: { bearer: token.bearer } })).status).toBe(401);
    expect((await call("GET", "/api/users", { as: { bearer: other.bearer } })).status).toBe(200);
  });

  it("two rotations at once: both answer 200, and only the secret of the one that ran last works", async () => {
    const client = await createClient();
    const [a, b] = await Promise.all([0, 1].map(() => call("POST", `${CLIENTS}/${client.clientId}/secret`, { body: {} })));
    const works = await Promise.all(
      [a!, b!].map(async (r) => (await pullToken({ username: client.clientId, password: r.json.client_secret }, { username: admin.username })).status),
    );
    expect(works.sort()).toEqual([200, 401]);
  });
});

describe("deleting a client", () => {
  it("204; then 404; its secret and every token it issued stop working at once", async () => {
    const client = await createClient();
    const token = await bearerFor(client, admin.username);
    const res = await call("DELETE", `${CLIENTS}/${client.clientId}`);
    expect(res.status).toBe(204);
    // Over several databases, one more per shard other than the directory's: its tokens there go too.
    expect(roundTrips(res)).toBe(2 + otherShards());
    expectOAuthError(await call("GET", `${CLIENTS}/${client.clientId}`), 404, "invalid_request");
    expectOAuthError(await pullToken(client.credentials, { username: admin.username }), 401, "invalid_client");
    expectOAuthError(await pushToken(client.credentials, { username: admin.username, account: account.name }), 401, "invalid_client");
    expect((await call("GET", "/api/users", { as: { bearer: token.bearer } })).status).toBe(401);
    expect(await countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE client_id = ?", client.clientId)).toBe(0);
  });

  it("a stale If-Match: 412, and the client and its tokens stay", async () => {
    const client = await createClient();
    const token = await bearerFor(client, admin.username);
    expectOAuthError(await call("DELETE", `${CLIENTS}/${client.clientId}`, { headers: { "If-Match": '"stale"' } }), 412, "invalid_request");
    expect((await call("GET", "/api/users", { as: { bearer: token.bearer } })).status).toBe(200);
  });

  it("a token request racing the delete never leaves a token of the deleted client", async () => {
    const client = await createClient();
    await Promise.all([
      call("DELETE", `${CLIENTS}/${client.clientId}`),
      ...Array.from({ length: 6 }, (_, i) =>
        i % 2 ? pullToken(client.credentials, { username: admin.username }) : pushToken(client.credentials, { username: unique("racer"), account: account.name }),
      ),
    ]);
    expect(await countEverywhere("SELECT count(*) AS n FROM access_tokens WHERE client_id = ?", client.clientId)).toBe(0);
  });
});

