import { z } from "@hono/zod-openapi";
import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import { SuppressWarningsQuerySchema } from "../connections/connections.schemas";
import { DATA_STORE_ERRORS } from "../connections/data-store";
import {
  PermissionListSchema,
  SourceCreateSchema,
  SourceIdParamSchema,
  SourceListQuerySchema,
  SourcePageSchema,
  SourcePatchSchema,
  SourceReplaceSchema,
  SourceSchema,
  SourceSecuritySchema,
} from "./sources.schemas";

const tags = ["Sources"];
const authenticated = { kind: "authenticated" } as const;
const params = SourceIdParamSchema;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the sources the caller may READ (paged, by name)",
  access: authenticated,
  errors: ["INVALID_PAGE_TOKEN"],
  request: { query: SourceListQuerySchema },
  responses: { 200: jsonContent(SourcePageSchema, "A page of sources") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a source (with its native fields, and the Volume metric)",
  description:
    "With the reference product's `storage` naming a table (`singleCollection`: connectionId, schema, collection) and no fields, the fields are read " +
    "from the table, as POST /api/sources/data-entities/describe answers them: the connection's data store is then reached, and can answer its errors.",
  access: { kind: "privilege", privilege: "ROLE_CREATE_SOURCES" },
  problemLevels: ["ERROR", "WARNING"],
  errors: ["DUPLICATED", "QUOTA_EXCEEDED", "CONNECTION_TYPE_DISABLED", "CONNECTION_DISABLED", "CONNECTION_SECRETS_UNAVAILABLE", ...DATA_STORE_ERRORS],
  request: { query: SuppressWarningsQuerySchema, body: jsonBody(SourceCreateSchema) },
  responses: { 201: jsonContent(SourceSchema, "The source was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{sourceId}",
  tags,
  summary: "Load a source (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params },
  responses: { 200: jsonContent(SourceSchema, "The source") },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{sourceId}",
  tags,
  summary: "Change a source's name, description or enabled state (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "DUPLICATED", "PRECONDITION_FAILED"],
  request: { params, body: jsonBody(SourcePatchSchema) },
  responses: { 200: jsonContent(SourceSchema, "The source was changed") },
});

export const replace = defineRoute({
  method: "put",
  path: "/{sourceId}",
  tags,
  summary: "Replace a source's own members: name, description, connection, features, enabled (WRITE)",
  description:
    "A full replace (the reference product's PUT, as its clients send it: what GET answered, changed). Its fields and metrics stay: they are " +
    "changed through their own endpoints. It never creates (a missing source is a 404). Removing TEXT_SEARCH while a field uses facetFiltering is a 400.",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "DUPLICATED", "PRECONDITION_FAILED", "ID_MISMATCH"],
  request: { params, body: jsonBody(SourceReplaceSchema) },
  responses: { 200: jsonContent(SourceSchema, "The source was replaced") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{sourceId}",
  tags,
  summary: "Delete a source with its fields, metrics and permissions (WRITE); refused (400) while materialized views use it",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params },
  responses: { 204: noContent },
});

export const getPermissions = defineRoute({
  method: "get",
  path: "/{sourceId}/permissions",
  tags,
  summary: "The source's READ/WRITE grants (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params },
  responses: { 200: jsonContent(PermissionListSchema, "The grants") },
});

export const putPermissions = defineRoute({
  method: "put",
  path: "/{sourceId}/permissions",
  tags,
  summary: "Replace the source's grants (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  // CONCURRENT_UPDATE: a user or group it names was deleted between its check and its write.
  errors: ["NOT_FOUND", "FORBIDDEN", "CONCURRENT_UPDATE"],
  request: { params, body: jsonBody(PermissionListSchema) },
  responses: { 200: jsonContent(PermissionListSchema, "The grants now in force") },
});

export const getSecurity = defineRoute({
  method: "get",
  path: "/{sourceId}/security",
  tags,
  summary: "E14 Read source security settings (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  stability: "experimental",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params },
  responses: { 200: jsonContent(SourceSecuritySchema, "The settings") },
});

export const putSecurity = defineRoute({
  method: "put",
  path: "/{sourceId}/security",
  tags,
  summary: "Change source security settings (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  stability: "experimental",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params, body: jsonBody(SourceSecuritySchema) },
  responses: { 200: jsonContent(SourceSecuritySchema, "The settings now in force") },
});

export const expressionSyntax = defineRoute({
  method: "get",
  path: "/{sourceId}/expression-syntax",
  tags: ["Custom metrics"],
  summary: "The expression language: every function with its arguments and return type (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params },
  responses: { 200: jsonContent(z.record(z.string(), z.unknown()).openapi("ExpressionSyntax"), "The catalogue") },
});
