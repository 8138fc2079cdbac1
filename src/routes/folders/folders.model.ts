import type { Context } from "hono";
import type { LoadedFolder, ListPosition } from "../../db/folder-access";
import type { ResolvedFolder } from "../../domain/folders";
import type { PageBinding } from "../../domain/page-token";
import { ApiError } from "../../lib/errors";
import { auditOut } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import type { FolderNodeSchema } from "./folders.schemas";
import type { z } from "@hono/zod-openapi";
import { toHex } from "../../domain/bytes";

export type FolderNode = z.infer<typeof FolderNodeSchema>;

/** A loaded folder, resolved for the caller, as the API shows it. */
export function toFolderNode({ folder, resolved }: { folder: LoadedFolder; resolved: ResolvedFolder }): FolderNode {
  const row = folder.row;
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    parent_id: row.parentId ?? null,
    materialized_path: row.materializedPath,
    depth: row.depth,
    child_count: folder.childCount,
    item_count: folder.itemCount,
    folder_type: row.folderType as FolderNode["folder_type"],
    content_type: (row.contentType ?? null) as FolderNode["content_type"],
    project_id: row.projectId,
    visibility: row.visibility as FolderNode["visibility"],
    inheritance_state: row.inheritanceState as FolderNode["inheritance_state"],
    project_type: row.projectType as FolderNode["project_type"],
    permission_inherited: resolved.inherited,
    permissions: resolved.permissions,
    expanded: folder.expanded,
    ...auditOut(row),
  };
}

/**
 * A folder's ETag: its revision (what If-Match compares: the folder's own state, which every
 * write to it replaces) and a digest of the representation (what If-None-Match compares: counts,
 * path, permissions and the expanded flag change without the folder being written).
 */
export async function folderEtag(revision: string, node: FolderNode): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(node));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `"${revision}.${toHex(hash, 8)}"`;
}

/** 412 unless If-Match is absent, `*`, or names an ETag of this revision (strong comparison: a W/ tag never matches). */
export function checkFolderIfMatch(c: Context<AppEnv>, revision: string): void {
  const header = c.req.header("If-Match");
  if (!header || header.trim() === "*") return;
  const revisions = header.split(",").map((tag) => /^"([^".]*)(?:\.[^"]*)?"$/.exec(tag.trim())?.[1]);
  if (!revisions.includes(revision)) {
    throw new ApiError("PRECONDITION_FAILED", `If-Match ${header} does not match the folder's current ETag`);
  }
}

/** Cursors are page tokens (domain/page-token.ts) sealing a keyset position, bound to the listing, the folder and the caller. */
export async function openCursor(c: Context<AppEnv>, binding: PageBinding, cursor: string | undefined, columns: number): Promise<ListPosition | undefined> {
  if (cursor === undefined) return undefined;
  const opened = await c.get("config").pageTokens.decode(cursor, binding);
  const position = opened ? (JSON.parse(opened.key) as unknown) : undefined;
  if (!Array.isArray(position) || position.length !== columns || !position.every((v) => typeof v === "string")) {
    throw new ApiError("INVALID_CURSOR", "cursor is not a live cursor of this listing", {
      problems: [{ name: "query.cursor", message: "Unknown, altered, expired, or issued for another folder, listing or caller", level: "ERROR" }],
    });
  }
  return position as string[];
}

export function sealCursor(c: Context<AppEnv>, binding: PageBinding, position: ListPosition): Promise<string> {
  return c.get("config").pageTokens.encode({ direction: "next", key: JSON.stringify(position) }, binding);
}

/** A page of `rows` read with limit page_size + 1: the rows to show and the next cursor (null on the last page). */
export async function pageOf<Row, Shown>(
  c: Context<AppEnv>,
  binding: PageBinding,
  rows: readonly Row[],
  pageSize: number,
  positionOf: (row: Row) => ListPosition,
  show: (rows: Row[]) => Shown[],
): Promise<{ content: Shown[]; next_cursor: string | null }> {
  const onPage = rows.slice(0, pageSize);
  const next = rows.length > pageSize ? await sealCursor(c, binding, positionOf(onPage[onPage.length - 1]!)) : null;
  return { content: show(onPage), next_cursor: next };
}
