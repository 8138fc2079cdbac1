import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent , routeDeclaration } from "../../lib/openapi";
import { AccountCreateSchema, AccountListSchema, AccountMoveResultSchema, AccountMoveSchema, AccountNameParamSchema, AccountSchema, AccountWriteSchema } from "./accounts.schemas";

const tags = ["Accounts"];
const supervisor = { kind: "supervisor" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List accounts",
  access: supervisor,
  responses: { 200: jsonContent(AccountListSchema, "Every account") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create an account with its Administrators and Users groups",
  access: supervisor,
  errors: ["DUPLICATED"],
  request: { body: jsonBody(AccountCreateSchema) },
  responses: { 201: jsonContent(AccountSchema, "The account was created") },
});

export const getByName = defineRoute({
  method: "get",
  path: "/name/{name}",
  tags,
  summary: "E10 Load an account by name",
  access: supervisor,
  errors: ["NOT_FOUND"],
  request: { params: AccountNameParamSchema },
  responses: { 200: jsonContent(AccountSchema, "The account") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load an account",
  access: supervisor,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(AccountSchema, "The account") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{id}",
  tags,
  summary: "Update an account",
  access: supervisor,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "DEFAULT_ACCOUNT_PROTECTED", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(AccountWriteSchema) },
  responses: { 200: jsonContent(AccountSchema, "The account was updated") },
});

export const update = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of an account (secured attribute values kept when omitted)", "AccountMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "E11 Delete an account and everything it owns",
  access: supervisor,
  errors: ["NOT_FOUND", "DEFAULT_ACCOUNT_PROTECTED", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});

export const move = defineRoute({
  method: "post",
  path: "/{id}/move",
  tags,
  summary: "Move an account's rows to another database (shard)",
  description:
    "Copies the account's rows to the shard named, checks each table's row count and digest on both, switches the directory to it " +
    "and deletes the old rows. Meanwhile the account's reads go on and its writes are refused (409 `ACCOUNT_MOVING`). A move that fails " +
    "or whose Worker dies leaves the account whole where it was; sending the request again resumes it. Moving an account to the shard it " +
    "is on changes nothing (docs/sharding.md).",
  access: supervisor,
  errors: ["NOT_FOUND", "CONCURRENT_UPDATE"],
  request: { params: IdParamSchema, body: jsonBody(AccountMoveSchema) },
  responses: { 200: jsonContent(AccountMoveResultSchema, "The account is on the shard named") },
});
