import { beforeAll, describe, expect, it } from "vitest";
import {
  as,
  call,
  countOnEveryDatabase,
  createAccount,
  createGroup,
  createUser,
  dbSnapshot,
  expectError,
  unique,
  type TestUser,
} from "./helpers";

const GROUP_MEMBERS = [
  "accountId",
  "builtIn",
  "createdByUserID",
  "createdDate",
  "description",
  "id",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "name",
  "privileges",
];

let account: { id: string; name: string };
let other: { id: string; name: string };
let builtIns: Record<string, { id: string; name: string; privileges: string[] }>;
let groupAdmin: TestUser;
let member: TestUser;

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount();
  const list = await call("GET", `/api/groups?accountId=${account.id}`);
  builtIns = Object.fromEntries(list.json.content.map((g: { name: string }) => [g.name, g]));
  await createGroup(account.id, "GroupAdmins", ["ROLE_ADMINISTER_GROUPS"]);
  groupAdmin = await createUser(account.id, { groups: ["Users", "GroupAdmins"] });
  member = await createUser(account.id);
});

describe("groups: CRUD", () => {
  it("creates (201, Location, ETag), reads, lists, replaces and deletes a group", async () => {
    const name = unique("Analysts");
    const created = await call("POST", "/api/groups", {
      body: { name, description: "Reads everything", privileges: ["ROLE_EDIT_FORMULAS"], accountId: account.id },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(GROUP_MEMBERS);
    expect(created.json).toMatchObject({
      name,
      description: "Reads everything",
      privileges: ["ROLE_EDIT_FORMULAS"],
      accountId: account.id,
      builtIn: false,
      createdByUserID: "supervisor",
    });
    expect(created.headers.get("Location")).toBe(`/api/groups/${created.json.id}`);
    const etag = created.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const one = await call("GET", created.headers.get("Location")!);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(created.json);
    expect(one.headers.get("ETag")).toBe(etag);

    const list = await call("GET", `/api/groups?accountId=${account.id}`);
    expect(list.json.content.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(["Administrators", "Users", name]));
    expect(list.json.pageInfo).toEqual({ nextPageToken: null, previousPageToken: null });

    const renamed = unique("Analysts2");
    const replaced = await call("PUT", `/api/groups/${created.json.id}`, {
      body: { id: created.json.id, name: renamed, privileges: ["ROLE_CREATE_SOURCES", "ROLE_CREATE_SOURCES"] },
      headers: { "If-Match": etag },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ name: renamed, description: null, privileges: ["ROLE_CREATE_SOURCES"] });
    expect(replaced.headers.get("ETag")).not.toBe(etag);

    const stale = await call("PUT", `/api/groups/${created.json.id}`, { body: { name: renamed }, headers: { "If-Match": etag } });
    expectError(stale, 412, "PRECONDITION_FAILED");

    const deleted = await call("DELETE", `/api/groups/${created.json.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectError(await call("GET", `/api/groups/${created.json.id}`), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/api/groups/${created.json.id}`), 404, "NOT_FOUND");
  });

  it("answers 400 ID_MISMATCH when the body names another group", async () => {
    const group = await createGroup(account.id, unique("g"));
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/groups/${group.id}`, { body: { id: builtIns.Users!.id, name: group.name } }), 400, "ID_MISMATCH");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("pages groups by name", async () => {
    const paged = await createAccount();
    const first = await call("GET", `/api/groups?accountId=${paged.id}&maxResults=1`);
    expect(first.json.content.map((g: { name: string }) => g.name)).toEqual(["Administrators"]);
    const second = await call("GET", `/api/groups?accountId=${paged.id}&maxResults=1&pageToken=${first.json.pageInfo.nextPageToken}`);
    expect(second.json.content.map((g: { name: string }) => g.name)).toEqual(["Users"]);
    expect(second.json.pageInfo.nextPageToken).toBeNull();
    expectError(await call("GET", `/api/groups?pageToken=nope`), 400, "INVALID_PAGE_TOKEN", ["query.pageToken"]);
    expectError(await call("GET", `/api/groups?maxResults=1001`), 400, "VALIDATION_FAILED", ["query.maxResults"]);
  });

  it("deleting a group keeps its members, without the group", async () => {
    const group = await createGroup(account.id, unique("Temp"));
    const user = await createUser(account.id, { groups: ["Users", group.name] });
    expect((await call("DELETE", `/api/groups/${group.id}`)).status).toBe(204);
    const after = await call("GET", `/api/users/${user.id}`);
    expect(after.status).toBe(200);
    expect(after.json.groups).toEqual(["Users"]);
    expect(await countOnEveryDatabase("SELECT count(*) AS n FROM user_groups WHERE group_id = ?", group.id)).toBe(0);
  });
});

describe("groups: names", () => {
  it("are unique per account (409 DUPLICATED), but the same name may exist in another account", async () => {
    const name = unique("Dup");
    await createGroup(account.id, name);
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/groups", { body: { name, accountId: account.id } }), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("POST", "/api/groups", { body: { name, accountId: other.id } })).status).toBe(201);
  });

  it("renaming onto a taken name is 409 DUPLICATED", async () => {
    const a = await createGroup(account.id, unique("A"));
    const b = await createGroup(account.id, unique("B"));
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/groups/${a.id}`, { body: { name: b.name } }), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("groups: the built-in groups", () => {
  it("cannot be deleted (409 BUILT_IN_GROUP)", async () => {
    const before = await dbSnapshot();
    expectError(await call("DELETE", `/api/groups/${builtIns.Administrators!.id}`), 409, "BUILT_IN_GROUP");
    expectError(await call("DELETE", `/api/groups/${builtIns.Users!.id}`), 409, "BUILT_IN_GROUP");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("cannot be renamed (409 BUILT_IN_GROUP)", async () => {
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/groups/${builtIns.Users!.id}`, { body: { name: "Everyone" } }), 409, "BUILT_IN_GROUP");
    expectError(
      await call("PUT", `/api/groups/${builtIns.Administrators!.id}`, { body: { name: "Admins", privileges: ["ROLE_ADMIN"] } }),
      409,
      "BUILT_IN_GROUP",
    );
    expect(await dbSnapshot()).toEqual(before);
  });

  it("Administrators keeps ROLE_ADMIN (409 BUILT_IN_GROUP)", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("PUT", `/api/groups/${builtIns.Administrators!.id}`, { body: { name: "Administrators", privileges: [] } }),
      409,
      "BUILT_IN_GROUP",
    );
    expect(await dbSnapshot()).toEqual(before);
  });

  it("can have their description changed", async () => {
    const res = await call("PUT", `/api/groups/${builtIns.Users!.id}`, { body: { name: "Users", description: "Everybody" } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "Users", description: "Everybody", builtIn: true });
  });
});

describe("groups: privileges reach their members", () => {
  it("granting, revoking and deleting a group takes effect for its members at once", async () => {
    const user = await createUser(account.id);
    expectError(await call("GET", "/api/groups", { as: as(user) }), 403, "FORBIDDEN");

    const group = await createGroup(account.id, unique("Granting"), ["ROLE_ADMINISTER_GROUPS"]);
    expect((await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, groups: ["Users", group.name] } })).status).toBe(200);
    const allowed = await call("GET", "/api/groups", { as: as(user) });
    expect(allowed.status).toBe(200);
    for (const g of allowed.json.content) expect(g.accountId).toBe(account.id);

    expect((await call("PUT", `/api/groups/${group.id}`, { body: { name: group.name, privileges: [] } })).status).toBe(200);
    expectError(await call("GET", "/api/groups", { as: as(user) }), 403, "FORBIDDEN");

    expect(
      (await call("PUT", `/api/groups/${group.id}`, { body: { name: group.name, privileges: ["ROLE_ADMINISTER_GROUPS"] } })).status,
    ).toBe(200);
    expect((await call("GET", "/api/groups", { as: as(user) })).status).toBe(200);

    expect((await call("DELETE", `/api/groups/${group.id}`)).status).toBe(204);
    expectError(await call("GET", "/api/groups", { as: as(user) }), 403, "FORBIDDEN");
  });

  it("membership of Administrators grants every privilege of the account", async () => {
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    expect((await call("GET", "/api/groups", { as: as(admin) })).status).toBe(200);
    expect((await call("GET", "/api/users", { as: as(admin) })).status).toBe(200);
  });

  it("a group administrator manages groups in its own account", async () => {
    const name = unique("ByGroupAdmin");
    const created = await call("POST", "/api/groups", { as: as(groupAdmin), body: { name, privileges: ["ROLE_ADMINISTER_GROUPS"] } });
    expect(created.status).toBe(201);
    expect(created.json.accountId).toBe(account.id);
    expect((await call("PUT", `/api/groups/${created.json.id}`, { as: as(groupAdmin), body: { name, description: "d" } })).status).toBe(200);
    expect((await call("DELETE", `/api/groups/${created.json.id}`, { as: as(groupAdmin) })).status).toBe(204);
  });

  it("a group administrator cannot hand out privileges it does not hold (403 PRIVILEGE_ESCALATION)", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/groups", { as: as(groupAdmin), body: { name: unique("Esc"), privileges: ["ROLE_ADMIN"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(
      await call("POST", "/api/groups", { as: as(groupAdmin), body: { name: unique("Esc"), privileges: ["ROLE_ADMINISTER_USERS"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(
      await call("PUT", `/api/groups/${builtIns.Users!.id}`, { as: as(groupAdmin), body: { name: "Users", privileges: ["ROLE_MANAGE_CONNECTIONS"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    // Nor change or delete the Administrators group.
    expectError(
      await call("PUT", `/api/groups/${builtIns.Administrators!.id}`, {
        as: as(groupAdmin),
        body: { name: "Administrators", privileges: ["ROLE_ADMIN"], description: "mine" },
      }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a member without group administration is refused (403 FORBIDDEN)", async () => {
    const before = await dbSnapshot();
    expectError(await call("GET", `/api/groups/${builtIns.Users!.id}`, { as: as(member) }), 403, "FORBIDDEN");
    expectError(await call("POST", "/api/groups", { as: as(member), body: { name: unique("x") } }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});
