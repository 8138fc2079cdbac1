import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, jsonBody, jsonContent, noContent , routeDeclaration } from "../../lib/openapi";
import {
  CONNECTION_WRITE_EXAMPLE,
  ConnectionIdParamSchema,
  ConnectionListQuerySchema,
  ConnectionListSchema,
  ConnectionSchema,
  ConnectionWriteQuerySchema,
  ConnectionWriteSchema,
  PreviewRequestSchema,
  PreviewSchema,
  SchemaDescriptionSchema,
  SchemaListSchema,
  SchemaNameParamSchema,
  SuppressWarningsQuerySchema,
  ValidationResultSchema,
} from "./connections.schemas";
import { DATA_STORE_ERRORS } from "./data-store";

const tags = ["Connections"];
// Connections live inside an account: every user of it reads them (the supervisor, a member of none, does not).
const member = { kind: "accountMember" } as const;
const manager = { kind: "privilege", privilege: "ROLE_MANAGE_CONNECTIONS" } as const;
const bothLevels = ["ERROR", "WARNING"] as const;
// What a write or validation can answer about its connection type and its secrets.
const TYPE_ERRORS = ["CONNECTION_TYPE_DISABLED", "CONNECTION_SECRETS_UNAVAILABLE", "ACCOUNT_FORBIDDEN"] as const;
// What a route reaching the data store of a stored connection can answer.
const STORE_ERRORS = ["NOT_FOUND", "CONNECTION_TYPE_DISABLED", "CONNECTION_DISABLED", "CONNECTION_SECRETS_UNAVAILABLE", ...DATA_STORE_ERRORS] as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the account's connections, by name",
  access: member,
  request: { query: ConnectionListQuerySchema },
  responses: { 200: jsonContent(ConnectionListSchema, "The connections") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a connection (ROLE_MANAGE_CONNECTIONS)",
  access: manager,
  problemLevels: bothLevels,
  errors: ["DUPLICATED", "QUOTA_EXCEEDED", "PRECONDITION_FAILED", ...TYPE_ERRORS],
  request: { query: ConnectionWriteQuerySchema, body: jsonBody(ConnectionWriteSchema, undefined, CONNECTION_WRITE_EXAMPLE) },
  responses: { 201: jsonContent(ConnectionSchema, "The connection was created") },
});

export const validate = defineRoute({
  method: "post",
  path: "/validate",
  tags,
  summary: "E7 Validate a connection: check it like a write, then really connect (ROLE_MANAGE_CONNECTIONS)",
  description:
    "A connection that cannot connect (a wrong password, an unreachable host, a time-out) is a 200 with `connected: false` and a message saying why. Invalid parameters are a 400 (rule 5: problems, WARNINGs dropped with suppressWarnings=true).",
  access: manager,
  problemLevels: bothLevels,
  errors: [...TYPE_ERRORS],
  request: { query: ConnectionWriteQuerySchema, body: jsonBody(ConnectionWriteSchema, undefined, CONNECTION_WRITE_EXAMPLE) },
  responses: { 200: jsonContent(ValidationResultSchema, "What connecting gave") },
});

export const test = defineRoute({
  method: "post",
  path: "/{connectionId}/test",
  tags,
  summary: "Test a stored connection: really connect with its stored parameters (ROLE_MANAGE_CONNECTIONS)",
  description:
    "The path the reference product's clients call (isw-da/composer-mcp test_connection); any body is ignored. As E7: a connection that cannot " +
    "connect is a 200 with `connected: false` and why; stored parameters that no longer pass the checks (a host now refused) are a 400.",
  access: manager,
  problemLevels: bothLevels,
  errors: ["NOT_FOUND", "CONNECTION_TYPE_DISABLED", "CONNECTION_DISABLED", "CONNECTION_SECRETS_UNAVAILABLE"],
  request: { params: ConnectionIdParamSchema, query: SuppressWarningsQuerySchema },
  responses: { 200: jsonContent(ValidationResultSchema, "What connecting gave") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{connectionId}",
  tags,
  summary: "Load a connection (secret values left out)",
  access: member,
  errors: ["NOT_FOUND"],
  request: { params: ConnectionIdParamSchema },
  responses: { 200: jsonContent(ConnectionSchema, "The connection") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{connectionId}",
  tags,
  summary: "E6 Create (201) or replace (200) the connection with this id (ROLE_MANAGE_CONNECTIONS)",
  access: manager,
  problemLevels: bothLevels,
  errors: ["ID_MISMATCH", "DUPLICATED", "QUOTA_EXCEEDED", "PRECONDITION_FAILED", ...TYPE_ERRORS],
  request: { params: ConnectionIdParamSchema, query: ConnectionWriteQuerySchema, body: jsonBody(ConnectionWriteSchema) },
  responses: {
    200: jsonContent(ConnectionSchema, "The connection was replaced"),
    201: jsonContent(ConnectionSchema, "The connection was created"),
  },
});

export const upsert = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of a connection (ROLE_MANAGE_CONNECTIONS); secret parameter values kept when omitted", "ConnectionMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{connectionId}",
  tags,
  summary: "Delete a connection (ROLE_MANAGE_CONNECTIONS); refused while sources or materialized views use it",
  access: manager,
  errors: ["NOT_FOUND", "CONNECTION_IN_USE", "PRECONDITION_FAILED"],
  request: { params: ConnectionIdParamSchema },
  responses: { 204: noContent },
});

export const schemas = defineRoute({
  method: "get",
  path: "/{connectionId}/schema",
  tags,
  summary: "E15 List the schemas of the connection's data store",
  access: member,
  problemLevels: bothLevels,
  errors: [...STORE_ERRORS],
  request: { params: ConnectionIdParamSchema, query: SuppressWarningsQuerySchema },
  responses: { 200: jsonContent(SchemaListSchema, "The schema names") },
});

export const describe = defineRoute({
  method: "get",
  path: "/{connectionId}/schema/{schemaName}/describe",
  tags,
  summary: "The tables and views of a schema, with their columns and native types",
  access: member,
  problemLevels: bothLevels,
  errors: [...STORE_ERRORS],
  request: { params: SchemaNameParamSchema, query: SuppressWarningsQuerySchema },
  responses: { 200: jsonContent(SchemaDescriptionSchema, "The schema's tables") },
});

export const preview = defineRoute({
  method: "post",
  path: "/{connectionId}/preview",
  tags,
  summary: "The first rows of a table (at most 1000); ROLE_MANAGE_CONNECTIONS, since they are the store's data",
  access: manager,
  problemLevels: bothLevels,
  errors: [...STORE_ERRORS],
  request: { params: ConnectionIdParamSchema, query: SuppressWarningsQuerySchema, body: jsonBody(PreviewRequestSchema) },
  responses: { 200: jsonContent(PreviewSchema, "The columns and rows") },
});
