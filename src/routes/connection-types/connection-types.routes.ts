import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import {
  AccountIdListSchema,
  ConnectionTypeListQuerySchema,
  ConnectionTypeListSchema,
  ConnectionTypePatchSchema,
  ConnectionTypeSchema,
  ConnectionTypeWriteSchema,
} from "./connection-types.schemas";

const tags = ["Connection types"];
const supervisor = { kind: "supervisor" } as const;
// Any signed-in caller reads the types its account may use; the supervisor reads all.
const reader = { kind: "authenticated" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the connection types the caller's account may use (the supervisor: all), by name",
  access: reader,
  request: { query: ConnectionTypeListQuerySchema },
  responses: { 200: jsonContent(ConnectionTypeListSchema, "The connection types") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a connection type (supervisor)",
  access: supervisor,
  errors: ["DUPLICATED"],
  request: { body: jsonBody(ConnectionTypeWriteSchema) },
  responses: { 201: jsonContent(ConnectionTypeSchema, "The connection type was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a connection type (one the caller's account may use; the supervisor: any)",
  access: reader,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(ConnectionTypeSchema, "The connection type") },
});

export const update = defineRoute({
  method: "put",
  path: "/{id}",
  tags,
  summary: "E3 Update a connection type (supervisor; replaces it)",
  access: supervisor,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(ConnectionTypeWriteSchema) },
  responses: { 200: jsonContent(ConnectionTypeSchema, "The connection type was updated") },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "Change some members of a connection type, e.g. enabled and disabledMessage (supervisor)",
  access: supervisor,
  errors: ["NOT_FOUND", "DUPLICATED", "PRECONDITION_FAILED", "CONCURRENT_UPDATE"],
  request: { params: IdParamSchema, body: jsonBody(ConnectionTypePatchSchema) },
  responses: { 200: jsonContent(ConnectionTypeSchema, "The connection type was changed") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "E4 Delete a connection type (supervisor); refused while connections use it",
  access: supervisor,
  errors: ["NOT_FOUND", "CONNECTION_TYPE_IN_USE", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});

export const getAccounts = defineRoute({
  method: "get",
  path: "/{id}/accounts",
  tags,
  summary: "The accounts that may use the type; empty: every account (supervisor)",
  access: supervisor,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(AccountIdListSchema, "The account ids") },
});

export const putAccounts = defineRoute({
  method: "put",
  path: "/{id}/accounts",
  tags,
  summary: "Replace the accounts that may use the type; empty: every account (supervisor)",
  access: supervisor,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema, body: jsonBody(AccountIdListSchema) },
  responses: { 200: jsonContent(AccountIdListSchema, "The account ids now in force") },
});
