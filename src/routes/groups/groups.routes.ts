import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent , routeDeclaration } from "../../lib/openapi";
import { GroupListQuerySchema, GroupPageSchema, GroupSchema, GroupWriteSchema } from "./groups.schemas";

const tags = ["Groups"];
const access = { kind: "privilege", privilege: "ROLE_ADMINISTER_GROUPS" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the account's groups (paged, by name)",
  access,
  errors: ["INVALID_PAGE_TOKEN"],
  request: { query: GroupListQuerySchema },
  responses: { 200: jsonContent(GroupPageSchema, "A page of groups") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a group",
  access,
  errors: ["DUPLICATED", "ACCOUNT_FORBIDDEN", "PRIVILEGE_ESCALATION"],
  request: { body: jsonBody(GroupWriteSchema) },
  responses: { 201: jsonContent(GroupSchema, "The group was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a group",
  access,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(GroupSchema, "The group") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{id}",
  tags,
  summary: "Replace a group",
  access,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "PRIVILEGE_ESCALATION", "BUILT_IN_GROUP", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(GroupWriteSchema) },
  responses: { 200: jsonContent(GroupSchema, "The group was updated") },
});

export const update = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of a group", "GroupMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete a group (its members stay, without it; the grants naming it go)",
  access,
  errors: ["NOT_FOUND", "PRIVILEGE_ESCALATION", "BUILT_IN_GROUP", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});
