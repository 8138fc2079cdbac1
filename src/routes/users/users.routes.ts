import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent, routeDeclaration } from "../../lib/openapi";
import { UserCreateSchema, UserDeleteQuerySchema, UserListQuerySchema, UserPageSchema, UserSchema, UserUpdateSchema } from "./users.schemas";

const tags = ["Users"];
const access = { kind: "privilege", privilege: "ROLE_ADMINISTER_USERS" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the account's users (paged, by name)",
  access,
  errors: ["INVALID_PAGE_TOKEN"],
  request: { query: UserListQuerySchema },
  responses: { 200: jsonContent(UserPageSchema, "A page of users") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a user",
  access,
  errors: ["DUPLICATED", "ACCOUNT_FORBIDDEN", "PRIVILEGE_ESCALATION"],
  request: { body: jsonBody(UserCreateSchema) },
  responses: { 201: jsonContent(UserSchema, "The user was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a user",
  access,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(UserSchema, "The user") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{id}",
  tags,
  summary: "Replace a user (password kept when omitted)",
  access,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "ACCOUNT_FORBIDDEN", "PRIVILEGE_ESCALATION", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(UserUpdateSchema) },
  responses: { 200: jsonContent(UserSchema, "The user was updated") },
});

export const update = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of a user (password kept when omitted)", "UserMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete a user; what it owns (sources, folders) goes to the user `transferTo` names, else 409 listing it",
  access,
  errors: ["NOT_FOUND", "PRIVILEGE_ESCALATION", "CANNOT_DELETE_SELF", "PRECONDITION_FAILED", "USER_OWNS_OBJECTS", "CONCURRENT_UPDATE"],
  request: { params: IdParamSchema, query: UserDeleteQuerySchema },
  responses: { 204: noContent },
});
