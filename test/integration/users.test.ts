import { beforeAll, describe, expect, it } from "vitest";
import {
  as,
  call,
  countOnEveryDatabase,
  createAccount,
  createGroup,
  createUser,
  dbSnapshot,
  DEFAULT_ACCOUNT_ID,
  expectError,
  expectNoPasswordMaterial,
  expectUnauthenticated,
  PASSWORD,
  SUPERVISOR,
  unique,
  type TestUser,
} from "./helpers";

const USER_MEMBERS = [
  "accountId",
  "createdByUserID",
  "createdDate",
  "email",
  "fullName",
  "groups",
  "id",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "name",
  "roles",
];

let accountA: { id: string; name: string };
let accountB: { id: string; name: string };
let adminA: TestUser;
let userAdminA: TestUser;
let plainA: TestUser;
let userB: TestUser;

beforeAll(async () => {
  accountA = await createAccount();
  accountB = await createAccount();
  await createGroup(accountA.id, "UserAdmins", ["ROLE_ADMINISTER_USERS"]);
  adminA = await createUser(accountA.id, { groups: ["Users", "Administrators"] });
  userAdminA = await createUser(accountA.id, { groups: ["Users", "UserAdmins"] });
  plainA = await createUser(accountA.id);
  userB = await createUser(accountB.id);
});

describe("users: create and read", () => {
  it("creates a user (201, Location, ETag) without ever returning password material", async () => {
    const name = unique("created");
    const password = "a-very-secret-passphrase";
    const res = await call("POST", "/api/users", {
      body: { name, password, fullName: "Ada Lovelace", email: "ada@example.com", accountId: accountA.id, groups: ["Users", "UserAdmins"] },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(USER_MEMBERS);
    expect(res.json).toMatchObject({
      name,
      fullName: "Ada Lovelace",
      email: "ada@example.com",
      accountId: accountA.id,
      groups: ["UserAdmins", "Users"],
      roles: [],
      createdByUserID: "supervisor",
    });
    expect(res.headers.get("Location")).toBe(`/api/users/${res.json.id}`);
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expectNoPasswordMaterial(res.text, password);

    const one = await call("GET", res.headers.get("Location")!);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(res.json);
    expect(one.headers.get("ETag")).toBe(res.headers.get("ETag"));
    expectNoPasswordMaterial(one.text, password);

    const list = await call("GET", `/api/users?accountId=${accountA.id}`);
    expect(list.status).toBe(200);
    expect(list.json.content.find((u: { id: string }) => u.id === res.json.id)).toEqual(res.json);
    for (const user of list.json.content) expect(Object.keys(user).sort()).toEqual(USER_MEMBERS);
    expectNoPasswordMaterial(list.text, password);

    // The new user signs in with that password.
    expect((await call("GET", `/api/users/${res.json.id}`, { as: { username: name, password } })).status).toBe(200);
  });

  it("lists the supervisor's named account, the default account when none is named", async () => {
    const res = await call("GET", "/api/users");
    expect(res.status).toBe(200);
    for (const user of res.json.content) expect(user.accountId).toBe(DEFAULT_ACCOUNT_ID);
    const b = await call("GET", `/api/users?accountId=${accountB.id}`);
    expect(b.json.content.map((u: { id: string }) => u.id)).toEqual([userB.id]);
  });

  it("answers 404 for an unknown id", async () => {
    expectError(await call("GET", `/api/users/${crypto.randomUUID()}`), 404, "NOT_FOUND");
  });
});

describe("users: paging", () => {
  let account: { id: string };
  const names = ["page-a", "page-b", "page-c"].map((n) => unique(n));

  beforeAll(async () => {
    account = await createAccount();
    for (const name of names) await createUser(account.id, { name });
  });

  const page = (query: string) => call("GET", `/api/users?accountId=${account.id}&${query}`);
  const namesOf = (res: { json: { content: { name: string }[] } }) => res.json.content.map((u) => u.name);

  it("walks forwards and backwards with opaque page tokens", async () => {
    const first = await page("maxResults=1");
    expect(first.status).toBe(200);
    expect(namesOf(first)).toEqual([names[0]]);
    expect(first.json.pageInfo.previousPageToken).toBeNull();
    expect(first.json.pageInfo.nextPageToken).toEqual(expect.any(String));

    const second = await page(`maxResults=1&pageToken=${first.json.pageInfo.nextPageToken}`);
    expect(namesOf(second)).toEqual([names[1]]);
    expect(second.json.pageInfo.nextPageToken).toEqual(expect.any(String));
    expect(second.json.pageInfo.previousPageToken).toEqual(expect.any(String));

    const third = await page(`maxResults=1&pageToken=${second.json.pageInfo.nextPageToken}`);
    expect(namesOf(third)).toEqual([names[2]]);
    expect(third.json.pageInfo.nextPageToken).toBeNull();

    const back = await page(`maxResults=1&pageToken=${third.json.pageInfo.previousPageToken}`);
    expect(namesOf(back)).toEqual([names[1]]);
    const backToStart = await page(`maxResults=1&pageToken=${back.json.pageInfo.previousPageToken}`);
    expect(namesOf(backToStart)).toEqual([names[0]]);
    expect(backToStart.json.pageInfo.previousPageToken).toBeNull();

    const all = await page("maxResults=2");
    expect(namesOf(all)).toEqual(names.slice(0, 2));
    const rest = await page(`maxResults=2&pageToken=${all.json.pageInfo.nextPageToken}`);
    expect(namesOf(rest)).toEqual(names.slice(2));
  });

  it("defaults to a page of 100 and accepts 1000", async () => {
    const res = await page("");
    expect(namesOf(res)).toEqual(names);
    expect(res.json.pageInfo).toEqual({ nextPageToken: null, previousPageToken: null });
    expect((await page("maxResults=1000")).status).toBe(200);
  });

  it.each(["1001", "0", "-1", "abc", "1.5"])("answers 400 to maxResults=%s", async (value) => {
    expectError(await page(`maxResults=${value}`), 400, "VALIDATION_FAILED", ["query.maxResults"]);
  });

  it.each(["garbage!!", "garbage", "eyJ4IjoxfQ", btoa(JSON.stringify({ d: "n", k: 5 })).replace(/=+$/, "")])(
    "answers 400 INVALID_PAGE_TOKEN to pageToken=%s",
    async (token) => {
      expectError(await page(`pageToken=${encodeURIComponent(token)}`), 400, "INVALID_PAGE_TOKEN", ["query.pageToken"]);
    },
  );
});

describe("users: update and delete", () => {
  it("replaces a user (200), keeps the password when omitted, refreshes the ETag", async () => {
    const user = await createUser(accountA.id, { groups: ["Users", "UserAdmins"] });
    const before = await call("GET", `/api/users/${user.id}`);
    const res = await call("PUT", `/api/users/${user.id}`, {
      body: { id: user.id, name: user.username, fullName: "Renamed", groups: ["Users"], roles: ["ROLE_ADMINISTER_USERS"] },
      headers: { "If-Match": before.headers.get("ETag")! },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: user.id, fullName: "Renamed", groups: ["Users"], roles: ["ROLE_ADMINISTER_USERS"] });
    expect(res.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
    expectNoPasswordMaterial(res.text, PASSWORD);
    const after = await call("GET", `/api/users/${user.id}`);
    expect(after.json).toEqual(res.json);
    // Same password still works, and the direct role still grants user administration.
    expect((await call("GET", `/api/users/${user.id}`, { as: as(user) })).status).toBe(200);
  });

  it("answers 412 to a stale If-Match and changes nothing", async () => {
    const user = await createUser(accountA.id);
    const stale = (await call("GET", `/api/users/${user.id}`)).headers.get("ETag")!;
    expect((await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, fullName: "v2" } })).status).toBe(200);
    const before = await dbSnapshot();
    const res = await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, fullName: "v3" }, headers: { "If-Match": stale } });
    expectError(res, 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("answers 400 ID_MISMATCH when the body names another user", async () => {
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/users/${plainA.id}`, { body: { id: adminA.id, name: plainA.username } }), 400, "ID_MISMATCH");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses to move a user to another account (400 body.accountId)", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("PUT", `/api/users/${plainA.id}`, { body: { name: plainA.username, accountId: accountB.id } }),
      400,
      "VALIDATION_FAILED",
      ["body.accountId"],
    );
    expect(await dbSnapshot()).toEqual(before);
  });

  it("deletes a user (204, then 404) and the user can no longer sign in", async () => {
    const user = await createUser(accountA.id, { groups: ["Users", "UserAdmins"] });
    expect((await call("GET", "/api/users", { as: as(user) })).status).toBe(200);
    const res = await call("DELETE", `/api/users/${user.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expectError(await call("GET", `/api/users/${user.id}`), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/api/users/${user.id}`), 404, "NOT_FOUND");
    expectUnauthenticated(await call("GET", "/api/users", { as: as(user) }), "/api/users");
    expect(await countOnEveryDatabase("SELECT count(*) AS n FROM user_groups WHERE user_id = ?", user.id)).toBe(0);
  });

  it("a user cannot delete itself (409 CANNOT_DELETE_SELF)", async () => {
    const before = await dbSnapshot();
    expectError(await call("DELETE", `/api/users/${adminA.id}`, { as: as(adminA) }), 409, "CANNOT_DELETE_SELF");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("users: passwords", () => {
  it("a new password takes effect at once: the old one is refused (401), the new one accepted", async () => {
    const user = await createUser(accountA.id, { groups: ["Users", "UserAdmins"] });
    // Signed in once: the credentials are now cached in the isolate.
    expect((await call("GET", `/api/users/${user.id}`, { as: as(user) })).status).toBe(200);

    const newPassword = "a brand new passphrase";
    const res = await call("PUT", `/api/users/${user.id}`, {
      body: { name: user.username, groups: ["Users", "UserAdmins"], password: newPassword },
    });
    expect(res.status).toBe(200);
    expectNoPasswordMaterial(res.text, newPassword, PASSWORD);

    expectUnauthenticated(await call("GET", `/api/users/${user.id}`, { as: as(user) }), `/api/users/${user.id}`);
    expect((await call("GET", `/api/users/${user.id}`, { as: { username: user.username, password: newPassword } })).status).toBe(200);
  });

  it("a user changes its own password (with user administration) and the new one works at once", async () => {
    const user = await createUser(accountA.id, { groups: ["Users", "UserAdmins"] });
    const newPassword = "changed by myself";
    const res = await call("PUT", `/api/users/${user.id}`, {
      as: as(user),
      body: { name: user.username, groups: ["Users", "UserAdmins"], password: newPassword },
    });
    expect(res.status).toBe(200);
    expectUnauthenticated(await call("GET", `/api/users/${user.id}`, { as: as(user) }), `/api/users/${user.id}`);
    expect((await call("GET", `/api/users/${user.id}`, { as: { username: user.username, password: newPassword } })).status).toBe(200);
  });

  it("refuses passwords shorter than 8 characters", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/users", { body: { name: unique("short"), password: "short", accountId: accountA.id } }),
      400,
      "VALIDATION_FAILED",
      ["body.password"],
    );
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("users: names", () => {
  it("usernames are unique across accounts (409 DUPLICATED)", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/users", { body: { name: userB.username, password: PASSWORD, accountId: accountA.id } });
    expectError(res, 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("renaming onto a taken name is 409 DUPLICATED", async () => {
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/users/${plainA.id}`, { body: { name: userB.username } }), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("the supervisor's username cannot be taken in any letter case (409 DUPLICATED), by create or by rename", async () => {
    const before = await dbSnapshot();
    const upper = SUPERVISOR.username.toUpperCase();
    for (const name of [SUPERVISOR.username, upper, `${upper[0]}${SUPERVISOR.username.slice(1)}`]) {
      expectError(await call("POST", "/api/users", { body: { name, password: PASSWORD, accountId: accountA.id } }), 409, "DUPLICATED", ["body.name"]);
    }
    expect(await dbSnapshot()).toEqual(before);
    const user = (await call("POST", "/api/users", { body: { name: unique("renamed"), password: PASSWORD, accountId: accountA.id } })).json;
    const afterCreate = await dbSnapshot();
    expectError(await call("PUT", `/api/users/${user.id}`, { body: { name: upper, accountId: accountA.id } }), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(afterCreate);
    await call("DELETE", `/api/users/${user.id}`);
  });

  it("unknown group names are 400 with a problem naming each one's position", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/users", {
      body: { name: unique("groupless"), password: PASSWORD, accountId: accountA.id, groups: ["Users", "NoSuchGroup", "UserAdmins", "Nope"] },
    });
    expectError(res, 400, "VALIDATION_FAILED", ["body.groups[1]", "body.groups[3]"]);
    expect(await dbSnapshot()).toEqual(before);
    // Another account's group name is unknown here too.
    await createGroup(accountB.id, "OnlyInB");
    const withGroupInB = await dbSnapshot();
    const other = await call("POST", "/api/users", {
      body: { name: unique("groupless"), password: PASSWORD, accountId: accountA.id, groups: ["OnlyInB"] },
    });
    expectError(other, 400, "VALIDATION_FAILED", ["body.groups[0]"]);
    expect(await dbSnapshot()).toEqual(withGroupInB);
  });
});

describe("users: who may manage them", () => {
  it("an account admin manages its own account's users", async () => {
    const name = unique("by-admin");
    const created = await call("POST", "/api/users", { as: as(adminA), body: { name, password: PASSWORD } });
    expect(created.status).toBe(201);
    expect(created.json.accountId).toBe(accountA.id);
    expect(created.json.createdByUserID).toBe(adminA.id);

    const list = await call("GET", "/api/users?maxResults=1000", { as: as(adminA) });
    expect(list.status).toBe(200);
    const ids = list.json.content.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([adminA.id, plainA.id, created.json.id]));
    for (const user of list.json.content) expect(user.accountId).toBe(accountA.id);

    const updated = await call("PUT", `/api/users/${created.json.id}`, {
      as: as(adminA),
      body: { name, fullName: "Set by admin", groups: ["Users", "Administrators"] },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.groups).toEqual(["Administrators", "Users"]);
    expect(updated.json.lastModifiedByUserID).toBe(adminA.id);

    expect((await call("DELETE", `/api/users/${created.json.id}`, { as: as(adminA) })).status).toBe(204);
  });

  it("an account admin's list ignores accountId: it only ever sees its own account", async () => {
    const list = await call("GET", `/api/users?accountId=${accountB.id}`, { as: as(adminA) });
    expect(list.status).toBe(200);
    expect(list.json.content.length).toBeGreaterThan(0);
    for (const user of list.json.content) expect(user.accountId).toBe(accountA.id);
  });

  it("the supervisor manages any account's users", async () => {
    const name = unique("in-b");
    const created = await call("POST", "/api/users", { body: { name, password: PASSWORD, accountId: accountB.id } });
    expect(created.status).toBe(201);
    expect(created.json.accountId).toBe(accountB.id);
    expect((await call("GET", `/api/users/${created.json.id}`)).status).toBe(200);
    expect((await call("PUT", `/api/users/${created.json.id}`, { body: { name, fullName: "x" } })).status).toBe(200);
    expect((await call("DELETE", `/api/users/${created.json.id}`)).status).toBe(204);
  });

  it("a user without user administration is refused (403 FORBIDDEN)", async () => {
    const before = await dbSnapshot();
    expectError(await call("GET", "/api/users", { as: as(plainA) }), 403, "FORBIDDEN");
    expectError(await call("POST", "/api/users", { as: as(plainA), body: { name: unique("x"), password: PASSWORD } }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a user administrator creates plain users but cannot grant ROLE_ADMIN (403 PRIVILEGE_ESCALATION)", async () => {
    const ok = await call("POST", "/api/users", { as: as(userAdminA), body: { name: unique("plain"), password: PASSWORD } });
    expect(ok.status).toBe(201);

    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/users", { as: as(userAdminA), body: { name: unique("esc"), password: PASSWORD, roles: ["ROLE_ADMIN"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(
      await call("POST", "/api/users", {
        as: as(userAdminA),
        body: { name: unique("esc"), password: PASSWORD, groups: ["Users", "Administrators"] },
      }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(
      await call("POST", "/api/users", { as: as(userAdminA), body: { name: unique("esc"), password: PASSWORD, roles: ["ROLE_ADMINISTER_GROUPS"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(
      await call("PUT", `/api/users/${plainA.id}`, { as: as(userAdminA), body: { name: plainA.username, roles: ["ROLE_ADMIN"] } }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    // Nor take control of an admin: change its password or delete it.
    expectError(
      await call("PUT", `/api/users/${adminA.id}`, {
        as: as(userAdminA),
        body: { name: adminA.username, groups: ["Users"], password: "taken over!" },
      }),
      403,
      "PRIVILEGE_ESCALATION",
    );
    expectError(await call("DELETE", `/api/users/${adminA.id}`, { as: as(userAdminA) }), 403, "PRIVILEGE_ESCALATION");
    expect(await dbSnapshot()).toEqual(before);
  });
});
