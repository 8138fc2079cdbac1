import { ROW_CHANGED } from "../../db/audit-trail";
import { folderCaller, placeInChain, requireReadable, selectChain, selectChainOfFiling, selectItem, type FolderInChain } from "../../db/folder-access";
import { fileItem, takeOutItem } from "../../db/folder-writes";
import { mayDoOnFolder } from "../../domain/folders";
import { ApiError, forbidden, invalid, isConstraintError, notFound } from "../../lib/errors";
import { ownLocation } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import { toFolderItem, userOf } from "./folders.handlers";
import type * as routes from "./folders.routes";
import { ITEM_TYPE_OF_CONTENT } from "./folders.schemas";

/**
 * Where dashboards and reports are filed. The items are managed elsewhere; this keeps their
 * placement: one folder at a time per item, of the library matching its type. Filing or taking
 * out an item changes the folder's contents: WRITE there, and WRITE on the folder it leaves.
 */
function requireItemTypeOf(folder: FolderInChain, itemType: string): void {
  const expected = ITEM_TYPE_OF_CONTENT[folder.folder.row.contentType as keyof typeof ITEM_TYPE_OF_CONTENT];
  if (itemType !== expected) {
    throw invalid("path.itemType", expected ? `This folder holds ${expected} items` : "This folder holds no items");
  }
}

function requireContentsChange(folder: FolderInChain, message: string): void {
  if (!mayDoOnFolder(folder.resolved.permissions, "changeContents")) throw forbidden(message);
}

export const putItem: AppRouteHandler<typeof routes.putItem> = async (c) => {
  const { id, itemType, itemId } = c.req.valid("param");
  const { name } = c.req.valid("json");
  const db = c.get("db");
  const principal = userOf(c);
  const caller = folderCaller(principal);
  const [chainRows, itemRows, currentFolderRows] = await db.batch([
    selectChain(db, principal, id),
    selectItem(db, principal, itemType, itemId),
    selectChainOfFiling(db, principal, itemType, itemId),
  ]);
  const target = requireReadable(placeInChain(chainRows, id, caller));
  requireItemTypeOf(target, itemType);
  requireContentsChange(target, "Filing an item here needs WRITE on the folder");
  const existing = itemRows[0];
  if (existing && existing.folderId !== id) {
    const leaving = placeInChain(currentFolderRows, existing.folderId, caller);
    if (!leaving) throw forbidden("The item is filed in a folder you may not change: moving it needs WRITE there");
    requireContentsChange(leaving, "The item is filed in a folder you may not change: moving it needs WRITE there");
  }

  const placement = { folderId: id, name, filedByUserId: principal.id, filedDate: new Date().toISOString() };
  const folderTarget = { type: "folder" as const, id, name: target.folder.row.name };
  const member = `items.${itemType}/${itemId}`;
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: principal.accountId,
    action: "folder.update",
    target: folderTarget,
    changes: [{ member, before: existing ? { folderId: existing.folderId, name: existing.name } : null, after: { folderId: id, name } }],
  });
  let stored;
  try {
    // Only from the folder checked above: an item moved elsewhere meanwhile is not taken from there unchecked.
    [stored] = await fileItem(db, { accountId: principal.accountId, itemType, itemId, ...placement, fromFolderId: existing?.folderId ?? null });
  } catch (err) {
    if (isConstraintError(err, "FOREIGN KEY")) throw notFound("Folder");
    throw err;
  }
  if (!stored) throw new ApiError("PRECONDITION_FAILED", "The item was filed elsewhere at the same time; retry");
  if (existing) return c.json(toFolderItem(stored), 200);
  c.header("Location", ownLocation(c));
  return c.json(toFolderItem(stored), 201);
};

export const removeItem: AppRouteHandler<typeof routes.removeItem> = async (c) => {
  const { id, itemType, itemId } = c.req.valid("param");
  const db = c.get("db");
  const principal = userOf(c);
  const [chainRows, itemRows] = await db.batch([selectChain(db, principal, id), selectItem(db, principal, itemType, itemId)]);
  const folder = requireReadable(placeInChain(chainRows, id, folderCaller(principal)));
  requireContentsChange(folder, "Taking an item out needs WRITE on the folder");
  if (itemRows[0]?.folderId !== id) throw notFound("Item in this folder");
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: principal.accountId,
    action: "folder.update",
    target: { type: "folder", id, name: folder.folder.row.name },
    changes: [{ member: `items.${itemType}/${itemId}`, before: { folderId: id, name: itemRows[0].name }, after: null }],
  });
  await takeOutItem(db, { accountId: principal.accountId, itemType, itemId, folderId: id });
  return c.body(null, 204);
};
