import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PRIVILEGES } from "../../src/domain/privileges";
import { as, call, createAccount, createGroup, createUser, databaseOf, expectNoPasswordMaterial, expectUnauthenticated, SUPERVISOR } from "./helpers";
import { bearerFor, createClient, roundTrips } from "./trusted-access-helpers";

/** GET /api/user: who is calling (docs/accounts-users-groups.md, "Who am I"). */
describe("GET /api/user", () => {
  it("answers an administrator with its account, groups and every privilege, in one D1 round trip", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    await call("PUT", `/api/users/${admin.id}`, { body: { name: admin.username, fullName: "Ada Admin", email: "ada@example.test", groups: ["Users", "Administrators"] } });

    const res = await call("GET", "/api/user", { as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: admin.id,
      name: admin.username,
      fullname: "Ada Admin",
      email: "ada@example.test",
      accountId: account.id,
      account: { id: account.id, name: account.name },
      activeGroups: ["Administrators", "Users"],
      roles: [],
      activeRoles: [...PRIVILEGES],
      supervisor: false,
      signedInWith: "basic",
    });
    expectNoPasswordMaterial(res.text, admin.password);
    // The credentials are cached now: the user's row is the only read.
    expect(roundTrips(await call("GET", "/api/user", { as: as(admin) }))).toBe(1);
  });

  it("a user's effective privileges are its roles and its groups' privileges, in catalogue order", async () => {
    const account = await createAccount();
    await createGroup(account.id, "Modellers", ["ROLE_CREATE_SOURCES"]);
    const user = await createUser(account.id, { groups: ["Users", "Modellers"], roles: ["ROLE_EDIT_FORMULAS"] });
    const res = await call("GET", "/api/user", { as: as(user) });
    expect(res.json).toMatchObject({
      activeGroups: ["Modellers", "Users"],
      roles: ["ROLE_EDIT_FORMULAS"],
      activeRoles: ["ROLE_EDIT_FORMULAS", "ROLE_CREATE_SOURCES"],
      fullname: null,
      email: null,
    });
  });

  it("answers the supervisor, who belongs to no account, without touching D1", async () => {
    const res = await call("GET", "/api/user");
    expect(res.json).toEqual({
      id: "supervisor",
      name: SUPERVISOR.username,
      fullname: null,
      email: null,
      accountId: null,
      account: null,
      activeGroups: [],
      roles: [],
      activeRoles: ["ROLE_ADMINISTER_USERS", "ROLE_ADMINISTER_GROUPS", "ROLE_VIEW_AUDIT", "ROLE_MANAGE_WEBHOOKS"],
      supervisor: true,
      signedInWith: "basic",
    });
    expect(roundTrips(res)).toBe(0);
    expectNoPasswordMaterial(res.text, env.SUPERVISOR_PASSWORD!);
  });

  it("says when the caller signed in with a trusted-access bearer token", async () => {
    const account = await createAccount();
    const user = await createUser(account.id);
    const client = await createClient({ account_ids: [account.id] });
    const { bearer } = await bearerFor(client, user.username);
    const res = await call("GET", "/api/user", { as: { bearer } });
    expect(res.json).toMatchObject({ id: user.id, accountId: account.id, signedInWith: "bearer", activeRoles: [] });
    expect(res.text).not.toContain(bearer);
  });

  it("is 401 without credentials, and for a user deleted since", async () => {
    expectUnauthenticated(await call("GET", "/api/user", { as: null }), "/api/user");
    const account = await createAccount();
    const user = await createUser(account.id);
    expect((await call("GET", "/api/user", { as: as(user) })).status).toBe(200);
    // Straight in D1, as another isolate would: this isolate's cache still trusts the credentials.
    const db = await databaseOf(account.id);
    await db.prepare("DELETE FROM user_groups WHERE user_id = ?").bind(user.id).run();
    await db.prepare("DELETE FROM users WHERE id = ?").bind(user.id).run();
    expectUnauthenticated(await call("GET", "/api/user", { as: as(user) }), "/api/user");
  });
});
