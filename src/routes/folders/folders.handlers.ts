import { ROW_CHANGED, rowHasRevision } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { BatchItem } from "drizzle-orm/batch";
import { aliased } from "../../lib/aliases";
import { refusedBy, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import {
  accessFacts,
  folderCaller,
  indexFolders,
  placeInChain,
  readableChildren,
  readChain,
  readChains,
  requireReadable,
  selectChain,
  selectItemsPage,
  selectReadableChildren,
  selectReadableRoots,
  selectSubtreeDepth,
  toLoadedFolder,
  type FolderInChain,
  type FolderRow,
  type LoadedFolder,
} from "../../db/folder-access";
import {
  clearAclStatement,
  copyInheritedAclStatement,
  createChildStatements,
  createRootStatements,
  deleteFolderStatements,
  ensurePrivateRootStatement,
  folderUnchangedGuard,
  FOLDER_CYCLE_GUARD,
  FOLDER_TOO_DEEP_GUARD,
  moveStatements,
  replaceTreeStateStatements,
  updateFolderStatement,
} from "../../db/folder-writes";
import {
  aclAfterInheritanceChange,
  aclForNewFolder,
  aclPlanForNewFolder,
  inheritanceChangePlan,
  mayChangeFolderAcl,
  mayCreateRootFolders,
  mayDoOnFolder,
  mayReadFolder,
  moveRefusal,
  newFolderRefusal,
  resolveChild,
  rootFolderPath,
  visibleBreadcrumb,
  type InheritanceState,
  type MoveRefusal,
} from "../../domain/folders";
import type { UserPrincipal } from "../../domain/principal";
import { ApiError, forbidden, invalid, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { auditForCreate, auditForUpdate, locationOf, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { checkFolderIfMatch, folderEtag, openCursor, pageOf, toFolderNode } from "./folders.model";
import type * as routes from "./folders.routes";
import type { FolderCreateSchema } from "./folders.schemas";

/** The folder routes let account members only (access accountMember): the caller is a user. */
export const userOf = (c: Context<AppEnv>) => c.get("principal") as UserPrincipal;

const noSuchParent = () => invalid("body.parent_id", "No folder with this id that you may read");

const MOVE_REFUSALS: Record<MoveRefusal, () => ApiError> = {
  CYCLE: () => new ApiError("FOLDER_CYCLE", "A folder cannot move into itself or below itself", { problems: [parentProblem("Inside the moved folder's own subtree")] }),
  OTHER_PROJECT: () =>
    new ApiError("FOLDER_OTHER_PROJECT", "A folder stays in its project: the new parent must be in the same tree (a root cannot move)", {
      problems: [parentProblem("In another project")],
    }),
  TOO_DEEP: () => tooDeep("body.parent_id", "The moved subtree would sit deeper than the depth limit"),
};

function parentProblem(message: string): Problem {
  return { name: "body.parent_id", message, level: "ERROR" };
}

function tooDeep(member: string, message: string) {
  return new ApiError("FOLDER_TOO_DEEP", message, { problems: [{ name: member, message, level: "ERROR" }] });
}

/** A folder's type: CUSTOM or its library's own; private trees are the service's to make. */
function checkFolderType(folderType: string, contentType: string | null): void {
  if (folderType === "CUSTOM" || folderType === contentType) return;
  throw invalid(
    "body.folder_type",
    folderType === "PRIVATE"
      ? "Private folders are made by the service: each user's private root appears in its tree"
      : `A folder of the ${contentType ?? "untagged"} library is CUSTOM${contentType ? ` or ${contentType}` : ""}`,
  );
}

async function answerNode(c: Context<AppEnv>, placed: Placed) {
  const node = toFolderNode(placed);
  c.header("ETag", await folderEtag(placed.folder.row.revision, node));
  return node;
}

/** E2: the readable roots of one library, after making sure the caller's private root exists (one batch). */
export const tree: AppRouteHandler<typeof routes.tree> = async (c) => {
  const { content_type: contentType } = c.req.valid("query");
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const [, rows] = await db.batch([
    ensurePrivateRootStatement(db, { accountId: principal.accountId, userId: principal.id }, contentType, auditForCreate(principal)),
    selectReadableRoots(db, principal, contentType),
  ]);
  const roots = rows
    .map(toLoadedFolder)
    .map((folder) => ({ folder, resolved: resolveChild(null, accessFacts(folder), caller) }))
    .filter((root) => mayReadFolder(root.resolved.permissions));
  return c.json(roots.map(toFolderNode), 200);
};

type FolderCreate = Omit<z.infer<typeof FolderCreateSchema>, "folder_name" | "name"> & { folder_name: string };

/** `folder_name`, or its alias `name` (the representation's own name of it). */
function folderName(body: { folder_name?: string; name?: string }): string | undefined {
  return aliased({ name: "body.folder_name", value: body.folder_name }, { name: "body.name", value: body.name });
}
type Placed = { folder: LoadedFolder; resolved: FolderInChain["resolved"] };

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const { name: _alias, ...given } = c.req.valid("json");
  const folder_name = folderName(c.req.valid("json"));
  if (folder_name === undefined) throw invalid("body.folder_name", "Invalid input: expected string, received undefined");
  const body: FolderCreate = { ...given, folder_name };
  const made = body.parent_id ? await createChild(c, body, body.parent_id) : await createRoot(c, body);
  c.header("Location", locationOf(c, made.folder.row.id));
  return c.json(await answerNode(c, made), 201);
};

/** A root starts a project: ROLE_CREATE_FOLDERS, a library named; one batch. */
async function createRoot(c: Context<AppEnv>, body: FolderCreate): Promise<Placed> {
  const principal = userOf(c);
  if (!mayCreateRootFolders(principal.privileges)) throw forbidden("A root folder starts a project: creating one needs ROLE_CREATE_FOLDERS");
  if (!body.content_type) throw invalid("body.content_type", "A root folder needs a content_type: DASHBOARDS or REPORTS");
  checkFolderType(body.folder_type, body.content_type);
  const id = crypto.randomUUID();
  const db = c.get("db");
  c.get("audit").record({ accountId: principal.accountId, action: "folder.create", target: { type: "folder", id, name: body.folder_name } });
  const [inserted] = await db.batch(
    createRootStatements(db, {
      id,
      accountId: principal.accountId,
      projectId: crypto.randomUUID(),
      projectType: "LIBRARY_CUSTOM",
      parentId: null,
      name: body.folder_name,
      description: body.description ?? null,
      materializedPath: rootFolderPath(id),
      depth: 0,
      folderType: body.folder_type,
      contentType: body.content_type,
      visibility: "CUSTOM",
      inheritanceState: body.inheritance_state,
      ownerUserId: principal.id,
      revision: newRevision(),
      ...auditForCreate(principal),
    }),
  );
  const folder = newlyMade(inserted[0]!, aclForNewFolder({ creatorUserId: principal.id, isRoot: true, inheritanceState: body.inheritance_state, inheritedAcl: [] }));
  return { folder, resolved: resolveChild(null, accessFacts(folder), folderCaller(principal)) };
}

/** A child: CREATE on a parent the caller may read; its read, then one batch that re-checks the parent. */
async function createChild(c: Context<AppEnv>, body: FolderCreate, parentId: string): Promise<Placed> {
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const parent = placeInChain(await readChain(db, principal, parentId), parentId, caller);
  if (!parent || !mayReadFolder(parent.resolved.permissions)) throw noSuchParent();
  if (!mayDoOnFolder(parent.resolved.permissions, "createInside")) throw forbidden("Creating a folder here needs CREATE on the parent folder");
  const contentType = parent.folder.row.contentType;
  if (body.content_type !== undefined && body.content_type !== contentType) {
    throw invalid("body.content_type", `A subfolder belongs to its parent's library (${contentType ?? "untagged"})`);
  }
  checkFolderType(body.folder_type, contentType);
  const maxDepth = c.get("config").maxFolderDepth;
  const pastLimit = () => tooDeep("body.parent_id", `A folder may sit at most ${maxDepth} levels below its root`);
  if (newFolderRefusal(parent.folder.row.depth, maxDepth)) throw pastLimit();
  const child = {
    id: crypto.randomUUID(),
    accountId: principal.accountId,
    parentId,
    name: body.folder_name,
    description: body.description ?? null,
    folderType: body.folder_type,
    inheritanceState: body.inheritance_state,
    ownerUserId: principal.id,
    revision: newRevision(),
    audit: auditForCreate(principal),
  };
  let row: FolderRow;
  c.get("audit").record({ accountId: principal.accountId, action: "folder.create", target: { type: "folder", id: child.id, name: body.folder_name } });
  try {
    const plan = aclPlanForNewFolder({ isRoot: false, inheritanceState: body.inheritance_state });
    const [, , inserted] = await db.batch(createChildStatements(db, child, maxDepth, plan));
    row = inserted[0]!;
  } catch (err) {
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) throw noSuchParent();
    if (refusedBy(err, FOLDER_TOO_DEEP_GUARD)) throw pastLimit();
    throw err;
  }
  // The caller's entries on the new folder: the inherited ones it holds (already filtered to it) and its own.
  const callerAcl = aclForNewFolder({ creatorUserId: principal.id, isRoot: false, inheritanceState: body.inheritance_state, inheritedAcl: parent.resolved.forChildren.aclSourceEntries });
  const folder = newlyMade(row, callerAcl);
  return { folder, resolved: resolveChild(parent.resolved.forChildren, accessFacts(folder), caller) };
}

function newlyMade(row: FolderRow, callerAcl: LoadedFolder["callerAcl"]): LoadedFolder {
  return { row, callerAcl, childCount: 0, itemCount: 0, expanded: false };
}

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { id } = c.req.valid("param");
  const principal = userOf(c);
  const found = requireReadable(placeInChain(await readChain(c.get("db"), principal, id), id, folderCaller(principal)));
  return c.json(await answerNode(c, found), 200);
};

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const { id } = c.req.valid("param");
  const body = { ...c.req.valid("json"), folder_name: folderName(c.req.valid("json")) };
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const maxDepth = c.get("config").maxFolderDepth;

  const movingTo = body.parent_id;
  const [folderRows, parentRows, subtree] = await db.batch([
    selectChain(db, principal, id),
    // Only a move reads its new parent's chain and measures the moved subtree: empty reads otherwise.
    selectChain(db, principal, movingTo ?? null),
    selectSubtreeDepth(db, principal, movingTo === undefined ? null : id),
  ]);
  const found = requireReadable(placeInChain(folderRows, id, caller));
  const current = found.folder.row;
  checkFolderIfMatch(c, current.revision);
  const permissions = found.resolved.permissions;
  const isRoot = current.parentId === null;

  const edits = body.folder_name !== undefined || body.description !== undefined;
  if (edits && !mayDoOnFolder(permissions, "edit")) throw forbidden("Renaming or describing a folder needs WRITE on it");
  const from = current.inheritanceState as InheritanceState;
  const to = body.inheritance_state ?? from;
  if (to !== from && !mayChangeFolderAcl(permissions, principal.privileges)) {
    throw forbidden("Changing a folder's inheritance needs ADMINISTER on it or ROLE_PERMISSION_FOLDERS");
  }
  const newParent =
    movingTo !== undefined && movingTo !== current.parentId
      ? checkedNewParent(found, placeInChain(parentRows, movingTo, caller), subtree[0]?.depth ?? current.depth, maxDepth)
      : undefined;
  if (!edits && to === from && !newParent) return c.json(await answerNode(c, found), 200);

  // The parent after the change hands down the ACL an INHERIT folder uses: the new parent's, or the current one's.
  const parentAfter = newParent ?? (isRoot ? undefined : found.chain[found.chain.length - 2]);
  const aclPlan = inheritanceChangePlan({ isRoot, from, to });
  const revision = newRevision();
  c.get("audit").recordIf(rowHasRevision("folders", id, revision), {
    accountId: principal.accountId,
    action: "folder.update",
    target: { type: "folder", id, name: body.folder_name ?? current.name },
    changes: diffMembers(
      { folder_name: current.name, description: current.description, inheritance_state: from, parent_id: current.parentId },
      {
        folder_name: body.folder_name ?? current.name,
        description: body.description !== undefined ? body.description : current.description,
        inheritance_state: to,
        parent_id: newParent ? newParent.folder.row.id : current.parentId,
      },
    ),
  });
  const update = updateFolderStatement(db, id, {
    ...(body.folder_name !== undefined && { name: body.folder_name }),
    ...(body.description !== undefined && { description: body.description }),
    inheritanceState: to,
    ...(newParent && { parentId: newParent.folder.row.id }),
    revision,
    ...auditForUpdate(principal),
  });
  const statements: BatchItem<"sqlite">[] = [
    ...(c.req.header("If-Match") ? [folderUnchangedGuard(db, id, current.revision)] : []),
    ...(newParent
      ? moveStatements(db, { accountId: principal.accountId, folderId: id, oldPath: current.materializedPath, oldDepth: current.depth, newParentId: newParent.folder.row.id, maxDepth })
      : []),
    // After the move: the stored path and depth it answers are the new ones.
    update,
    ...(aclPlan === "KEEP_OWN" ? [] : [clearAclStatement(db, id)]),
    ...(aclPlan === "COPY_INHERITED" && parentAfter ? [copyInheritedAclStatement(db, principal.accountId, id, parentAfter.folder.row.id)] : []),
  ];
  let results: unknown[];
  try {
    results = await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) throw new ApiError("PRECONDITION_FAILED", "The folder was changed or moved concurrently; reload it and retry");
    if (refusedBy(err, FOLDER_CYCLE_GUARD)) throw MOVE_REFUSALS.CYCLE();
    if (refusedBy(err, FOLDER_TOO_DEEP_GUARD)) throw MOVE_REFUSALS.TOO_DEEP();
    throw err;
  }
  const updated = (results[statements.indexOf(update)] as FolderRow[])[0];
  if (!updated) throw notFound("Folder");
  const inherited = parentAfter?.resolved.forChildren;
  const callerAcl = aclAfterInheritanceChange({ isRoot, from, to, ownAcl: found.folder.callerAcl, inheritedAcl: inherited?.aclSourceEntries ?? [] });
  const folder = { ...found.folder, row: updated, callerAcl };
  return c.json(await answerNode(c, { folder, resolved: resolveChild(inherited ?? null, accessFacts(folder), caller) }), 200);
};

/** The new parent of a move, once the move is allowed: WRITE on the folder, CREATE there, and moveRefusal's rules. */
function checkedNewParent(moved: FolderInChain, newParent: FolderInChain | undefined, deepestInSubtree: number, maxDepth: number): FolderInChain {
  const folder = moved.folder.row;
  if (!mayDoOnFolder(moved.resolved.permissions, "moveFolder")) throw forbidden("Moving a folder needs WRITE on it");
  if (!newParent || !mayReadFolder(newParent.resolved.permissions)) throw noSuchParent();
  if (!mayDoOnFolder(newParent.resolved.permissions, "moveInto")) throw forbidden("Moving a folder here needs CREATE on the new parent");
  const target = newParent.folder.row;
  const refusal = moveRefusal(
    { id: folder.id, path: folder.materializedPath, projectId: folder.projectId, subtreeHeight: deepestInSubtree - folder.depth },
    { id: target.id, path: target.materializedPath, projectId: target.projectId },
    maxDepth,
  );
  if (refusal) throw MOVE_REFUSALS[refusal]();
  return newParent;
}

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const db = c.get("db");
  const principal = userOf(c);
  const found = requireReadable(placeInChain(await readChain(db, principal, id), id, folderCaller(principal)));
  checkFolderIfMatch(c, found.folder.row.revision);
  if (!mayDoOnFolder(found.resolved.permissions, "delete")) throw forbidden("Deleting a folder needs DELETE on it");
  const notEmpty = () => new ApiError("FOLDER_NOT_EMPTY", "The folder still holds subfolders or items: move or delete them first");
  if (found.folder.childCount > 0 || found.folder.itemCount > 0) throw notEmpty();
  c.get("audit").recordIf(ROW_CHANGED, { accountId: principal.accountId, action: "folder.delete", target: { type: "folder", id, name: found.folder.row.name } });
  try {
    const statements: BatchItem<"sqlite">[] = [
      ...(c.req.header("If-Match") ? [folderUnchangedGuard(db, id, found.folder.row.revision)] : []),
      // The foreign keys of subfolders and items refuse this if one arrived since the read.
      ...deleteFolderStatements(db, id),
    ];
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    if (isConstraintError(err, "FOREIGN KEY")) throw notEmpty();
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) throw new ApiError("PRECONDITION_FAILED", "The folder was changed concurrently; reload it and retry");
    throw err;
  }
  return c.body(null, 204);
};

/** Page tokens of a folder's listings are bound to the listing, the folder and the caller (pruning depends on who asks). */
const listingBinding = (list: string, principal: UserPrincipal, folderId: string) => ({
  list,
  account: principal.accountId,
  filters: { folder: folderId, caller: principal.id },
});

export const children: AppRouteHandler<typeof routes.children> = async (c) => {
  const { id } = c.req.valid("param");
  const { page_size: pageSize, cursor } = c.req.valid("query");
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const binding = listingBinding("folder-children", principal, id);
  const after = await openCursor(c, binding, cursor, 2);
  const [chainRows, childRows] = await db.batch([selectChain(db, principal, id), selectReadableChildren(db, principal, id, after, pageSize + 1)]);
  const parent = requireReadable(placeInChain(chainRows, id, caller));
  const page = await pageOf(c, binding, childRows, pageSize, (r) => [r.folder.name, r.folder.id], (rows) =>
    readableChildren(parent, rows, caller).map(toFolderNode),
  );
  return c.json(page, 200);
};

export const contents: AppRouteHandler<typeof routes.contents> = async (c) => {
  const { id } = c.req.valid("param");
  const { page_size: pageSize, cursor } = c.req.valid("query");
  const db = c.get("db");
  const principal = userOf(c);
  const binding = listingBinding("folder-contents", principal, id);
  const after = await openCursor(c, binding, cursor, 3);
  const [chainRows, itemRows] = await db.batch([selectChain(db, principal, id), selectItemsPage(db, principal, id, after, pageSize + 1)]);
  requireReadable(placeInChain(chainRows, id, folderCaller(principal)));
  const page = await pageOf(c, binding, itemRows, pageSize, (r) => [r.name, r.itemType, r.itemId], (rows) => rows.map(toFolderItem));
  return c.json(page, 200);
};

export function toFolderItem(row: { itemType: string; itemId: string; name: string; folderId: string; filedByUserId: string; filedDate: string }) {
  return {
    item_type: row.itemType as "DASHBOARD" | "REPORT",
    item_id: row.itemId,
    name: row.name,
    folder_id: row.folderId,
    filed_by_user_id: row.filedByUserId,
    filed_date: row.filedDate,
  };
}

export const path: AppRouteHandler<typeof routes.path> = async (c) => {
  const { id } = c.req.valid("param");
  const principal = userOf(c);
  const found = requireReadable(placeInChain(await readChain(c.get("db"), principal, id), id, folderCaller(principal)));
  const crumb = visibleBreadcrumb(found.chain.map((member) => ({ ...member, permissions: member.resolved.permissions })));
  return c.json({ content: crumb.entries.map(toFolderNode), truncated: crumb.truncated }, 200);
};

/** Replaces the caller's expanded set; every folder named must be one it may READ (else 400 naming it). */
export const putTreeState: AppRouteHandler<typeof routes.putTreeState> = async (c) => {
  const ids = [...new Set(c.req.valid("json").folder_ids)];
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const loaded = indexFolders(await readChains(db, principal, ids));
  const problems: Problem[] = c.req.valid("json").folder_ids.flatMap((folderId, i) => {
    const found = placeInChain(loaded, folderId, caller);
    return found && mayReadFolder(found.resolved.permissions) ? [] : [{ name: `body.folder_ids[${i}]`, message: "No folder with this id that you may read", level: "ERROR" as const }];
  });
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown folders", { problems });
  await db.batch(replaceTreeStateStatements(db, { accountId: principal.accountId, userId: principal.id }, ids));
  return c.json({ folder_ids: ids }, 200);
};
