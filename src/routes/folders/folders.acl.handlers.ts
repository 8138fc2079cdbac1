import { diffMembers } from "../../domain/audit/changes";
import type { BatchItem } from "drizzle-orm/batch";
import { refusedBy, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { folderCaller, placeInChain, requireReadable, selectAclInForce, selectChain, type FolderInChain } from "../../db/folder-access";
import { folderUnchangedGuard, replaceAclStatements, updateFolderState } from "../../db/folder-writes";
import { selectPrincipalsOfAccount, unknownPrincipals } from "../../db/principals";
import { FOLDER_PERMISSIONS, isPrivateFolder, mayChangeFolderAcl, type AclEntry, type FolderPermission, type PrincipalType } from "../../domain/folders";
import type { UserPrincipal } from "../../domain/principal";
import { ApiError, forbidden, invalid, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { auditForUpdate, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import { userOf } from "./folders.handlers";
import { checkFolderIfMatch } from "./folders.model";
import type * as routes from "./folders.routes";

/**
 * A folder's ACL as the API shows it: one entry per principal with its permissions, in a fixed
 * order (users, then groups, by id). Reading and replacing it both need ADMINISTER on the folder
 * or ROLE_PERMISSION_FOLDERS (mayChangeFolderAcl): who may see a folder's ACL is who may change it.
 */
type AclListEntry = { principalType: PrincipalType; principalId: string; permissions: FolderPermission[] };

function grouped(rows: readonly AclEntry[]): AclListEntry[] {
  const byPrincipal = new Map<string, AclListEntry>();
  for (const row of rows) {
    const key = `${row.principalType}:${row.principalId}`;
    if (!byPrincipal.has(key)) byPrincipal.set(key, { principalType: row.principalType, principalId: row.principalId, permissions: [] });
    byPrincipal.get(key)!.permissions.push(row.permission);
  }
  return [...byPrincipal.values()]
    .map((entry) => ({ ...entry, permissions: FOLDER_PERMISSIONS.filter((p) => entry.permissions.includes(p)) }))
    .sort((a, b) => (a.principalType === b.principalType ? (a.principalId < b.principalId ? -1 : 1) : a.principalType === "USER" ? -1 : 1));
}

function requireAclAuthority(principal: UserPrincipal, found: FolderInChain): void {
  if (!mayChangeFolderAcl(found.resolved.permissions, principal.privileges)) {
    throw forbidden("A folder's permissions are for those with ADMINISTER on it or ROLE_PERMISSION_FOLDERS");
  }
}

export const getPermissions: AppRouteHandler<typeof routes.getPermissions> = async (c) => {
  const { id } = c.req.valid("param");
  const db = c.get("db");
  const principal = userOf(c);
  const [chainRows, aclRows] = await db.batch([selectChain(db, principal, id), selectAclInForce(db, principal, id)]);
  const found = requireReadable(placeInChain(chainRows, id, folderCaller(principal)));
  requireAclAuthority(principal, found);
  return c.json({ content: grouped(aclRows as AclEntry[]), permission_inherited: found.resolved.inherited }, 200);
};

/** Replaces the folder's own ACL; an inheriting (non-root) folder becomes EXPLICIT, since its own ACL now governs. */
export const putPermissions: AppRouteHandler<typeof routes.putPermissions> = async (c) => {
  const { id } = c.req.valid("param");
  const { content } = c.req.valid("json");
  const db = c.get("db");
  const principal = userOf(c);

  const seen = new Map<string, number>();
  const repeated: Problem[] = content.flatMap((entry, i) => {
    const key = `${entry.principalType}:${entry.principalId}`;
    const first = seen.get(key);
    seen.set(key, first ?? i);
    return first === undefined ? [] : [{ name: `body.content[${i}]`, message: `Names the same principal as body.content[${first}]: give one entry per principal`, level: "ERROR" as const }];
  });
  if (repeated.length > 0) throw new ApiError("VALIDATION_FAILED", "One entry per principal", { problems: repeated });

  const [chainRows, knownUsers, knownGroups] = await db.batch([selectChain(db, principal, id), ...selectPrincipalsOfAccount(db, principal.accountId, content)]);
  const found = requireReadable(placeInChain(chainRows, id, folderCaller(principal)));
  checkFolderIfMatch(c, found.folder.row.revision);
  requireAclAuthority(principal, found);
  const row = found.folder.row;
  if (isPrivateFolder(row.folderType, row.visibility)) throw invalid("body.content", "A private folder belongs to its owner alone: it cannot be shared");
  const problems = unknownPrincipals(content, { users: knownUsers, groups: knownGroups });
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown principals", { problems });

  const entries: AclEntry[] = content.flatMap((e) => [...new Set(e.permissions)].map((permission) => ({ principalType: e.principalType, principalId: e.principalId, permission })));
  // The own ACL being replaced is not read (the chain carries only the caller's entries): the event gives the new one.
  c.get("audit").record({
    accountId: principal.accountId,
    action: "folder.update",
    target: { type: "folder", id, name: row.name },
    changes: [
      { member: "permissions", after: grouped(entries) },
      ...diffMembers({ inheritance_state: row.inheritanceState }, { inheritance_state: row.parentId === null ? row.inheritanceState : "EXPLICIT" }),
    ],
  });
  const statements: BatchItem<"sqlite">[] = [
    folderUnchangedGuard(db, id, c.req.header("If-Match") ? row.revision : undefined),
    updateFolderState(db, { id, inheritanceState: row.parentId === null ? row.inheritanceState : "EXPLICIT", revision: newRevision(), ...auditForUpdate(principal) }),
    ...replaceAclStatements(db, principal.accountId, id, entries),
  ];
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    // Changed since the If-Match was checked, or deleted meanwhile.
    if (refusedBy(err, WRITE_CONFLICT_GUARD) && c.req.header("If-Match")) throw new ApiError("PRECONDITION_FAILED", "The folder was changed concurrently; reload it and retry");
    if (refusedBy(err, WRITE_CONFLICT_GUARD) || isConstraintError(err, "FOREIGN KEY")) throw notFound("Folder");
    throw err;
  }
  return c.json({ content: grouped(entries), permission_inherited: false }, 200);
};
