import { beforeAll, describe, expect, it } from "vitest";
import { folders, makeFolder } from "./folder-helpers";
import { as, call, createAccount, createUser, dbSnapshot, expectError, PASSWORD, SUPERVISOR, unique, type TestUser } from "./helpers";

/**
 * Input that used to be dropped without a word (issue 17, section 2): unknown members are a 400
 * naming each, the reference product's names and the representation's read-only members are
 * accepted, and names that look like other names are refused.
 */
let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Administrators"] });
});

describe("unknown members", () => {
  it("a misspelt member is a 400 naming it, and nothing is created", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/groups", { body: { name: unique("Analysts"), accountId: account.id, privilegs: ["ROLE_ADMIN"] } });
    const body = expectError(res, 400, "VALIDATION_FAILED", ["body.privilegs"]);
    expect(body.problems[0].message).toMatch(/Unknown member/);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("nested ones and those in array elements are named by their path, each one", async () => {
    const res = await call("POST", "/api/accounts", {
      body: { account: { name: unique("Nested"), nmae: "x", attributes: [{ key: "a", value: "1" }, { key: "b", vlaue: "2" }] }, users: [], extra: 1 },
    });
    expectError(res, 400, "VALIDATION_FAILED", ["body.account.nmae", "body.account.attributes[1].vlaue", "body.extra"]);
  });

  it("a member of a free map (a field's fieldMetadata) is anything", async () => {
    const source = await call("POST", "/api/sources", { as: as(admin), body: { name: unique("Free"), fields: [{ name: "a", dataType: "INTEGER", origin: { type: "NATIVE", nativeOrigin: { originalName: "a" } }, fieldMetadata: { anyKey: { nested: true } } }] } });
    expect(source.status, source.text).toBe(201);
  });
});

describe("the representation's read-only members and the reference product's names", () => {
  it("a user read can be sent back as it is (its read-only members are ignored)", async () => {
    const user = await createUser(account.id);
    const read = await call("GET", `/api/users/${user.id}`);
    const res = await call("PUT", `/api/users/${user.id}`, { body: { ...read.json, fullName: "Read Back", password: PASSWORD } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.fullName).toBe("Read Back");
    expect(res.json.createdDate).toBe(read.json.createdDate);
  });

  it("a folder's `name` renames it (the name its representation uses)", async () => {
    const folder = await makeFolder(admin, unique("Emea"));
    const res = await folders("PATCH", `/api/folders/${folder.id}`, admin, { name: "Europe" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.name).toBe("Europe");
    expect((await folders("GET", `/api/folders/${folder.id}`, admin)).json.name).toBe("Europe");
    const made = await folders("POST", "/api/folders", admin, { name: unique("ByName"), parent_id: folder.id });
    expect(made.status, made.text).toBe(201);
    const clash = await folders("PATCH", `/api/folders/${folder.id}`, admin, { name: "Europe", folder_name: "Asia" });
    expectError(clash, 400, "VALIDATION_FAILED", ["body.name"]);
  });

  it("a group takes the reference's `label` and `roles` for `name` and `privileges`", async () => {
    const label = unique("Referenced");
    const res = await call("POST", "/api/groups", { body: { label, roles: ["ROLE_CREATE_SOURCES"], accountId: account.id, system: false } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: label, privileges: ["ROLE_CREATE_SOURCES"] });
    const clash = await call("POST", "/api/groups", { body: { name: unique("G"), roles: ["ROLE_ADMIN"], privileges: [], accountId: account.id } });
    expectError(clash, 400, "VALIDATION_FAILED", ["body.roles"]);
  });

  it("a source's `tags`, which the reference's clients send, is listed as ignored and accepted", async () => {
    const res = await call("POST", "/api/sources", { as: as(admin), body: { name: unique("Tagged"), tags: ["sales"] } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.tags).toBeUndefined();
  });
});

describe("names", () => {
  it("nobody takes the supervisor's name under another spelling or a look-alike", async () => {
    // Spellings no name may have are a 400 (see below); the others are the reserved name: 409 DUPLICATED, as before.
    const refusals: [string, number][] = [
      [`${SUPERVISOR.username} `, 400],
      ["super\u200Bvisor", 400],
      [`${SUPERVISOR.username}\u00A0`, 400],
      ["ѕupervisor", 409],
      ["ѕuреrvіѕоr", 409],
      ["SUPERVISOR", 409],
      ["ｓｕｐｅｒｖｉｓｏｒ", 409],
    ];
    for (const [name, status] of refusals) {
      const res = await call("POST", "/api/users", { body: { name, password: PASSWORD, accountId: account.id } });
      expect(res.status, `${JSON.stringify(name)}: ${res.text}`).toBe(status);
      expect(res.json.problems.map((p: { name: string }) => p.name)).toEqual(["body.name"]);
    }
  });

  it("every name member refuses edge whitespace, bidirectional controls and zero-width characters", async () => {
    const bad = [" Lead", "Trail ", "Trail\u00A0", "evil\u202Etxt.exe", "iso\u2066late", "zero\u200Bwidth", "bom\uFEFF"];
    const folder = await makeFolder(admin, unique("Names"));
    const cases: [string, string, (name: string) => unknown, string][] = [
      ["POST", "/api/accounts", (name) => ({ name }), "body.name"],
      ["POST", "/api/groups", (name) => ({ name, accountId: account.id }), "body.name"],
      ["POST", "/api/users", (name) => ({ name, password: PASSWORD, accountId: account.id }), "body.name"],
      ["POST", "/api/calendars", (name) => ({ name, type: "MONTH_SHIFT", monthShift: 1 }), "body.name"],
      ["POST", "/api/json-datasets", (name) => ({ name, data: {} }), "body.name"],
      ["POST", "/api/sources", (name) => ({ name }), "body.name"],
      ["PATCH", `/api/folders/${folder.id}`, (name) => ({ folder_name: name }), "body.folder_name"],
    ];
    for (const [method, path, body, member] of cases) {
      for (const name of bad) {
        const res = await call(method, path, { as: path === "/api/accounts" ? undefined : as(admin), body: body(name), headers: { "X-Enable-Preview": "true" } });
        expect(res.status, `${method} ${path} ${JSON.stringify(name)}: ${res.text}`).toBe(400);
        expect(res.json.problems.map((p: { name: string }) => p.name)).toContain(member);
      }
    }
  });
});
