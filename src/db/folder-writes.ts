import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { creatorGrants, rootFolderPath, type AclEntry, type NewFolderAclPlan } from "../domain/folders";
import { refuseWhen, WRITE_CONFLICT_GUARD, type Guard } from "./batch-guards";
import type { AuditColumns } from "../lib/http";
import type { Database } from "./client";
import { aclSourceOnPath, pathOf } from "./folder-access";
import { folderAcl, folderCycleGuard, folders, folderTooDeepGuard } from "./schema";

/**
 * The statements of folder writes, for the handlers to put in ONE batch (one transaction). What a
 * write checked when it read (the parent's depth, the moved folder's place, that no cycle forms)
 * is checked again by guard statements at the head of its batch, against the rows as they are at
 * that moment: two writes that were each valid when read cannot together break the tree.
 */
export const FOLDER_CYCLE_GUARD: Guard = { table: folderCycleGuard, constraint: "folder_cycle" };
export const FOLDER_TOO_DEEP_GUARD: Guard = { table: folderTooDeepGuard, constraint: "folder_too_deep" };

export type NewFolder = typeof folders.$inferInsert;

/**
 * Refuses the batch (WRITE_CONFLICT_GUARD) when the folder is gone, or, given the revision an
 * If-Match named, when the folder no longer carries it: put it first, so a stale write changes nothing.
 */
export function folderUnchangedGuard(db: Database, folderId: string, revision?: string) {
  const sameRevision = revision === undefined ? sql`1` : sql`revision = ${revision}`;
  return refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM folders WHERE id = ${folderId} AND ${sameRevision})`, "folder changed");
}

/**
 * SQL: the rows of the subtree whose root has materialized path `path` (ending in "/"), as one
 * index range: every path starting with it sorts from it up to (excluding) the same text with its
 * final "/" replaced by "0", the next character.
 */
export function inSubtree(path: string): SQL {
  return and(gte(folders.materializedPath, path), lt(folders.materializedPath, `${path.slice(0, -1)}0`))!;
}

/** What every user's private root is called when it is made. */
export const PRIVATE_ROOT_NAME = "Private";

/**
 * Makes the user's private root of one library unless it exists: one statement, a no-op once
 * the root is there, and a no-op for the loser of two first reads racing (the partial UNIQUE index
 * folders_private_root allows one per user and library). Its owner alone sees it and its tree.
 */
export function ensurePrivateRootStatement(db: Database, owner: { accountId: string; userId: string }, contentType: string, audit: AuditColumns) {
  const id = crypto.randomUUID();
  return db
    .insert(folders)
    .values({
      id,
      accountId: owner.accountId,
      projectId: crypto.randomUUID(),
      projectType: "PERSONAL",
      parentId: null,
      name: PRIVATE_ROOT_NAME,
      description: null,
      materializedPath: rootFolderPath(id),
      depth: 0,
      folderType: "PRIVATE",
      contentType,
      visibility: "PRIVATE",
      inheritanceState: "EXPLICIT",
      ownerUserId: owner.userId,
      ...audit,
    })
    .onConflictDoNothing();
}

/** A new root with its creator's ACL. The insert answers the stored row. */
export function createRootStatements(db: Database, root: NewFolder & { accountId: string; id: string; ownerUserId: string }) {
  return [db.insert(folders).values(root).returning(), seedCreatorStatement(db, root.accountId, root.id, root.ownerUserId)] as const;
}

function seedCreatorStatement(db: Database, accountId: string, folderId: string, userId: string) {
  return db
    .insert(folderAcl)
    .values(creatorGrants(userId).map((entry) => ({ folderId, accountId, ...entry })))
    .onConflictDoNothing();
}

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
  const parent = alias(folders, "p");
  const parentRow = and(eq(parent.id, child.parentId), eq(parent.accountId, child.accountId));
  const insert = db
    .insert(folders)
    .select(
      db
        .select({
          id: sql<string>`${child.id}`.as("id"),
          accountId: parent.accountId,
          projectId: parent.projectId,
          projectType: parent.projectType,
          parentId: parent.id,
          name: sql<string>`${child.name}`.as("name"),
          description: sql<string | null>`${child.description}`.as("description"),
          materializedPath: sql<string>`${parent.materializedPath} || ${child.id} || '/'`.as("materializedPath"),
          depth: sql<number>`${parent.depth} + 1`.as("depth"),
          folderType: sql<string>`${child.folderType}`.as("folderType"),
          contentType: parent.contentType,
          visibility: parent.visibility,
          inheritanceState: sql<string>`${child.inheritanceState}`.as("inheritanceState"),
          ownerUserId: sql<string>`${child.ownerUserId}`.as("ownerUserId"),
          revision: sql<string>`${child.revision}`.as("revision"),
          createdByUserId: sql<string>`${child.audit.createdByUserId}`.as("createdByUserId"),
          createdDate: sql<string>`${child.audit.createdDate}`.as("createdDate"),
          lastModifiedByUserId: sql<string>`${child.audit.lastModifiedByUserId}`.as("lastModifiedByUserId"),
          lastModifiedDate: sql<string>`${child.audit.lastModifiedDate}`.as("lastModifiedDate"),
        })
        .from(parent)
        .where(parentRow),
    )
    .returning();
  return [
    refuseWhen(db, WRITE_CONFLICT_GUARD, sql`${pathOf(child.accountId, child.parentId)} IS NULL`, "parent gone"),
    refuseWhen(db, FOLDER_TOO_DEEP_GUARD, sql`(SELECT depth FROM folders WHERE id = ${child.parentId}) + 1 > ${maxDepth}`),
    insert,
    ...(plan.copyInherited ? [copyInheritedAclStatement(db, child.accountId, child.id, child.parentId)] : []),
    ...(plan.grantCreator ? [seedCreatorStatement(db, child.accountId, child.id, child.ownerUserId)] : []),
  ] as const;
}

/** The folder's own ACL becomes a copy of the one its parent `parentId` hands down, as it is when the batch runs. */
export function copyInheritedAclStatement(db: Database, accountId: string, folderId: string, parentId: string) {
  return db
    .insert(folderAcl)
    .select(
      sql`SELECT ${folderId}, a.account_id, a.principal_type, a.principal_id, a.permission FROM folder_acl a
        WHERE a.folder_id = ${aclSourceOnPath(pathOf(accountId, parentId))}`,
    )
    .onConflictDoNothing();
}

export function clearAclStatement(db: Database, folderId: string) {
  return db.delete(folderAcl).where(eq(folderAcl.folderId, folderId));
}

/** Replaces the folder's own ACL: one parameter for all entries (json_each), whatever their number. */
export function replaceAclStatements(db: Database, accountId: string, folderId: string, entries: readonly AclEntry[]) {
  return [
    clearAclStatement(db, folderId),
    db.insert(folderAcl).select(
      sql`SELECT ${folderId}, ${accountId}, json_extract(value, '$.principalType'), json_extract(value, '$.principalId'), json_extract(value, '$.permission')
        FROM json_each(${JSON.stringify(entries)})`,
    ),
  ] as const;
}

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
  const { accountId, folderId, oldPath, oldDepth, newParentId, maxDepth } = move;
  const newParentPath = pathOf(accountId, newParentId);
  const newParentDepth = sql`(SELECT f.depth FROM folders f WHERE f.id = ${newParentId})`;
  const deepestInSubtree = sql`(SELECT max(depth) FROM folders WHERE account_id = ${accountId} AND ${inSubtree(oldPath)})`;
  const oldParentPathLength = oldPath.length - folderId.length - 1;
  return [
    refuseWhen(db, WRITE_CONFLICT_GUARD, sql`${pathOf(accountId, folderId)} IS NOT ${oldPath} OR ${newParentPath} IS NULL`, "moved meanwhile"),
    refuseWhen(db, FOLDER_CYCLE_GUARD, sql`substr(${newParentPath}, 1, ${oldPath.length}) = ${oldPath}`),
    refuseWhen(db, FOLDER_TOO_DEEP_GUARD, sql`${newParentDepth} + 1 + (${deepestInSubtree} - ${oldDepth}) > ${maxDepth}`),
    db
      .update(folders)
      .set({
        materializedPath: sql`${newParentPath} || substr(${folders.materializedPath}, ${oldParentPathLength + 1})`,
        depth: sql`${folders.depth} + (${newParentDepth} + 1 - ${oldDepth})`,
      })
      .where(and(eq(folders.accountId, accountId), inSubtree(oldPath))),
  ] as const;
}
