import { and, eq, getTableColumns, gte, lt, sql, type Placeholder, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { FOLDER_PERMISSIONS, rootFolderPath, type AclEntry, type NewFolderAclPlan } from "../domain/folders";
import { refuseWhen, WRITE_CONFLICT_GUARD, type Guard } from "./batch-guards";
import type { AuditColumns } from "../lib/http";
import type { Database } from "./client";
import { compiled, compiledByKey, ifMatchPlaceholder, inBatch, placeholders } from "./compiled";
import { aclSourceOnPath, pathOf } from "./folder-access";
import { folderAcl, folderCycleGuard, folderItems, folders, folderTooDeepGuard, folderTreeState } from "./schema";

/**
 * The statements of folder writes, for the handlers to put in ONE batch (one transaction). What a
 * write checked when it read (the parent's depth, the moved folder's place, that no cycle forms)
 * is checked again by guard statements at the head of its batch, against the rows as they are at
 * that moment: two writes that were each valid when read cannot together break the tree.
 *
 * The statements of folder writes are compiled once per isolate (db/compiled.ts), their values
 * placeholders: Drizzle built their SQL on every request.
 */
export const FOLDER_CYCLE_GUARD: Guard = { table: folderCycleGuard, constraint: "folder_cycle" };
export const FOLDER_TOO_DEEP_GUARD: Guard = { table: folderTooDeepGuard, constraint: "folder_too_deep" };

const placeholder = (name: string) => sql.placeholder(name);

export type NewFolder = typeof folders.$inferInsert;

/**
 * Refuses the batch (WRITE_CONFLICT_GUARD) when the folder is gone, or, given the revision an
 * If-Match named, when the folder no longer carries it: put it first, so a stale write changes nothing.
 */
export function folderUnchangedGuard(db: Database, folderId: string, revision?: string) {
  return inBatch(unchangedGuard(db), { folderId, ifMatch: revision ?? null });
}
const unchangedGuard = compiled((db) =>
  refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM folders WHERE id = ${placeholder("folderId")} AND ${ifMatchPlaceholder(folders.revision)})`, "folder changed"),
);

/**
 * SQL: the rows of the subtree whose root has materialized path `path` (ending in "/"), as one
 * index range: every path starting with it sorts from it up to (excluding) `end`, subtreeEnd(path).
 */
function inSubtree(path: Placeholder, end: Placeholder): SQL {
  return and(gte(folders.materializedPath, path), lt(folders.materializedPath, end))!;
}

/** The end of inSubtree's range: the path with its final "/" replaced by "0", the next character. */
const subtreeEnd = (path: string) => `${path.slice(0, -1)}0`;

/** What every user's private root is called when it is made. */
export const PRIVATE_ROOT_NAME = "Private";

/**
 * Makes the user's private root of one library unless it exists: one statement, a no-op once
 * the root is there, and a no-op for the loser of two first reads racing (the partial UNIQUE index
 * folders_private_root allows one per user and library). Its owner alone sees it and its tree.
 */
export function ensurePrivateRootStatement(db: Database, owner: { accountId: string; userId: string }, contentType: string, audit: AuditColumns) {
  const id = crypto.randomUUID();
  return inBatch(insertPrivateRoot(db), { id, projectId: crypto.randomUUID(), materializedPath: rootFolderPath(id), ...owner, contentType, ...audit });
}
// The tree (E2) runs it on every request.
const insertPrivateRoot = compiled((db) =>
  db
    .insert(folders)
    .values({
      ...placeholders("id", "accountId", "projectId", "materializedPath", "contentType", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
      projectType: "PERSONAL",
      parentId: null,
      name: PRIVATE_ROOT_NAME,
      description: null,
      depth: 0,
      folderType: "PRIVATE",
      visibility: "PRIVATE",
      inheritanceState: "EXPLICIT",
      ownerUserId: placeholder("userId"),
    })
    .onConflictDoNothing(),
);

/** A new root with its creator's ACL: every column given. The insert answers the stored row. */
export function createRootStatements(db: Database, root: Required<NewFolder>) {
  return [inBatch(insertFolder(db), root), seedCreatorStatement(db, root.accountId, root.id, root.ownerUserId)] as const;
}
const insertFolder = compiled((db) =>
  db
    .insert(folders)
    .values(placeholders(...(Object.keys(getTableColumns(folders)) as (keyof NewFolder)[])))
    .returning(),
);

function seedCreatorStatement(db: Database, accountId: string, folderId: string, userId: string) {
  return inBatch(seedCreator(db), { accountId, folderId, userId });
}
// creatorGrants (domain/folders/acl.ts): the five permissions for the creator.
const seedCreator = compiled((db) =>
  db
    .insert(folderAcl)
    .values(FOLDER_PERMISSIONS.map((permission) => ({ ...placeholders("folderId", "accountId"), principalType: "USER", principalId: placeholder("userId"), permission })))
    .onConflictDoNothing(),
);

export interface NewChild {
  id: string;
  accountId: string;
  parentId: string;
  name: string;
  description: string | null;
  folderType: string;
  inheritanceState: string;
  ownerUserId: string;
  revision: string;
  audit: AuditColumns;
}

/**
 * A new child: its project, content type, visibility, path and depth are taken from the parent
 * row inside the batch, so a parent moved or deleted since the read cannot leave a stale path.
 * Refused (through the guards) when the parent is gone or the child would sit past `maxDepth`.
 * The insert answers the stored row; the ACL follows `plan` (acl.ts).
 */
export function createChildStatements(db: Database, child: NewChild, maxDepth: number, plan: NewFolderAclPlan) {
  const { audit, ...values } = child;
  return [
    inBatch(parentGoneGuard(db), { accountId: child.accountId, parentId: child.parentId }),
    inBatch(parentTooDeepGuard(db), { parentId: child.parentId, maxDepth }),
    inBatch(insertChild(db), { ...values, ...audit }),
    ...(plan.copyInherited ? [copyInheritedAclStatement(db, child.accountId, child.id, child.parentId)] : []),
    ...(plan.grantCreator ? [seedCreatorStatement(db, child.accountId, child.id, child.ownerUserId)] : []),
  ] as const;
}
const parentGoneGuard = compiled((db) => refuseWhen(db, WRITE_CONFLICT_GUARD, sql`${pathOf(placeholder("accountId"), placeholder("parentId"))} IS NULL`, "parent gone"));
const parentTooDeepGuard = compiled((db) =>
  refuseWhen(db, FOLDER_TOO_DEEP_GUARD, sql`(SELECT depth FROM folders WHERE id = ${placeholder("parentId")}) + 1 > ${placeholder("maxDepth")}`),
);
const insertChild = compiled((db) => {
  const parent = alias(folders, "p");
  // The child's own values, each selected as the column it fills.
  const given = <T>(name: string) => sql<T>`${placeholder(name)}`.as(name);
  return db
    .insert(folders)
    .select(
      db
        .select({
          id: given<string>("id"),
          accountId: parent.accountId,
          projectId: parent.projectId,
          projectType: parent.projectType,
          parentId: parent.id,
          name: given<string>("name"),
          description: given<string | null>("description"),
          materializedPath: sql<string>`${parent.materializedPath} || ${placeholder("id")} || '/'`.as("materializedPath"),
          depth: sql<number>`${parent.depth} + 1`.as("depth"),
          folderType: given<string>("folderType"),
          contentType: parent.contentType,
          visibility: parent.visibility,
          inheritanceState: given<string>("inheritanceState"),
          ownerUserId: given<string>("ownerUserId"),
          revision: given<string>("revision"),
          createdByUserId: given<string>("createdByUserId"),
          createdDate: given<string>("createdDate"),
          lastModifiedByUserId: given<string>("lastModifiedByUserId"),
          lastModifiedDate: given<string>("lastModifiedDate"),
        })
        .from(parent)
        .where(and(eq(parent.id, placeholder("parentId")), eq(parent.accountId, placeholder("accountId")))),
    )
    .returning();
});

/** The folder's own ACL becomes a copy of the one its parent `parentId` hands down, as it is when the batch runs. */
export function copyInheritedAclStatement(db: Database, accountId: string, folderId: string, parentId: string) {
  return inBatch(copyInheritedAcl(db), { accountId, folderId, parentId });
}
const copyInheritedAcl = compiled((db) =>
  db
    .insert(folderAcl)
    .select(
      sql`SELECT ${placeholder("folderId")}, a.account_id, a.principal_type, a.principal_id, a.permission FROM folder_acl a
        WHERE a.folder_id = ${aclSourceOnPath(pathOf(placeholder("accountId"), placeholder("parentId")))}`,
    )
    .onConflictDoNothing(),
);

export const clearAclStatement = (db: Database, folderId: string) => inBatch(clearAcl(db), { folderId });
const clearAcl = compiled((db) => db.delete(folderAcl).where(eq(folderAcl.folderId, placeholder("folderId"))));

/** Replaces the folder's own ACL: one parameter for all entries (json_each), whatever their number. */
export function replaceAclStatements(db: Database, accountId: string, folderId: string, entries: readonly AclEntry[]) {
  return [clearAclStatement(db, folderId), inBatch(insertAcl(db), { accountId, folderId, entries: JSON.stringify(entries) })] as const;
}
const insertAcl = compiled((db) =>
  db
    .insert(folderAcl)
    .select(
      sql`SELECT ${placeholder("folderId")}, ${placeholder("accountId")}, json_extract(value, '$.principalType'), json_extract(value, '$.principalId'), json_extract(value, '$.permission')
        FROM json_each(${placeholder("entries")})`,
    ),
);

/** A folder's delete, after its guard: the expanded flags and own ACL on it, then its row (which the foreign keys of subfolders and items refuse). */
export function deleteFolderStatements(db: Database, folderId: string) {
  return [inBatch(clearTreeStateOf(db), { folderId }), clearAclStatement(db, folderId), inBatch(deleteFolder(db), { folderId })] as const;
}
const clearTreeStateOf = compiled((db) => db.delete(folderTreeState).where(eq(folderTreeState.folderId, placeholder("folderId"))));
const deleteFolder = compiled((db) => db.delete(folders).where(eq(folders.id, placeholder("folderId"))));

export interface Move {
  accountId: string;
  folderId: string;
  /** The moved folder's path and depth as read: the batch is refused if they changed since. */
  oldPath: string;
  oldDepth: number;
  newParentId: string;
  maxDepth: number;
}

/**
 * A move of a folder and its subtree under a new parent, re-checked inside the batch against the
 * rows as they are then: refused as a write conflict when the moved folder was moved meanwhile or
 * the new parent is gone, as a cycle when the new parent now lies inside the moved subtree (two
 * crossing moves: the second one finds the first one's result), as too deep when the subtree
 * would pass the depth limit. Then every path of the subtree gets the new parent's path in front
 * of its part from the moved folder down (pathAfterMove in src/domain/folders/paths.ts).
 */
export function moveStatements(db: Database, move: Move) {
  const values = moveValues(move);
  return [inBatch(movedMeanwhileGuard(db), values), inBatch(moveCycleGuard(db), values), inBatch(moveTooDeepGuard(db), values), inBatch(moveSubtree(db), values)] as const;
}
// The values of a move's compiled statements: Move's, and of the old path the end of its subtree's
// range, its length, and where its part from the moved folder down starts (after the old parent's).
const moveValues = (move: Move) => ({
  ...move,
  oldPathEnd: subtreeEnd(move.oldPath),
  oldPathLength: move.oldPath.length,
  keptFrom: move.oldPath.length - move.folderId.length,
});
const moved = (name: keyof ReturnType<typeof moveValues>) => placeholder(name);
const newParentPath = () => pathOf(moved("accountId"), moved("newParentId"));
const newParentDepth = () => sql`(SELECT f.depth FROM folders f WHERE f.id = ${moved("newParentId")})`;
const movedSubtree = () => inSubtree(moved("oldPath"), moved("oldPathEnd"));
const movedMeanwhileGuard = compiled((db) =>
  refuseWhen(db, WRITE_CONFLICT_GUARD, sql`${pathOf(moved("accountId"), moved("folderId"))} IS NOT ${moved("oldPath")} OR ${newParentPath()} IS NULL`, "moved meanwhile"),
);
const moveCycleGuard = compiled((db) => refuseWhen(db, FOLDER_CYCLE_GUARD, sql`substr(${newParentPath()}, 1, ${moved("oldPathLength")}) = ${moved("oldPath")}`));
const moveTooDeepGuard = compiled((db) => {
  const deepestInSubtree = sql`(SELECT max(depth) FROM folders WHERE account_id = ${moved("accountId")} AND ${movedSubtree()})`;
  return refuseWhen(db, FOLDER_TOO_DEEP_GUARD, sql`${newParentDepth()} + 1 + (${deepestInSubtree} - ${moved("oldDepth")}) > ${moved("maxDepth")}`);
});
const moveSubtree = compiled((db) =>
  db
    .update(folders)
    .set({
      materializedPath: sql`${newParentPath()} || substr(${folders.materializedPath}, ${moved("keptFrom")})`,
      depth: sql`${folders.depth} + (${newParentDepth()} + 1 - ${moved("oldDepth")})`,
    })
    .where(and(eq(folders.accountId, moved("accountId")), movedSubtree())),
);

/** Replaces a user's expanded folders; one parameter for the ids (json_each), whatever their number. */
export function replaceTreeStateStatements(db: Database, user: { accountId: string; userId: string }, folderIds: readonly string[]) {
  return [inBatch(clearTreeState(db), user), inBatch(insertTreeState(db), { ...user, folderIds: JSON.stringify(folderIds) })] as const;
}
const clearTreeState = compiled((db) => db.delete(folderTreeState).where(eq(folderTreeState.userId, placeholder("userId"))));
// A folder deleted since the check is skipped, not a failure: it cannot be expanded any more.
const insertTreeState = compiled((db) =>
  db
    .insert(folderTreeState)
    .select(
      sql`SELECT ${placeholder("userId")}, value, ${placeholder("accountId")} FROM json_each(${placeholder("folderIds")}) WHERE value IN (SELECT id FROM folders WHERE account_id = ${placeholder("accountId")})`,
    ),
);

/** A folder's inheritance state, with a new revision and the audit of the update. Batchable. */
export function updateFolderState(db: Database, state: { id: string; inheritanceState: string; revision: string; lastModifiedByUserId: string; lastModifiedDate: string }) {
  return inBatch(updateState(db), state);
}
const updateState = compiled((db) =>
  db
    .update(folders)
    .set(placeholders("inheritanceState", "revision", "lastModifiedByUserId", "lastModifiedDate"))
    .where(eq(folders.id, placeholder("id"))),
);

/** What a folder's PATCH sets: the members it sends of these, its inheritance state, a new revision and the audit of the update. */
export type FolderUpdate = Partial<Pick<NewFolder, (typeof SENT_MEMBERS)[number]>> & { inheritanceState: string; revision: string; lastModifiedByUserId: string; lastModifiedDate: string };
const SENT_MEMBERS = ["name", "description", "parentId"] as const;

/** A folder's PATCH (a move's after its statements). Answers the stored row. Batchable. */
export function updateFolderStatement(db: Database, id: string, changes: FolderUpdate) {
  return inBatch(updateFolder(db, SENT_MEMBERS.filter((member) => changes[member] !== undefined)), { ...changes, id });
}
// One template per set of members sent: at most eight.
const updateFolder = compiledByKey(
  (db, sent: readonly (typeof SENT_MEMBERS)[number][]) =>
    db
      .update(folders)
      .set(placeholders(...sent, "inheritanceState", "revision", "lastModifiedByUserId", "lastModifiedDate"))
      .where(eq(folders.id, placeholder("id")))
      .returning(),
  (sent) => sent.join(),
);

type Filing = { accountId: string; itemType: string; itemId: string; folderId: string };

/**
 * Files an item in a folder, or moves it there from `fromFolderId` (null: from nowhere); no row
 * when it is meanwhile filed anywhere else. Answers the stored placement.
 */
export function fileItem(db: Database, filing: Filing & { name: string; filedByUserId: string; filedDate: string; fromFolderId: string | null }) {
  return fileItemStatement(db).all(filing);
}
const fileItemStatement = compiled((db) => {
  const placement = placeholders("folderId", "name", "filedByUserId", "filedDate");
  return db
    .insert(folderItems)
    .values({ ...placeholders("accountId", "itemType", "itemId"), ...placement })
    .onConflictDoUpdate({ target: [folderItems.accountId, folderItems.itemType, folderItems.itemId], set: placement, setWhere: sql`${folderItems.folderId} IS ${placeholder("fromFolderId")}` })
    .returning();
});

/** Takes an item out of the folder it is filed in (nothing when it is filed elsewhere). */
export const takeOutItem = (db: Database, filing: Filing) => takeOutStatement(db).run(filing);
const takeOutStatement = compiled((db) =>
  db
    .delete(folderItems)
    .where(
      and(
        eq(folderItems.accountId, placeholder("accountId")),
        eq(folderItems.itemType, placeholder("itemType")),
        eq(folderItems.itemId, placeholder("itemId")),
        eq(folderItems.folderId, placeholder("folderId")),
      ),
    ),
);
