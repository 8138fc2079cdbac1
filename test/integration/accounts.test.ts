import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  as,
  call,
  createAccount,
  createGroup,
  createUser,
  databases,
  dbSnapshot,
  DEFAULT_ACCOUNT_ID,
  expectError,
  expectUnauthenticated,
  rowsOfAccount,
  unique,
  VENDOR_JSON,
  type TestUser,
} from "./helpers";
import { bearerFor, createClient } from "./trusted-access-helpers";

const ACCOUNT_MEMBERS = [
  "attributes",
  "createdByUserID",
  "createdDate",
  "disabled",
  "id",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "links",
  "name",
  "numberOfUsers",
  "replyToAddress",
  "senderDisplayName",
  "shard",
];

describe("accounts", () => {
  it("lists every account as {content}", async () => {
    const created = await createAccount();
    const res = await call("GET", "/api/accounts");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(Object.keys(res.json)).toEqual(["content"]);
    const ids = res.json.content.map((a: { id: string }) => a.id);
    expect(ids).toContain(DEFAULT_ACCOUNT_ID);
    expect(ids).toContain(created.id);
    for (const account of res.json.content) expect(Object.keys(account).sort()).toEqual(ACCOUNT_MEMBERS);
  });

  it("shows each account in the list as its own GET shows it (the list builds its objects from the row's values itself)", async () => {
    const full = await call("POST", "/api/accounts", {
      body: {
        name: unique("listed"),
        replyToAddress: "reply@example.com",
        senderDisplayName: "Listed",
        attributes: [
          { key: "apiKey", value: "listed-secret", isSecured: true },
          { key: "region", value: "eu" },
        ],
      },
    });
    expect(full.status).toBe(201);
    const disabled = await createAccount();
    expect((await call("PUT", `/api/accounts/${disabled.id}`, { body: { name: disabled.name, disabled: true } })).status).toBe(200);
    await createUser(full.json.id);
    const list = await call("GET", "/api/accounts");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("listed-secret");
    const listed = new Map(list.json.content.map((a: { id: string }) => [a.id, a]));
    for (const id of [full.json.id, disabled.id, DEFAULT_ACCOUNT_ID]) {
      const one = await call("GET", `/api/accounts/${id}`);
      expect(listed.get(id)).toEqual(one.json);
    }
    expect(listed.get(full.json.id)).toMatchObject({ disabled: false, numberOfUsers: 1, replyToAddress: "reply@example.com", attributes: [{ key: "apiKey", isSecured: true }, { key: "region", value: "eu", isSecured: false }] });
    expect(listed.get(disabled.id)).toMatchObject({ disabled: true, numberOfUsers: 0, replyToAddress: null });
  });

  it("creates an account: 201, Location, ETag, and its two built-in groups", async () => {
    const name = unique("created");
    const res = await call("POST", "/api/accounts", {
      body: { name, replyToAddress: "noreply@example.com", senderDisplayName: "Acme" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name,
      disabled: false,
      numberOfUsers: 0,
      replyToAddress: "noreply@example.com",
      senderDisplayName: "Acme",
      attributes: [],
      createdByUserID: "supervisor",
      lastModifiedByUserID: "supervisor",
    });
    expect(res.headers.get("Location")).toBe(`/api/accounts/${res.json.id}`);
    expect(res.json.links).toEqual([{ rel: "self", href: res.headers.get("Location") }]);
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);

    const fetched = await call("GET", res.headers.get("Location")!);
    expect(fetched.status).toBe(200);
    expect(fetched.json).toEqual(res.json);
    expect(fetched.headers.get("ETag")).toBe(res.headers.get("ETag"));

    const groups = await call("GET", `/api/groups?accountId=${res.json.id}`);
    expect(groups.status).toBe(200);
    expect(
      groups.json.content.map((g: { name: string; privileges: string[]; builtIn: boolean; accountId: string }) => [
        g.name,
        g.privileges,
        g.builtIn,
        g.accountId,
      ]),
    ).toEqual([
      ["Administrators", ["ROLE_ADMIN", "ROLE_VIEW_AUDIT"], true, res.json.id],
      ["Users", [], true, res.json.id],
    ]);
  });

  it("refuses a second account with the same name (409 DUPLICATED) and changes nothing", async () => {
    const existing = await createAccount();
    const before = await dbSnapshot();
    const res = await call("POST", "/api/accounts", { body: { name: existing.name } });
    expectError(res, 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("E10 loads an account by name, 404 for an unknown name", async () => {
    const created = await createAccount();
    const res = await call("GET", `/api/accounts/name/${encodeURIComponent(created.name)}`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(created.id);
    expect(res.json.name).toBe(created.name);
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);

    const missing = await call("GET", `/api/accounts/name/${unique("nobody")}`);
    expectError(missing, 404, "NOT_FOUND");
  });

  it("loads one account by id, 404 for an unknown id", async () => {
    const created = await createAccount();
    const res = await call("GET", `/api/accounts/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.json.name).toBe(created.name);
    expectError(await call("GET", `/api/accounts/${crypto.randomUUID()}`), 404, "NOT_FOUND");
  });

  it("counts the account's users in numberOfUsers", async () => {
    const account = await createAccount();
    await createUser(account.id);
    await createUser(account.id);
    const res = await call("GET", `/api/accounts/${account.id}`);
    expect(res.json.numberOfUsers).toBe(2);
  });

  describe("PUT", () => {
    it("updates the account (200) with a new ETag and audit members", async () => {
      const account = await createAccount();
      const before = await call("GET", `/api/accounts/${account.id}`);
      const name = unique("renamed");
      const res = await call("PUT", `/api/accounts/${account.id}`, {
        body: { id: account.id, name, senderDisplayName: "New sender" },
        headers: { "If-Match": before.headers.get("ETag")! },
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id: account.id, name, senderDisplayName: "New sender", disabled: false });
      expect(res.json.createdDate).toBe(before.json.createdDate);
      expect(res.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
      const after = await call("GET", `/api/accounts/${account.id}`);
      expect(after.json).toEqual(res.json);
      expect(after.headers.get("ETag")).toBe(res.headers.get("ETag"));
    });

    it("answers 412 to a stale If-Match and changes nothing", async () => {
      const account = await createAccount();
      const first = await call("GET", `/api/accounts/${account.id}`);
      const stale = first.headers.get("ETag")!;
      const updated = await call("PUT", `/api/accounts/${account.id}`, { body: { name: unique("v2") } });
      expect(updated.status).toBe(200);

      const before = await dbSnapshot();
      const res = await call("PUT", `/api/accounts/${account.id}`, { body: { name: unique("v3") }, headers: { "If-Match": stale } });
      expectError(res, 412, "PRECONDITION_FAILED");
      expect(await dbSnapshot()).toEqual(before);
    });

    it("answers 409 DUPLICATED when the new name is taken", async () => {
      const a = await createAccount();
      const b = await createAccount();
      const before = await dbSnapshot();
      const res = await call("PUT", `/api/accounts/${a.id}`, { body: { name: b.name } });
      expectError(res, 409, "DUPLICATED", ["body.name"]);
      expect(await dbSnapshot()).toEqual(before);
    });

    it("answers 400 ID_MISMATCH when the body names another id", async () => {
      const a = await createAccount();
      const before = await dbSnapshot();
      const res = await call("PUT", `/api/accounts/${a.id}`, { body: { id: DEFAULT_ACCOUNT_ID, name: unique("x") } });
      expectError(res, 400, "ID_MISMATCH");
      expect(await dbSnapshot()).toEqual(before);
    });

    it("answers 404 for an unknown id", async () => {
      expectError(await call("PUT", `/api/accounts/${crypto.randomUUID()}`, { body: { name: unique("x") } }), 404, "NOT_FOUND");
    });
  });

  describe("the default account", () => {
    it("cannot be deleted (409 DEFAULT_ACCOUNT_PROTECTED)", async () => {
      const before = await dbSnapshot();
      const res = await call("DELETE", `/api/accounts/${DEFAULT_ACCOUNT_ID}`);
      expectError(res, 409, "DEFAULT_ACCOUNT_PROTECTED");
      expect(await dbSnapshot()).toEqual(before);
    });

    it("cannot be disabled (409 DEFAULT_ACCOUNT_PROTECTED)", async () => {
      const before = await dbSnapshot();
      const res = await call("PUT", `/api/accounts/${DEFAULT_ACCOUNT_ID}`, { body: { name: "Default", disabled: true } });
      expectError(res, 409, "DEFAULT_ACCOUNT_PROTECTED");
      expect(await dbSnapshot()).toEqual(before);
      expect((await call("GET", `/api/accounts/${DEFAULT_ACCOUNT_ID}`)).json.disabled).toBe(false);
    });
  });

  describe("secured attributes", () => {
    const secret = "s3cret-value-never-returned";
    let accountId: string;

    beforeAll(async () => {
      const res = await call("POST", "/api/accounts", {
        body: {
          name: unique("secured"),
          attributes: [
            { key: "apiKey", value: secret, isSecured: true },
            { key: "region", value: "eu" },
          ],
        },
      });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain(secret);
      expect(res.json.attributes).toEqual([
        { key: "apiKey", isSecured: true },
        { key: "region", value: "eu", isSecured: false },
      ]);
      accountId = res.json.id;
    });

    it("never returns a secured value from any read", async () => {
      const one = await call("GET", `/api/accounts/${accountId}`);
      const byName = await call("GET", `/api/accounts/name/${encodeURIComponent(one.json.name)}`);
      const list = await call("GET", "/api/accounts");
      for (const res of [one, byName, list]) {
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(secret);
      }
      expect(one.json.attributes[0]).toEqual({ key: "apiKey", isSecured: true });
    });

    it("keeps the stored secured value when an update omits it, and never echoes it", async () => {
      const name = (await call("GET", `/api/accounts/${accountId}`)).json.name;
      const res = await call("PUT", `/api/accounts/${accountId}`, {
        body: { name, attributes: [{ key: "apiKey", isSecured: true }] },
      });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(secret);
      const row = await env.DB.prepare("SELECT attributes FROM accounts WHERE id = ?").bind(accountId).first<{ attributes: string }>();
      expect(JSON.parse(row!.attributes)).toEqual([{ key: "apiKey", value: secret, isSecured: true }]);
    });
  });

  describe("a disabled account", () => {
    let account: { id: string; name: string };
    let admin: TestUser;

    beforeAll(async () => {
      account = await createAccount();
      admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    });

    it("locks its users out at once (401), and lets them back in when enabled again", async () => {
      // Signed in once, so the credentials are cached: disabling must still take effect at once.
      expect((await call("GET", "/api/users", { as: as(admin) })).status).toBe(200);

      const disabled = await call("PUT", `/api/accounts/${account.id}`, { body: { name: account.name, disabled: true } });
      expect(disabled.status).toBe(200);
      expect(disabled.json.disabled).toBe(true);
      expectUnauthenticated(await call("GET", "/api/users", { as: as(admin) }), "/api/users");

      const enabled = await call("PUT", `/api/accounts/${account.id}`, { body: { name: account.name, disabled: false } });
      expect(enabled.status).toBe(200);
      expect((await call("GET", "/api/users", { as: as(admin) })).status).toBe(200);
    });
  });

  describe("E11 DELETE", () => {
    it("deletes the account and everything it owns in one go (204, then 404)", async () => {
      const doomed = await createAccount();
      const survivor = await createAccount();
      const member = await createUser(doomed.id, { groups: ["Users", "Administrators"] });
      await createUser(doomed.id);
      const group = await createGroup(doomed.id, "Analysts", ["ROLE_EDIT_FORMULAS"]);
      await call("PUT", `/api/users/${member.id}`, {
        body: { name: member.username, groups: ["Users", "Administrators", group.name] },
      });
      expect((await call("PUT", "/api/quota", { body: { accountId: doomed.id, quotas: [{ type: "SOURCE", limit: 3 }] } })).status).toBe(201);
      // A bearer token of the member, issued by a trusted-access client.
      await bearerFor(await createClient(), member.username);
      await createUser(survivor.id);
      await call("PUT", "/api/quota", { body: { accountId: survivor.id, quotas: [{ type: "SOURCE", limit: 1 }] } });

      // Signed in (and cached) before the delete.
      expect((await call("GET", "/api/users", { as: as(member) })).status).toBe(200);

      const ownedBefore = await rowsOfAccount(doomed.id);
      for (const table of ["accounts", "users", "groups", "user_groups", "quotas", "quota_limits", "access_tokens"]) {
        expect(ownedBefore[table], table).toBeGreaterThan(0);
      }
      const survivorBefore = await rowsOfAccount(survivor.id);

      const res = await call("DELETE", `/api/accounts/${doomed.id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe("");

      expectError(await call("GET", `/api/accounts/${doomed.id}`), 404, "NOT_FOUND");
      expectError(await call("GET", `/api/accounts/name/${encodeURIComponent(doomed.name)}`), 404, "NOT_FOUND");
      expectError(await call("DELETE", `/api/accounts/${doomed.id}`), 404, "NOT_FOUND");

      const ownedAfter = await rowsOfAccount(doomed.id);
      expect(Object.keys(ownedAfter).sort()).toEqual(Object.keys(ownedBefore).sort());
      for (const [table, count] of Object.entries(ownedAfter)) expect(count, table).toBe(0);
      expect(await rowsOfAccount(survivor.id)).toEqual(survivorBefore);
      // Its audit trail stays, the delete included, until retention prunes it.
      // (on whichever database held the account: every database is read, in event id order)
      const kept: { id: string; action: string }[] = [];
      for (const [, database] of databases()) kept.push(...(await database.prepare("SELECT id, action FROM audit_events WHERE account_id = ?").bind(doomed.id).all<{ id: string; action: string }>()).results);
      kept.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      expect(kept.map((e) => e.action)).toEqual(expect.arrayContaining(["account.create", "user.create", "account.delete"]));
      expect(kept.at(-1)!.action).toBe("account.delete");

      expectUnauthenticated(await call("GET", "/api/users", { as: as(member) }), "/api/users");
    });

    it("answers 412 to a stale If-Match and keeps the account", async () => {
      const account = await createAccount();
      const stale = (await call("GET", `/api/accounts/${account.id}`)).headers.get("ETag")!;
      await call("PUT", `/api/accounts/${account.id}`, { body: { name: account.name, senderDisplayName: "changed" } });
      const before = await dbSnapshot();
      expectError(await call("DELETE", `/api/accounts/${account.id}`, { headers: { "If-Match": stale } }), 412, "PRECONDITION_FAILED");
      expect(await dbSnapshot()).toEqual(before);
    });

    it("answers 404 for an unknown id", async () => {
      expectError(await call("DELETE", `/api/accounts/${crypto.randomUUID()}`), 404, "NOT_FOUND");
    });
  });
});
