import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, dbSnapshot, expectError, type TestUser } from "./helpers";

/** Another account's objects do not exist for a caller: 404 exactly like an unknown id, never 403. */
let mine: { id: string };
let theirs: { id: string };
let admin: TestUser;
let theirUser: TestUser;
let theirGroup: { id: string; name: string };

beforeAll(async () => {
  mine = await createAccount();
  theirs = await createAccount();
  admin = await createUser(mine.id, { groups: ["Users", "Administrators"] });
  theirUser = await createUser(theirs.id);
  theirGroup = await createGroup(theirs.id, "Theirs", []);
  await call("PUT", "/api/quota", { body: { accountId: theirs.id, quotas: [{ type: "SOURCE", limit: 1 }] } });
});

/** Calls `path` with another account's id and with an unknown id; both must be the same 404. */
async function expectSame404(method: string, path: (id: string) => string, theirId: string, body?: unknown) {
  const other = await call(method, path(theirId), { as: as(admin), body });
  const missing = await call(method, path(crypto.randomUUID()), { as: as(admin), body });
  expectError(other, 404, "NOT_FOUND");
  expectError(missing, 404, "NOT_FOUND");
  expect(other.json.message).toBe(missing.json.message);
  expect(other.json.problems).toEqual(missing.json.problems);
}

describe("another account's objects are 404 to an account admin", () => {
  it("users: GET, PUT, DELETE", async () => {
    const before = await dbSnapshot();
    await expectSame404("GET", (id) => `/api/users/${id}`, theirUser.id);
    await expectSame404("PUT", (id) => `/api/users/${id}`, theirUser.id, { name: theirUser.username, password: "hijacked password" });
    await expectSame404("DELETE", (id) => `/api/users/${id}`, theirUser.id);
    expect(await dbSnapshot()).toEqual(before);
    // The user is untouched and still signs in with its own password.
    expect((await call("GET", `/api/users/${theirUser.id}`)).json.accountId).toBe(theirs.id);
  });

  it("groups: GET, PUT, DELETE", async () => {
    const before = await dbSnapshot();
    await expectSame404("GET", (id) => `/api/groups/${id}`, theirGroup.id);
    await expectSame404("PUT", (id) => `/api/groups/${id}`, theirGroup.id, { name: "Renamed" });
    await expectSame404("DELETE", (id) => `/api/groups/${id}`, theirGroup.id);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("quota: GET", async () => {
    await expectSame404("GET", (id) => `/api/quota/${id}`, theirs.id);
  });

  it("lists show the caller's own account only, whatever accountId says", async () => {
    for (const path of ["/api/users", "/api/groups"]) {
      const res = await call("GET", `${path}?accountId=${theirs.id}&maxResults=1000`, { as: as(admin) });
      expect(res.status).toBe(200);
      expect(res.json.content.length).toBeGreaterThan(0);
      for (const item of res.json.content) expect(item.accountId, path).toBe(mine.id);
      expect(res.text).not.toContain(theirUser.id);
      expect(res.text).not.toContain(theirGroup.id);
    }
  });

  it("writes naming another account are 403 ACCOUNT_FORBIDDEN, and change nothing", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/users", { as: as(admin), body: { name: "planted-user", password: "planted password", accountId: theirs.id } }),
      403,
      "ACCOUNT_FORBIDDEN",
      ["body.accountId"],
    );
    expectError(await call("POST", "/api/groups", { as: as(admin), body: { name: "Planted", accountId: theirs.id } }), 403, "ACCOUNT_FORBIDDEN", [
      "body.accountId",
    ]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("another account's group names cannot be joined", async () => {
    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/users", { as: as(admin), body: { name: "joiner", password: "joiner password", groups: [theirGroup.name] } }),
      400,
      "VALIDATION_FAILED",
      ["body.groups[0]"],
    );
    expect(await dbSnapshot()).toEqual(before);
  });
});
