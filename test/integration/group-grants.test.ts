import { beforeAll, describe, expect, it } from "vitest";
import { folders, makeFolder, setAcl, toGroup, toUser } from "./folder-helpers";
import { as, call, countOnEveryDatabase, createAccount, createAccountBeside, createGroup, createUser, databaseOf, expectError, unique, type TestUser } from "./helpers";
import { createSource, sourcePath } from "./source-helpers";

/** A group's grants go with it (migration 0016_group_grants.sql, docs/accounts-users-groups.md). */
let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  // Signed in once: its requests below race each other, not its first sign-in.
  expect((await call("GET", "/api/user", { as: as(admin) })).status).toBe(200);
});

/** Grants naming `groupId`, straight from D1 (every database). */
const grantsNaming = (groupId: string): Promise<number> =>
  countOnEveryDatabase(
    "SELECT (SELECT count(*) FROM source_permissions WHERE principal_id = ?1) + (SELECT count(*) FROM folder_acl WHERE principal_id = ?1) AS n",
    groupId,
  );
/** Grants to a group that is not one of their account's, anywhere. */
const orphanGroupGrants = (): Promise<number> =>
  countOnEveryDatabase(
    `SELECT (SELECT count(*) FROM source_permissions p WHERE p.principal_type = 'GROUP' AND NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = p.principal_id AND g.account_id = p.account_id))
          + (SELECT count(*) FROM folder_acl a WHERE a.principal_type = 'GROUP' AND NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = a.principal_id AND g.account_id = a.account_id)) AS n`,
  );

describe("DELETE /api/groups/{id}: the grants naming the group go with it", () => {
  it("removes its source permissions and folder ACL entries, and no other grant", async () => {
    const [doomed, kept] = [await createGroup(account.id, unique("doomed")), await createGroup(account.id, unique("kept"))];
    const reader = await createUser(account.id);
    const source = await createSource(admin);
    const grants = [
      { principalType: "GROUP", principalId: doomed.id, permission: "WRITE" },
      { principalType: "GROUP", principalId: kept.id, permission: "READ" },
      { principalType: "USER", principalId: reader.id, permission: "READ" },
    ];
    expect((await call("PUT", `${sourcePath(source.id)}/permissions`, { as: as(admin), body: { content: grants } })).status).toBe(200);
    const folder = await makeFolder(admin, unique("shared"));
    await setAcl(admin, folder.id, [toGroup(doomed, "READ", "WRITE"), toGroup(kept, "READ"), toUser(admin, "READ", "WRITE", "CREATE", "DELETE", "ADMINISTER")]);
    expect(await grantsNaming(doomed.id)).toBe(3);

    const deleted = await call("DELETE", `/api/groups/${doomed.id}`, { as: as(admin) });
    expect(deleted.status, deleted.text).toBe(204);

    expect(await grantsNaming(doomed.id)).toBe(0);
    const sourceGrants = await call("GET", `${sourcePath(source.id)}/permissions`, { as: as(admin) });
    expect(sourceGrants.json.content).toEqual([grants[1], grants[2]]);
    const folderAcl = await folders("GET", `/api/folders/${folder.id}/permissions`, admin);
    expect(folderAcl.status, folderAcl.text).toBe(200);
    expect(JSON.stringify(folderAcl.json)).not.toContain(doomed.id);
    expect(JSON.stringify(folderAcl.json)).toContain(kept.id);
    expect(await grantsNaming(kept.id)).toBe(2);
  });

  it("a permissions PUT racing the group's delete never leaves a grant to the deleted group", async () => {
    const source = await createSource(admin);
    const folder = await makeFolder(admin, unique("raced"));
    for (let round = 0; round < 8; round++) {
      const group = await createGroup(account.id, unique("raced"));
      const [sourcePut, folderPut, deleted] = await Promise.all([
        call("PUT", `${sourcePath(source.id)}/permissions`, { as: as(admin), body: { content: [{ principalType: "GROUP", principalId: group.id, permission: "READ" }] } }),
        folders("PUT", `/api/folders/${folder.id}/permissions`, admin, { content: [toGroup(group, "READ"), toUser(admin, "READ", "WRITE", "CREATE", "DELETE", "ADMINISTER")] }),
        call("DELETE", `/api/groups/${group.id}`, { as: as(admin) }),
      ]);
      expect(deleted.status, deleted.text).toBe(204);
      // Before the delete: 200 (and the delete removed the grant); after it: 400, the group unknown; between its check and its write: 409.
      for (const put of [sourcePut, folderPut]) {
        expect([200, 400, 409], put.text).toContain(put.status);
        if (put.status === 409) expectError(put, 409, "CONCURRENT_UPDATE");
      }
      expect(await grantsNaming(group.id)).toBe(0);
    }
    expect(await orphanGroupGrants()).toBe(0);
  });

  it("the database itself refuses a grant naming a group that does not exist in its account", async () => {
    const source = await createSource(admin);
    const folder = await makeFolder(admin, unique("guarded"));
    const stranger = await createGroup((await createAccountBeside(account.id)).id, unique("stranger"));
    const db = await databaseOf(account.id);
    for (const ghost of ["ghost-group", stranger.id]) {
      await expect(
        db.prepare("INSERT INTO source_permissions (source_id, account_id, principal_type, principal_id, permission) VALUES (?, ?, 'GROUP', ?, 'READ')").bind(source.id, account.id, ghost).run(),
      ).rejects.toThrow(/grantee_group_missing/);
      await expect(
        db.prepare("INSERT INTO folder_acl (folder_id, account_id, principal_type, principal_id, permission) VALUES (?, ?, 'GROUP', ?, 'READ')").bind(folder.id, account.id, ghost).run(),
      ).rejects.toThrow(/grantee_group_missing/);
    }
  });
});
