import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import {
  FolderAclSchema,
  FolderAclWriteSchema,
  FolderChildrenPageSchema,
  FolderContentsPageSchema,
  FolderCreateSchema,
  FolderIdParamSchema,
  FolderItemSchema,
  FolderNodeSchema,
  FolderPageQuerySchema,
  FolderPatchSchema,
  FolderPathSchema,
  FolderTreeSchema,
  ItemParamSchema,
  ItemWriteSchema,
  TreeQuerySchema,
  TreeStateSchema,
} from "./folders.schemas";

/**
 * The library folders (preview: every operation needs X-Enable-Preview: true). Any user of an
 * account may call them; what each may do on a folder is its effective permissions there
 * (src/domain/folders). A folder the caller may not READ answers 404, like another account's.
 */
const tags = ["Folders"];
const access = { kind: "accountMember" } as const;
const stability = "preview" as const;
const params = FolderIdParamSchema;

export const tree = defineRoute({
  method: "get",
  path: "/tree",
  tags,
  summary: "E2 The caller's root folders of one library, across every project of its account (its private root first)",
  access,
  stability,
  request: { query: TreeQuerySchema },
  responses: { 200: jsonContent(FolderTreeSchema, "The readable roots, each a FolderNode") },
});

export const putTreeState = defineRoute({
  method: "put",
  path: "/tree-state",
  tags,
  summary: "Set which folders the caller has expanded (replaces the caller's set)",
  access,
  stability,
  request: { body: jsonBody(TreeStateSchema) },
  responses: { 200: jsonContent(TreeStateSchema, "The caller's expanded folders now") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a folder: without parent_id a root, which starts a project (ROLE_CREATE_FOLDERS); else a child (CREATE on the parent)",
  access,
  stability,
  objectPermission: "folder:CREATE",
  errors: ["FORBIDDEN", "FOLDER_TOO_DEEP"],
  request: { body: jsonBody(FolderCreateSchema) },
  responses: { 201: jsonContent(FolderNodeSchema, "The folder was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a folder (READ)",
  access,
  stability,
  objectPermission: "folder:READ",
  errors: ["NOT_FOUND"],
  request: { params },
  responses: { 200: jsonContent(FolderNodeSchema, "The folder, with the caller's permissions") },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "Rename, describe (WRITE), move (WRITE, and CREATE on the new parent) or change the inheritance state (ADMINISTER or ROLE_PERMISSION_FOLDERS)",
  access,
  stability,
  objectPermission: "folder:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED", "FOLDER_CYCLE", "FOLDER_OTHER_PROJECT", "FOLDER_TOO_DEEP"],
  request: { params, body: jsonBody(FolderPatchSchema) },
  responses: { 200: jsonContent(FolderNodeSchema, "The folder as changed") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete an empty folder (DELETE)",
  access,
  stability,
  objectPermission: "folder:DELETE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED", "FOLDER_NOT_EMPTY"],
  request: { params },
  responses: { 204: noContent },
});

export const children = defineRoute({
  method: "get",
  path: "/{id}/children",
  tags,
  summary: "A page of the subfolders the caller may READ, by name (READ on the folder)",
  access,
  stability,
  objectPermission: "folder:READ",
  errors: ["NOT_FOUND", "INVALID_CURSOR"],
  request: { params, query: FolderPageQuerySchema },
  responses: { 200: jsonContent(FolderChildrenPageSchema, "A page of subfolders") },
});

export const contents = defineRoute({
  method: "get",
  path: "/{id}/contents",
  tags,
  summary: "A page of the dashboards or reports filed in the folder, by name (READ)",
  access,
  stability,
  objectPermission: "folder:READ",
  errors: ["NOT_FOUND", "INVALID_CURSOR"],
  request: { params, query: FolderPageQuerySchema },
  responses: { 200: jsonContent(FolderContentsPageSchema, "A page of items") },
});

export const path = defineRoute({
  method: "get",
  path: "/{id}/path",
  tags,
  summary: "The breadcrumb from the root to the folder, without the ancestors the caller may not READ (READ)",
  access,
  stability,
  objectPermission: "folder:READ",
  errors: ["NOT_FOUND"],
  request: { params },
  responses: { 200: jsonContent(FolderPathSchema, "The breadcrumb") },
});

export const getPermissions = defineRoute({
  method: "get",
  path: "/{id}/permissions",
  tags,
  summary: "The ACL in force on the folder (ADMINISTER or ROLE_PERMISSION_FOLDERS)",
  access,
  stability,
  objectPermission: "folder:ADMINISTER",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params },
  responses: { 200: jsonContent(FolderAclSchema, "The ACL") },
});

export const putPermissions = defineRoute({
  method: "put",
  path: "/{id}/permissions",
  tags,
  summary: "Replace the folder's own ACL; an inheriting folder becomes EXPLICIT (ADMINISTER or ROLE_PERMISSION_FOLDERS)",
  access,
  stability,
  objectPermission: "folder:ADMINISTER",
  // CONCURRENT_UPDATE: a user or group it names was deleted between its check and its write.
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED", "CONCURRENT_UPDATE"],
  request: { params, body: jsonBody(FolderAclWriteSchema) },
  responses: { 200: jsonContent(FolderAclSchema, "The ACL now in force") },
});

export const putItem = defineRoute({
  method: "put",
  path: "/{id}/items/{itemType}/{itemId}",
  tags,
  summary: "File a dashboard or report in the folder, moving it from wherever it was (WRITE here, and where it leaves)",
  access,
  stability,
  objectPermission: "folder:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: ItemParamSchema, body: jsonBody(ItemWriteSchema) },
  responses: {
    200: jsonContent(FolderItemSchema, "The item was already filed: now here, with this name"),
    201: jsonContent(FolderItemSchema, "The item was filed"),
  },
});

export const removeItem = defineRoute({
  method: "delete",
  path: "/{id}/items/{itemType}/{itemId}",
  tags,
  summary: "Take an item out of the folder (WRITE)",
  access,
  stability,
  objectPermission: "folder:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params: ItemParamSchema },
  responses: { 204: noContent },
});
