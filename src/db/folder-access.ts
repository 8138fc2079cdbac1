import { asc, eq, isNull, sql, type Placeholder, type SQL } from "drizzle-orm";
import {
  chainInPathOrder,
  folderCallerOf,
  isPrivateFolder,
  mayReadFolder,
  resolveChain,
  resolveChildren,
  type AclEntry,
  type FolderAccessFacts,
  type FolderCaller,
  type InheritanceState,
  type ResolvedFolder,
} from "../domain/folders";
import type { UserPrincipal } from "../domain/principal";
import { notFound } from "../lib/errors";
import type { Database } from "./client";
import { compiled, compiledByKey, inBatch } from "./compiled";
import { folderAcl, folderItems, folders } from "./schema";
import { scoped, type QueryScope } from "./scope";

/**
 * Reading folders with the caller's permissions, each in ONE query whatever the depth: the rules
 * are src/domain/folders; this file loads their facts.
 *
 * - A chain (root .. folder) is loaded by the ids in the folder's materialized path: a recursive
 *   CTE splits the path string, so the lookup is by primary key, never a walk up parent_id in
 *   several round trips. Each member comes with only the ACL entries naming the caller or one of
 *   its groups (entries naming others cannot change the caller's permissions).
 * - Listings (the tree, children pages) are pruned by READ in SQL, so a page holds page_size
 *   readable folders: `readableFolder` mirrors the resolver for rows whose parent is known, and the
 *   resolver then checks every row again (a disagreement could only hide a row, never show one).
 *
 * Column references inside the raw subqueries are spelled "folders"."id": in a single-table
 * select Drizzle renders ${folders.id} as a bare "id", which a subquery would resolve against its
 * own table.
 *
 * Every read here is compiled once per isolate (db/compiled.ts): building their SQL was most of a
 * folder route's own CPU. The caller and its account are placeholders (callerValues), lists are
 * one JSON parameter, and a listing has one template for its first page and one for the next ones.
 */
export type FolderRow = typeof folders.$inferSelect;

/** A folder as loaded for an answer: its row, the caller's ACL entries on it, its counts and the caller's expanded flag. */
export interface LoadedFolder {
  row: FolderRow;
  /** Only the entries naming the caller or one of its groups. */
  callerAcl: AclEntry[];
  childCount: number;
  itemCount: number;
  expanded: boolean;
}

/** A folder with its ancestors, resolved for the caller. */
export interface FolderInChain {
  folder: LoadedFolder;
  resolved: ResolvedFolder;
  /** Root first, the folder itself last, each resolved. */
  chain: { folder: LoadedFolder; resolved: ResolvedFolder }[];
}

export function folderCaller(principal: UserPrincipal): FolderCaller {
  return folderCallerOf(principal.id, principal.groupIds, principal.privileges);
}

const placeholder = (name: string): Placeholder => sql.placeholder(name);

/** The caller's account, as the compiled reads name it (the folder routes admit users only: one account). */
const ACCOUNT = placeholder("accountId");
const ACCOUNT_SCOPE: QueryScope = { kind: "account", accountId: ACCOUNT };
/** The caller, as the compiled reads name it: its groups are one JSON array. */
const CALLER = { userId: placeholder("userId"), groupIds: placeholder("groupIds"), isFolderAdmin: placeholder("isFolderAdmin") };

/** The values of ACCOUNT and CALLER's placeholders for a request of `principal`. */
function callerValues(principal: UserPrincipal) {
  const caller = folderCaller(principal);
  return { accountId: principal.accountId, userId: caller.userId, groupIds: JSON.stringify(caller.groupIds), isFolderAdmin: caller.isFolderAdmin ? 1 : 0 };
}

/** SQL: the ACL row `alias` names the caller, directly or through one of its groups. */
function namesCaller(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`((${a}.principal_type = 'USER' AND ${a}.principal_id = ${CALLER.userId})
    OR (${a}.principal_type = 'GROUP' AND ${a}.principal_id IN (SELECT value FROM json_each(${CALLER.groupIds}))))`;
}

/** Every column an answer needs about a folder row of the outer query. */
const folderColumns = () => ({
  folder: folders,
  callerAcl: sql<string>`(SELECT json_group_array(json_object('principalType', a.principal_type, 'principalId', a.principal_id, 'permission', a.permission))
      FROM folder_acl a WHERE a.folder_id = "folders"."id" AND ${namesCaller("a")})`,
  childCount: sql<number>`(SELECT count(*) FROM folders c WHERE c.parent_id = "folders"."id")`,
  itemCount: sql<number>`(SELECT count(*) FROM folder_items i WHERE i.folder_id = "folders"."id")`,
  expanded: sql<number>`EXISTS (SELECT 1 FROM folder_tree_state s WHERE s.user_id = ${CALLER.userId} AND s.folder_id = "folders"."id")`,
});

type FolderColumnsRow = { folder: FolderRow; callerAcl: string; childCount: number; itemCount: number; expanded: number };

export function toLoadedFolder(row: FolderColumnsRow): LoadedFolder {
  return {
    row: row.folder,
    callerAcl: JSON.parse(row.callerAcl) as AclEntry[],
    childCount: Number(row.childCount),
    itemCount: Number(row.itemCount),
    expanded: Boolean(row.expanded),
  };
}

export function accessFacts(folder: LoadedFolder): FolderAccessFacts {
  return {
    id: folder.row.id,
    inheritanceState: folder.row.inheritanceState as InheritanceState,
    ownerId: folder.row.ownerUserId,
    isPrivate: isPrivateFolder(folder.row.folderType, folder.row.visibility),
    acl: folder.callerAcl,
  };
}

/**
 * SQL: the ids in the materialized paths that `paths` yields (a SELECT of one column named
 * `path`), root first per path: "/a/b/c/" gives a, b, c. Splits strings only; no table walk.
 */
function idsOnPaths(paths: SQL): SQL {
  return sql`WITH RECURSIVE split(rest, id) AS (
      SELECT substr(path, 2), NULL FROM (${paths})
      UNION ALL
      SELECT substr(rest, instr(rest, '/') + 1), substr(rest, 1, instr(rest, '/') - 1) FROM split WHERE rest <> ''
    ) SELECT id FROM split WHERE id IS NOT NULL`;
}

/** SQL: the materialized path of one folder of the account (NULL when there is none). */
export function pathOf(accountId: string | Placeholder, folderId: string | Placeholder): SQL {
  return sql`(SELECT f.materialized_path FROM folders f WHERE f.id = ${folderId} AND f.account_id = ${accountId})`;
}

/**
 * SQL: the id of the folder whose ACL an INHERIT child of the folder at `parentPath` uses: the
 * deepest member of that path that is a root or EXPLICIT (see resolveChild). Evaluated where it
 * runs, so a write that copies "the inherited ACL" copies it as it is inside its own batch.
 */
export function aclSourceOnPath(parentPath: SQL): SQL {
  return sql`(SELECT s.id FROM folders s WHERE s.id IN (${idsOnPaths(sql`SELECT ${parentPath} AS path`)})
    AND (s.parent_id IS NULL OR s.inheritance_state = 'EXPLICIT') ORDER BY s.depth DESC LIMIT 1)`;
}

/**
 * Every folder on the paths of the folders `targetIds` selects (an SQL list or SELECT of ids),
 * targets included, in the caller's account. One query.
 */
function chainsOf(db: Database, targetIds: SQL) {
  const paths = sql`SELECT t.materialized_path AS path FROM folders t WHERE t.account_id = ${ACCOUNT} AND t.id IN (${targetIds})`;
  return db
    .select(folderColumns())
    .from(folders)
    .where(scoped(folders.accountId, ACCOUNT_SCOPE, sql`"folders"."id" IN (${idsOnPaths(paths)})`));
}
const chainOfOne = compiled((db) => chainsOf(db, sql`${placeholder("folderId")}`));
const chainsOfList = compiled((db) => chainsOf(db, sql`SELECT value FROM json_each(${placeholder("folderIds")})`));
const chainOfFiling = compiled((db) =>
  chainsOf(db, sql`SELECT folder_id FROM folder_items WHERE account_id = ${ACCOUNT} AND item_type = ${placeholder("itemType")} AND item_id = ${placeholder("itemId")}`),
);

/** The chain of one folder (none for null). Batchable. */
export function selectChain(db: Database, principal: UserPrincipal, folderId: string | null) {
  return inBatch(chainOfOne(db), { ...callerValues(principal), folderId });
}

/** The chain of one folder, read on its own. */
export function readChain(db: Database, principal: UserPrincipal, folderId: string) {
  return chainOfOne(db).all({ ...callerValues(principal), folderId });
}

/** The chains of several folders, read on their own. */
export function readChains(db: Database, principal: UserPrincipal, folderIds: readonly string[]) {
  return chainsOfList(db).all({ ...callerValues(principal), folderIds: JSON.stringify(folderIds) });
}

/** The chain of the folder an item is filed in, if any. Batchable. */
export function selectChainOfFiling(db: Database, principal: UserPrincipal, itemType: string, itemId: string) {
  return inBatch(chainOfFiling(db), { ...callerValues(principal), itemType, itemId });
}

/** Loaded folders by id, for placing one or many folders in their chains. */
export type FolderIndex = ReadonlyMap<string, { id: string; folder: LoadedFolder }>;

export function indexFolders(rows: readonly FolderColumnsRow[]): FolderIndex {
  return new Map(rows.map(toLoadedFolder).map((folder) => [folder.row.id, { id: folder.row.id, folder }]));
}

/**
 * The folder `id` among loaded chain rows, with its chain resolved for the caller; undefined when
 * it is not there (another account's, missing) or its chain is incomplete (never resolved: a
 * missing member could be the ancestor whose ACL governs).
 */
export function placeInChain(loaded: FolderIndex | readonly FolderColumnsRow[], id: string, caller: FolderCaller): FolderInChain | undefined {
  const index = Array.isArray(loaded) ? indexFolders(loaded) : (loaded as FolderIndex);
  const folder = index.get(id)?.folder;
  if (!folder) return undefined;
  const members = chainInPathOrder(folder.row.materializedPath, index);
  if (!members) return undefined;
  const resolved = resolveChain(members.map((m) => accessFacts(m.folder)), caller);
  const chain = members.map((m, i) => ({ folder: m.folder, resolved: resolved[i]! }));
  return { folder, resolved: resolved[resolved.length - 1]!, chain };
}

/** The folder the caller may READ, or 404 exactly as for another account's or a missing one. */
export function requireReadable(found: FolderInChain | undefined): FolderInChain {
  if (!found || !mayReadFolder(found.resolved.permissions)) throw notFound("Folder");
  return found;
}

/**
 * SQL: the caller may READ the outer "folders" row, when its parent's ACL source is
 * `inheritedAclSource` (unused for roots). Mirrors resolveChild: private trees belong to their
 * owner alone (only the owner can create or move inside one, so every folder there is the
 * owner's); otherwise folder administrators, the folder's creator, and READ entries naming the
 * caller on the governing ACL.
 */
function readableFolder(inheritedAclSource: SQL | null): SQL {
  const governingAcl = sql`CASE WHEN "folders"."parent_id" IS NULL OR "folders"."inheritance_state" = 'EXPLICIT' THEN "folders"."id" ELSE ${inheritedAclSource ?? sql`NULL`} END`;
  return sql`(CASE WHEN "folders"."visibility" = 'PRIVATE' OR "folders"."folder_type" = 'PRIVATE' THEN "folders"."owner_user_id" = ${CALLER.userId}
    ELSE (${CALLER.isFolderAdmin} OR "folders"."owner_user_id" = ${CALLER.userId}
      OR EXISTS (SELECT 1 FROM folder_acl a WHERE a.folder_id = ${governingAcl} AND a.permission = 'READ' AND ${namesCaller("a")}))
    END)`;
}

const readableRoots = compiled((db) =>
  db
    .select(folderColumns())
    .from(folders)
    .where(scoped(folders.accountId, ACCOUNT_SCOPE, isNull(folders.parentId), eq(folders.contentType, placeholder("contentType")), readableFolder(null)))
    .orderBy(sql`"folders"."folder_type" = 'PRIVATE' DESC`, asc(folders.name), asc(folders.id)),
);

/** The caller's readable roots of one library, its private root first, then by name. Batchable. */
export function selectReadableRoots(db: Database, principal: UserPrincipal, contentType: string) {
  return inBatch(readableRoots(db), { ...callerValues(principal), contentType });
}

/** A keyset position in a listing ordered by several columns: the row a page starts after. */
export type ListPosition = readonly string[];

/** A listing's position as placeholders: after0, after1, ... (afterValues gives their values). */
const afterPlaceholders = (columns: number) => Array.from({ length: columns }, (_, i) => placeholder(`after${i}`));
const afterValues = (after: ListPosition | undefined) => Object.fromEntries((after ?? []).map((value, i) => [`after${i}`, value]));

// One template for a first page, one for the pages after a position.
const readableChildrenPage = compiledByKey((db, afterPosition: boolean) => {
  const parentId = placeholder("parentId");
  const [name, id] = afterPlaceholders(2);
  return db
    .select(folderColumns())
    .from(folders)
    .where(
      scoped(
        folders.accountId,
        ACCOUNT_SCOPE,
        eq(folders.parentId, parentId),
        readableFolder(aclSourceOnPath(pathOf(ACCOUNT, parentId))),
        afterPosition ? sql`("folders"."name", "folders"."id") > (${name}, ${id})` : undefined,
      ),
    )
    .orderBy(asc(folders.name), asc(folders.id))
    .limit(placeholder("limit"));
});

/** One page of the readable children of a folder, by (name, id), after `after`. Batchable. */
export function selectReadableChildren(db: Database, principal: UserPrincipal, parentId: string, after: ListPosition | undefined, limit: number) {
  return inBatch(readableChildrenPage(db, after !== undefined), { ...callerValues(principal), parentId, limit, ...afterValues(after) });
}

/** The children rows resolved from their parent's hand-down; only the readable ones (all of them, unless SQL and resolver disagree). */
export function readableChildren(parent: FolderInChain, rows: readonly FolderColumnsRow[], caller: FolderCaller) {
  const children = rows.map(toLoadedFolder);
  const resolved = resolveChildren(parent.resolved, children.map(accessFacts), caller);
  return children.map((folder, i) => ({ folder, resolved: resolved[i]! })).filter((c) => mayReadFolder(c.resolved.permissions));
}

const itemsPage = compiledByKey((db, afterPosition: boolean) => {
  const after = afterPlaceholders(3);
  return db
    .select()
    .from(folderItems)
    .where(
      scoped(
        folderItems.accountId,
        ACCOUNT_SCOPE,
        eq(folderItems.folderId, placeholder("folderId")),
        afterPosition ? sql`("folder_items"."name", "folder_items"."item_type", "folder_items"."item_id") > (${after[0]}, ${after[1]}, ${after[2]})` : undefined,
      ),
    )
    .orderBy(asc(folderItems.name), asc(folderItems.itemType), asc(folderItems.itemId))
    .limit(placeholder("limit"));
});

/** One page of the items filed in a folder, by (name, item_type, item_id), after `after`. Batchable. */
export function selectItemsPage(db: Database, principal: UserPrincipal, folderId: string, after: ListPosition | undefined, limit: number) {
  return inBatch(itemsPage(db, after !== undefined), { accountId: principal.accountId, folderId, limit, ...afterValues(after) });
}

const itemPlacement = compiled((db) =>
  db
    .select()
    .from(folderItems)
    .where(scoped(folderItems.accountId, ACCOUNT_SCOPE, eq(folderItems.itemType, placeholder("itemType")), eq(folderItems.itemId, placeholder("itemId")))),
);

/** The placement of one item, if it is filed anywhere in the caller's account. Batchable. */
export function selectItem(db: Database, principal: UserPrincipal, itemType: string, itemId: string) {
  return inBatch(itemPlacement(db), { accountId: principal.accountId, itemType, itemId });
}

const subtreeDepth = compiled((db) => {
  const path = pathOf(ACCOUNT, placeholder("folderId"));
  return db
    .select({ depth: sql<number | null>`max(${folders.depth})` })
    .from(folders)
    .where(
      scoped(
        folders.accountId,
        ACCOUNT_SCOPE,
        sql`"folders"."materialized_path" >= ${path} AND "folders"."materialized_path" < substr(${path}, 1, length(${path}) - 1) || '0'`,
      ),
    );
});

/** How deep the deepest folder of a folder's subtree sits (the folder's own depth for a leaf; null for no folder). Batchable. */
export function selectSubtreeDepth(db: Database, principal: UserPrincipal, folderId: string | null) {
  return inBatch(subtreeDepth(db), { accountId: principal.accountId, folderId });
}

/**
 * The ACL in force on a folder (its ACL source's: the deepest root or EXPLICIT folder of its own
 * path), without entries naming users or groups that no longer exist. Batchable.
 */
export function selectAclInForce(db: Database, principal: UserPrincipal, folderId: string) {
  return inBatch(aclInForce(db), { accountId: principal.accountId, folderId });
}
const aclInForce = compiled((db) =>
  db
    .select({ principalType: folderAcl.principalType, principalId: folderAcl.principalId, permission: folderAcl.permission })
    .from(folderAcl)
    .where(
      scoped(
        folderAcl.accountId,
        ACCOUNT_SCOPE,
        sql`"folder_acl"."folder_id" = ${aclSourceOnPath(pathOf(ACCOUNT, placeholder("folderId")))}`,
        sql`("folder_acl"."principal_type" = 'USER' AND EXISTS (SELECT 1 FROM users u WHERE u.id = "folder_acl"."principal_id" AND u.account_id = ${ACCOUNT})
          OR "folder_acl"."principal_type" = 'GROUP' AND EXISTS (SELECT 1 FROM groups g WHERE g.id = "folder_acl"."principal_id" AND g.account_id = ${ACCOUNT}))`,
      ),
    ),
);
