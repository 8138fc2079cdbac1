import { expect } from "vitest";
import { as, call, type CallResult, type TestUser } from "./helpers";

/** Folder requests: every one carries the preview header unless a test says otherwise. */
export const PREVIEW = { "X-Enable-Preview": "true" };

export function folders(method: string, path: string, who: TestUser, body?: unknown, headers: Record<string, string> = {}): Promise<CallResult> {
  return call(method, path, { as: as(who), body, headers: { ...PREVIEW, ...headers } });
}

export interface FolderNode {
  id: string;
  name: string;
  parent_id: string | null;
  materialized_path: string;
  depth: number;
  child_count: number;
  item_count: number;
  project_id: string;
  content_type: string;
  inheritance_state: string;
  permission_inherited: boolean;
  permissions: string[];
  expanded: boolean;
  [member: string]: unknown;
}

/** Creates a folder (fails the test otherwise): a root when `parent` is omitted. */
export async function makeFolder(
  who: TestUser,
  name: string,
  parent?: string,
  extra: Record<string, unknown> = {},
): Promise<FolderNode> {
  const body = parent === undefined ? { folder_name: name, content_type: "DASHBOARDS", ...extra } : { folder_name: name, parent_id: parent, ...extra };
  const res = await folders("POST", "/api/folders", who, body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export type Grant = { principalType: "USER" | "GROUP"; principalId: string; permissions: string[] };

/** Replaces a folder's ACL (fails the test otherwise). */
export async function setAcl(who: TestUser, folderId: string, content: Grant[]): Promise<void> {
  const res = await folders("PUT", `/api/folders/${folderId}/permissions`, who, { content });
  expect(res.status, res.text).toBe(200);
}

export const toUser = (user: { id: string }, ...permissions: string[]): Grant => ({ principalType: "USER", principalId: user.id, permissions });
export const toGroup = (group: { id: string }, ...permissions: string[]): Grant => ({ principalType: "GROUP", principalId: group.id, permissions });

export const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));

/** Every page of a listing, following next_cursor. */
export async function allPages(who: TestUser, path: string, pageSize = 200): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await folders("GET", `${path}?page_size=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, who);
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.content);
    cursor = res.json.next_cursor;
  } while (cursor);
  return items;
}
