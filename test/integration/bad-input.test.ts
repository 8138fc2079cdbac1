import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  as,
  call,
  createAccount,
  createGroup,
  createUser,
  databaseOf,
  dbSnapshot,
  expectError,
  PASSWORD,
  unique,
  VENDOR_JSON,
  type CallOptions,
  type TestUser,
} from "./helpers";
import type { ERROR_CODES } from "../../src/lib/errors";

/**
 * Bad input to every write of the foundation leaves the data exactly as it was, and is answered
 * with the status and ErrorMessage (problems named by member path) that say why.
 */
let account: { id: string; name: string };
let other: { id: string; name: string };
let user: TestUser;
let group: { id: string; name: string };
let admin: TestUser;
let userAdmin: TestUser;

interface Target {
  label: string;
  method: string;
  path: () => string;
  valid: () => Record<string, unknown>;
}

const targets: Target[] = [
  { label: "POST /api/accounts", method: "POST", path: () => "/api/accounts", valid: () => ({ name: unique("acct") }) },
  { label: "PUT /api/accounts/{id}", method: "PUT", path: () => `/api/accounts/${account.id}`, valid: () => ({ name: account.name }) },
  {
    label: "POST /api/users",
    method: "POST",
    path: () => "/api/users",
    valid: () => ({ name: unique("user"), password: PASSWORD, accountId: account.id }),
  },
  { label: "PUT /api/users/{id}", method: "PUT", path: () => `/api/users/${user.id}`, valid: () => ({ name: user.username }) },
  { label: "POST /api/groups", method: "POST", path: () => "/api/groups", valid: () => ({ name: unique("grp"), accountId: account.id }) },
  { label: "PUT /api/groups/{id}", method: "PUT", path: () => `/api/groups/${group.id}`, valid: () => ({ name: group.name }) },
  {
    label: "PUT /api/quota",
    method: "PUT",
    path: () => "/api/quota",
    valid: () => ({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 2 }] }),
  },
];

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount();
  user = await createUser(account.id);
  group = await createGroup(account.id, "Editors", ["ROLE_EDIT_FORMULAS"]);
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  await createGroup(account.id, "UserAdmins", ["ROLE_ADMINISTER_USERS"]);
  userAdmin = await createUser(account.id, { groups: ["Users", "UserAdmins"] });
  await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] } });
});

/** Sends a bad request and checks its answer, and that the database did not change. */
async function rejects(
  method: string,
  path: string,
  options: CallOptions,
  status: number,
  errorCode: keyof typeof ERROR_CODES,
  problems?: string[],
) {
  const before = await dbSnapshot();
  const res = await call(method, path, options);
  const body = expectError(res, status, errorCode, problems);
  expect(body.path).toBe(path);
  expect(await dbSnapshot()).toEqual(before);
  return body;
}

describe.each(targets)("$label: transport-level bad input", (target) => {
  it("the valid body is accepted (control)", async () => {
    const res = await call(target.method, target.path(), { body: target.valid() });
    expect(res.status).toBeLessThan(300);
  });

  it("malformed JSON: 400 MALFORMED_JSON", async () => {
    const raw = JSON.stringify(target.valid()).slice(0, -1);
    await rejects(target.method, target.path(), { rawBody: raw, headers: { "Content-Type": VENDOR_JSON } }, 400, "MALFORMED_JSON", ["body"]);
  });

  it("text/plain: 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    await rejects(
      target.method,
      target.path(),
      { rawBody: JSON.stringify(target.valid()), headers: { "Content-Type": "text/plain" } },
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  it("a body over the 1 MiB cap: 413 PAYLOAD_TOO_LARGE", async () => {
    const raw = JSON.stringify({ ...target.valid(), padding: "x".repeat(1_100_000) });
    await rejects(target.method, target.path(), { rawBody: raw, headers: { "Content-Type": VENDOR_JSON } }, 413, "PAYLOAD_TOO_LARGE");
  });

  it.each([
    ["an array", []],
    ["null", null],
    ["a string", "name"],
    ["a number", 42],
  ])("a JSON body that is %s: 400 naming body", async (_label, body) => {
    await rejects(target.method, target.path(), { body }, 400, "VALIDATION_FAILED", ["body"]);
  });
});

const long = (n: number) => "n".repeat(n);

describe("member-level bad input: 400 VALIDATION_FAILED naming each member", () => {
  const cases: [label: string, target: string, change: Record<string, unknown>, problems: string[]][] = [
    ["account name of the wrong type", "POST /api/accounts", { name: 123 }, ["body.name"]],
    ["account name of 256 characters", "POST /api/accounts", { name: long(256) }, ["body.name"]],
    ["empty account name", "POST /api/accounts", { name: "" }, ["body.name"]],
    ["blank account name", "PUT /api/accounts/{id}", { name: "   " }, ["body.name"]],
    ["disabled as a string", "PUT /api/accounts/{id}", { disabled: "yes" }, ["body.disabled"]],
    ["attributes as a string", "POST /api/accounts", { attributes: "x" }, ["body.attributes"]],
    ["an attribute without key", "POST /api/accounts", { attributes: [{ key: "", value: "v" }] }, ["body.attributes[0].key"]],
    ["duplicated attribute keys", "PUT /api/accounts/{id}", { attributes: [{ key: "k" }, { key: "k" }] }, ["body.attributes"]],
    ["a reply-to that is not an e-mail address", "POST /api/accounts", { replyToAddress: "not-an-email" }, ["body.replyToAddress"]],
    ["a sender name of 256 characters", "PUT /api/accounts/{id}", { senderDisplayName: long(256) }, ["body.senderDisplayName"]],
    ["two bad members at once", "POST /api/accounts", { name: 1, disabled: 1 }, ["body.name", "body.disabled"]],
    ["username of 256 characters", "POST /api/users", { name: long(256) }, ["body.name"]],
    ["username with a colon", "POST /api/users", { name: "a:b" }, ["body.name"]],
    ["username with a control character", "PUT /api/users/{id}", { name: "line\nbreak" }, ["body.name"]],
    ["password of 7 characters", "POST /api/users", { password: "1234567" }, ["body.password"]],
    ["password of 257 characters", "PUT /api/users/{id}", { password: long(257) }, ["body.password"]],
    ["missing password on create", "POST /api/users", { password: undefined }, ["body.password"]],
    ["unknown role", "POST /api/users", { roles: ["ROLE_NOPE"] }, ["body.roles[0]"]],
    ["roles as a string", "PUT /api/users/{id}", { roles: "ROLE_ADMIN" }, ["body.roles"]],
    ["groups as a string", "POST /api/users", { groups: "Users" }, ["body.groups"]],
    ["an empty group name", "PUT /api/users/{id}", { groups: [""] }, ["body.groups[0]"]],
    ["an invalid e-mail", "POST /api/users", { email: "nope" }, ["body.email"]],
    ["full name of 256 characters", "PUT /api/users/{id}", { fullName: long(256) }, ["body.fullName"]],
    ["accountId of 65 characters", "POST /api/users", { accountId: long(65) }, ["body.accountId"]],
    ["unknown privilege", "POST /api/groups", { privileges: ["ROLE_NOPE"] }, ["body.privileges[0]"]],
    ["privileges as an object", "PUT /api/groups/{id}", { privileges: {} }, ["body.privileges"]],
    ["group name of 256 characters", "POST /api/groups", { name: long(256) }, ["body.name"]],
    ["description of 1025 characters", "PUT /api/groups/{id}", { description: long(1025) }, ["body.description"]],
    ["unknown quota type", "PUT /api/quota", { quotas: [{ type: "FOO", limit: 1 }] }, ["body.quotas[0].type"]],
    ["quotas as a string", "PUT /api/quota", { quotas: "x" }, ["body.quotas"]],
    ["accountId as a number", "PUT /api/quota", { accountId: 5 }, ["body.accountId"]],
    ["negative limit", "PUT /api/quota", { quotas: [{ type: "SOURCE", limit: -1 }] }, ["body.quotas[0].limit"]],
  ];

  it.each(cases)("%s (%s)", async (_label, targetLabel, change, problems) => {
    const target = targets.find((t) => t.label === targetLabel)!;
    const body = { ...target.valid(), ...change };
    const error = await rejects(target.method, target.path(), { body }, 400, "VALIDATION_FAILED", problems);
    for (const p of error.problems) expect(p.level).toBe("ERROR");
  });
});

describe("mass assignment", () => {
  it("id, audit members and numberOfUsers sent in an account create are ignored; isDefault, which no schema knows, is a 400", async () => {
    expectError(await call("POST", "/api/accounts", { body: { name: unique("forged"), isDefault: true } }), 400, "VALIDATION_FAILED", ["body.isDefault"]);
    const forgedId = crypto.randomUUID();
    const res = await call("POST", "/api/accounts", {
      body: {
        name: unique("forged"),
        id: forgedId,
        numberOfUsers: 99,
        createdByUserID: "someone-else",
        createdDate: "2000-01-01T00:00:00.000Z",
        lastModifiedByUserID: "someone-else",
        lastModifiedDate: "2000-01-01T00:00:00.000Z",
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.id).not.toBe(forgedId);
    expect(res.json.numberOfUsers).toBe(0);
    expect(res.json.createdByUserID).toBe("supervisor");
    expect(res.json.lastModifiedByUserID).toBe("supervisor");
    expect(res.json.createdDate).not.toBe("2000-01-01T00:00:00.000Z");
    expect(res.json.lastModifiedDate).not.toBe("2000-01-01T00:00:00.000Z");
    const row = await env.DB.prepare("SELECT is_default, created_date FROM accounts WHERE id = ?").bind(res.json.id).first<{ is_default: number; created_date: string }>();
    expect(row).toEqual({ is_default: 0, created_date: res.json.createdDate });
    expect((await call("GET", `/api/accounts/${forgedId}`)).status).toBe(404);
    // Not default: it can be deleted.
    expect((await call("DELETE", `/api/accounts/${res.json.id}`)).status).toBe(204);
  });

  it("id and audit members sent in a user create are ignored", async () => {
    const forgedId = crypto.randomUUID();
    const res = await call("POST", "/api/users", {
      as: as(admin),
      body: { name: unique("forged"), password: PASSWORD, id: forgedId, createdByUserID: "someone-else", createdDate: "2000-01-01T00:00:00.000Z" },
    });
    expect(res.status).toBe(201);
    expect(res.json.id).not.toBe(forgedId);
    expect(res.json.createdByUserID).toBe(admin.id);
    expect(res.json.createdDate).not.toBe("2000-01-01T00:00:00.000Z");
  });

  it("id, builtIn and audit members sent in a group create are ignored", async () => {
    const forgedId = crypto.randomUUID();
    const res = await call("POST", "/api/groups", {
      body: { name: unique("forged"), accountId: account.id, id: forgedId, builtIn: true, lastModifiedByUserID: "someone-else" },
    });
    expect(res.status).toBe(201);
    expect(res.json.id).not.toBe(forgedId);
    expect(res.json.builtIn).toBe(false);
    expect(res.json.lastModifiedByUserID).toBe("supervisor");
    expect((await call("DELETE", `/api/groups/${res.json.id}`)).status).toBe(204);
  });

  it("numberOfUsers and audit members sent in an account update are ignored", async () => {
    const res = await call("PUT", `/api/accounts/${account.id}`, {
      body: { name: account.name, numberOfUsers: 99, createdByUserID: "someone-else", createdDate: "2000-01-01T00:00:00.000Z" },
    });
    expect(res.status).toBe(200);
    const count = await (await databaseOf(account.id)).prepare("SELECT count(*) AS n FROM users WHERE account_id = ?").bind(account.id).first<{ n: number }>();
    expect(count!.n).toBeGreaterThanOrEqual(3);
    expect(res.json.numberOfUsers).toBe(count!.n);
    expect(res.json.createdByUserID).toBe("supervisor");
    expect(res.json.createdDate).not.toBe("2000-01-01T00:00:00.000Z");
  });

  it("consumption sent in a quota is ignored", async () => {
    const res = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 5, consumption: 4 }] } });
    expect(res.status).toBe(200);
    expect(res.json.quotas).toEqual([{ type: "SOURCE", limit: 5, consumption: 0 }]);
  });

  it("accountId of another account sent by an account admin: 403 ACCOUNT_FORBIDDEN", async () => {
    await rejects(
      "POST",
      "/api/users",
      { as: as(admin), body: { name: unique("planted"), password: PASSWORD, accountId: other.id } },
      403,
      "ACCOUNT_FORBIDDEN",
      ["body.accountId"],
    );
    await rejects("POST", "/api/groups", { as: as(admin), body: { name: unique("planted"), accountId: other.id } }, 403, "ACCOUNT_FORBIDDEN", [
      "body.accountId",
    ]);
  });

  it("its own accountId sent by an account admin is fine", async () => {
    const res = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("own"), accountId: account.id } });
    expect(res.status).toBe(201);
    expect(res.json.accountId).toBe(account.id);
  });

  it("roles: [ROLE_ADMIN] sent by a user administrator without ROLE_ADMIN: 403 PRIVILEGE_ESCALATION", async () => {
    await rejects(
      "POST",
      "/api/users",
      { as: as(userAdmin), body: { name: unique("esc"), password: PASSWORD, roles: ["ROLE_ADMIN"] } },
      403,
      "PRIVILEGE_ESCALATION",
    );
    await rejects(
      "PUT",
      `/api/users/${user.id}`,
      { as: as(userAdmin), body: { name: user.username, roles: ["ROLE_ADMIN"] } },
      403,
      "PRIVILEGE_ESCALATION",
    );
  });
});
