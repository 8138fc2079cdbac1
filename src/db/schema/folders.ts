import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

/**
 * Library folders (src/routes/folders, rules in src/domain/folders): a tree per project, stored
 * as adjacency (parent_id) plus a materialized path of ids, "/<rootId>/.../<selfId>/", so that a
 * folder's ancestor chain is one indexed lookup by the ids in its path and a subtree is one
 * index range on the path.
 */
export const folders = sqliteTable(
  "folders",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** A root starts a project; every folder below it shares the root's project, for good. */
    projectId: text("project_id").notNull(),
    projectType: text("project_type").notNull(),
    // No cascade: a folder with children cannot be deleted (409 FOLDER_NOT_EMPTY), even by a racing writer.
    parentId: text("parent_id").references((): AnySQLiteColumn => folders.id),
    name: text("name").notNull(),
    description: text("description"),
    materializedPath: text("materialized_path").notNull(),
    depth: integer("depth").notNull(),
    folderType: text("folder_type").notNull(),
    contentType: text("content_type"),
    visibility: text("visibility").notNull(),
    inheritanceState: text("inheritance_state").notNull(),
    /** The creator: OWNER of the folder (and, for a private root, of its whole tree). */
    ownerUserId: text("owner_user_id").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    // Children pages: keyset on (name, id) under one parent.
    index("folders_parent_name").on(t.parentId, t.name, t.id),
    // Subtrees: an index range on the path (a move rewrites one, a depth check measures one). Ids are
    // unique, so paths are too. Not led by account_id on purpose: no index on account_id alone tempts
    // the planner to scan an account's folders where a chain is a few primary-key lookups.
    uniqueIndex("folders_path").on(t.materializedPath),
    // The tree (E2): an account's roots of one library.
    index("folders_roots").on(t.accountId, t.contentType, t.name).where(sql`parent_id IS NULL`),
    // One private root per user and library, even when two first reads race to make it.
    uniqueIndex("folders_private_root").on(t.accountId, t.ownerUserId, t.contentType).where(sql`folder_type = 'PRIVATE'`),
    check("folders_root_depth", sql`(${t.parentId} IS NULL) = (${t.depth} = 0) AND ${t.depth} >= 0`),
    check("folders_path_ends_with_id", sql`substr(${t.materializedPath}, -length(${t.id}) - 1) = ${t.id} || '/'`),
    check("folders_folder_type", sql`${t.folderType} IN ('CONNECTIONS','SOURCES','VISUALS','DASHBOARDS','REPORTS','PRIVATE','CUSTOM')`),
    check("folders_content_type", sql`${t.contentType} IS NULL OR ${t.contentType} IN ('DASHBOARDS','REPORTS')`),
    check("folders_visibility", sql`${t.visibility} IN ('PRIVATE','CUSTOM')`),
    check("folders_inheritance_state", sql`${t.inheritanceState} IN ('INHERIT','EXPLICIT')`),
    check("folders_project_type", sql`${t.projectType} IN ('DEFAULT','GLOBAL','CUSTOM','PERSONAL','LIBRARY_CUSTOM')`),
  ],
);

/** A folder's own ACL: one row per (principal, permission). Used when the folder is a root or EXPLICIT. */
export const folderAcl = sqliteTable(
  "folder_acl",
  {
    folderId: text("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    principalType: text("principal_type").notNull(),
    principalId: text("principal_id").notNull(),
    permission: text("permission").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.folderId, t.principalType, t.principalId, t.permission] }),
    index("folder_acl_principal").on(t.principalId),
    check("folder_acl_principal_type", sql`${t.principalType} IN ('USER','GROUP')`),
    check("folder_acl_permission", sql`${t.permission} IN ('READ','WRITE','CREATE','DELETE','ADMINISTER')`),
  ],
);

/**
 * Where dashboards and reports are filed. The items themselves live elsewhere; an item is in one
 * folder at a time (the primary key), and a folder holding items cannot be deleted (no cascade).
 */
export const folderItems = sqliteTable(
  "folder_items",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    itemType: text("item_type").notNull(),
    itemId: text("item_id").notNull(),
    folderId: text("folder_id")
      .notNull()
      .references(() => folders.id),
    name: text("name").notNull(),
    filedByUserId: text("filed_by_user_id").notNull(),
    filedDate: text("filed_date").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.itemType, t.itemId] }),
    // Contents pages: keyset on (name, item_type, item_id) in one folder.
    index("folder_items_folder_name").on(t.folderId, t.name, t.itemType, t.itemId),
    check("folder_items_item_type", sql`${t.itemType} IN ('DASHBOARD','REPORT')`),
  ],
);

/** Which folders each user has expanded (a UI preference: FolderNode.expanded). */
export const folderTreeState = sqliteTable(
  "folder_tree_state",
  {
    userId: text("user_id").notNull(),
    folderId: text("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.folderId] }), index("folder_tree_state_folder").on(t.folderId)],
);

/**
 * Guard tables of folder moves and creates (see db/batch-guards.ts): never hold a row; the batch
 * statement that inserts into one when the write must be refused fails the whole batch, and the
 * constraint's name says why.
 */
export const folderCycleGuard = sqliteTable("folder_cycle_guard", { reason: text("reason").notNull() }, () => [check("folder_cycle", sql`0`)]);
export const folderTooDeepGuard = sqliteTable("folder_too_deep_guard", { reason: text("reason").notNull() }, () => [
  check("folder_too_deep", sql`0`),
]);
