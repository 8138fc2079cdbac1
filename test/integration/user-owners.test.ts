import { beforeAll, describe, expect, it } from "vitest";
import { folders, makeFolder } from "./folder-helpers";
import { as, call, countOnEveryDatabase, createAccount, createAccountBeside, createUser, databaseOf, expectError, type TestUser } from "./helpers";
import { createSource, sourceName } from "./source-helpers";

/** Deleting a user who owns objects: ownership moves with `transferTo` in the delete's batch, or the delete is refused. */
let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

const owner = () => createUser(account.id, { groups: ["Users", "Administrators"] });

/** Every row naming `userId` as owner or grantee, straight from D1 (every database). */
const rowsNaming = (userId: string): Promise<number> =>
  countOnEveryDatabase(
    `SELECT (SELECT count(*) FROM sources WHERE owner_user_id = ?1) + (SELECT count(*) FROM folders WHERE owner_user_id = ?1)
          + (SELECT count(*) FROM source_permissions WHERE principal_id = ?1) + (SELECT count(*) FROM folder_acl WHERE principal_id = ?1)
          + (SELECT count(*) FROM folder_tree_state WHERE user_id = ?1) AS n`,
    userId,
  );

describe("DELETE /api/users/{id} of a user who owns objects", () => {
  it("is refused with 409 listing what it owns (type, id, name), and nothing changes", async () => {
    const frank = await owner();
    const source = await createSource(frank);
    const folder = await makeFolder(frank, "Frank's reports");
    const res = await call("DELETE", `/api/users/${frank.id}`, { as: as(admin) });
    expectError(res, 409, "USER_OWNS_OBJECTS");
    const listed = Object.values(res.json.problems[0].dependencies as Record<string, { accessible: unknown[] }>)[0]!.accessible;
    expect(listed).toEqual(expect.arrayContaining([{ type: "SOURCE", id: source.id, name: source.name }, { type: "FOLDER", id: folder.id, name: "Frank's reports" }]));
    expect((await call("GET", `/api/users/${frank.id}`)).status).toBe(200);
    expect((await call("GET", `/api/sources/${source.id}`, { as: as(frank) })).json.ownerUserId).toBe(frank.id);
  });

  it("moves what it owns to the user transferTo names, in the delete's batch", async () => {
    const frank = await owner();
    const heir = await owner();
    const source = await createSource(frank);
    const folder = await makeFolder(frank, "Handed over");
    // Frank's private tree (made by a tree read) goes with Frank; it is no one else's.
    expect((await folders("GET", "/api/folders/tree", frank)).status).toBe(200);
    const res = await call("DELETE", `/api/users/${frank.id}?transferTo=${heir.id}`, { as: as(admin) });
    expect(res.status).toBe(204);
    expect((await call("GET", `/api/sources/${source.id}`, { as: as(heir) })).json.ownerUserId).toBe(heir.id);
    const row = await (await databaseOf(account.id)).prepare("SELECT owner_user_id FROM folders WHERE id = ?").bind(folder.id).first<{ owner_user_id: string }>();
    expect(row!.owner_user_id).toBe(heir.id);
    expect(await rowsNaming(frank.id)).toBe(0);
  });

  it("a user who owns nothing is deleted without transferTo; grants to it go with it", async () => {
    const frank = await owner();
    const granted = await createSource(admin);
    const grant = await call("PUT", `/api/sources/${granted.id}/permissions`, { as: as(admin), body: { content: [{ principalType: "USER", principalId: frank.id, permission: "READ" }] } });
    expect(grant.status, grant.text).toBe(200);
    expect((await call("DELETE", `/api/users/${frank.id}`, { as: as(admin) })).status).toBe(204);
    expect(await rowsNaming(frank.id)).toBe(0);
  });

  it("transferTo must name another user of the same account (400 naming query.transferTo), and nothing changes", async () => {
    const frank = await owner();
    const source = await createSource(frank);
    const other = await createUser((await createAccount()).id);
    for (const heir of [other.id, frank.id, "no-such-user"]) {
      expectError(await call("DELETE", `/api/users/${frank.id}?transferTo=${heir}`, { as: as(admin) }), 400, "VALIDATION_FAILED", ["query.transferTo"]);
    }
    expect((await call("GET", `/api/sources/${source.id}`, { as: as(frank) })).json.ownerUserId).toBe(frank.id);
  });

  it("a source created by a user while it is deleted never ends up owned by a deleted user", async () => {
    for (let round = 0; round < 6; round++) {
      const frank = await owner();
      // Signed in once, so its credentials are cached and its create races the delete.
      expect((await call("GET", "/api/user", { as: as(frank) })).status).toBe(200);
      const [created, deleted] = await Promise.all([
        call("POST", "/api/sources", { as: as(frank), body: { name: sourceName("race") } }),
        call("DELETE", `/api/users/${frank.id}`, { as: as(admin) }),
      ]);
      expect([201, 401, 409]).toContain(created.status);
      expect([204, 409]).toContain(deleted.status);
      const exists = await countOnEveryDatabase("SELECT count(*) AS n FROM users WHERE id = ?", frank.id);
      if (!exists) expect(await rowsNaming(frank.id)).toBe(0);
      // Whatever the order, the source (if made) names an existing user.
      const orphans = await countOnEveryDatabase("SELECT count(*) AS n FROM sources s WHERE s.owner_user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.owner_user_id)");
      expect(orphans).toBe(0);
    }
  });

  it("with transferTo, a concurrent create and delete leave every source with an existing owner", async () => {
    const heir = await owner();
    for (let round = 0; round < 6; round++) {
      const frank = await owner();
      expect((await call("GET", "/api/user", { as: as(frank) })).status).toBe(200);
      const [created, deleted] = await Promise.all([
        call("POST", "/api/sources", { as: as(frank), body: { name: sourceName("race") } }),
        call("DELETE", `/api/users/${frank.id}?transferTo=${heir.id}`, { as: as(admin) }),
      ]);
      expect(deleted.status).toBe(204);
      if (created.status === 201) {
        const owner = await (await databaseOf(account.id)).prepare("SELECT owner_user_id AS id FROM sources WHERE id = ?").bind(created.json.id).first<{ id: string }>();
        expect(owner!.id).toBe(heir.id);
      } else expect([401, 409]).toContain(created.status);
      expect(await rowsNaming(frank.id)).toBe(0);
    }
  });

  it("the database itself refuses a source, folder or grant naming a user that does not exist in its account", async () => {
    const frank = await owner();
    const source = await createSource(frank);
    const folder = await makeFolder(frank, "Guarded");
    const stranger = await createUser((await createAccountBeside(account.id)).id);
    const db = await databaseOf(account.id);
    for (const ghost of ["ghost-user", stranger.id]) {
      await expect(db.prepare("UPDATE sources SET owner_user_id = ? WHERE id = ?").bind(ghost, source.id).run()).rejects.toThrow(/owner_user_missing/);
      await expect(db.prepare("UPDATE folders SET owner_user_id = ? WHERE id = ?").bind(ghost, folder.id).run()).rejects.toThrow(/owner_user_missing/);
      await expect(
        db.prepare("INSERT INTO source_permissions (source_id, account_id, principal_type, principal_id, permission) VALUES (?, ?, 'USER', ?, 'READ')").bind(source.id, account.id, ghost).run(),
      ).rejects.toThrow(/owner_user_missing/);
    }
  });
});
