import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import { SourceIdParamSchema } from "../sources/sources.schemas";
import {
  FieldCreateSchema,
  FieldListQuerySchema,
  FieldPageSchema,
  FieldPatchSchema,
  FieldPathSchema,
  FieldPutPathSchema,
  FieldPutSchema,
  FieldSchema,
  ValidateExpressionSchema,
  ValidationResultSchema,
} from "./fields.schemas";

const tags = ["Source fields"];
const authenticated = { kind: "authenticated" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the source's fields (paged, by name; READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN", "INVALID_PAGE_TOKEN"],
  request: { params: SourceIdParamSchema, query: FieldListQuerySchema },
  responses: { 200: jsonContent(FieldPageSchema, "A page of fields") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a field (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "DUPLICATED"],
  request: { params: SourceIdParamSchema, body: jsonBody(FieldCreateSchema) },
  responses: { 201: jsonContent(FieldSchema, "The field was created") },
});

export const validate = defineRoute({
  method: "post",
  path: "/validate",
  tags,
  summary: "Check a derived field's expression: inferred dataType and referenced fields (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params: SourceIdParamSchema, body: jsonBody(ValidateExpressionSchema) },
  responses: { 200: jsonContent(ValidationResultSchema, "The outcome; an invalid expression is a 200 with valid=false") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{fieldName}",
  tags,
  summary: "E13 Read a source field (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params: FieldPathSchema },
  responses: { 200: jsonContent(FieldSchema, "The field was retrieved") },
});

export const put = defineRoute({
  method: "put",
  path: "/{fieldName}",
  tags,
  summary: "Create or replace a field (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "DUPLICATED", "PRECONDITION_FAILED"],
  request: { params: FieldPutPathSchema, body: jsonBody(FieldPutSchema) },
  responses: {
    200: jsonContent(FieldSchema, "The field was replaced"),
    201: jsonContent(FieldSchema, "The field was created"),
  },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{fieldName}",
  tags,
  summary: "Show or hide a field (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: FieldPathSchema, body: jsonBody(FieldPatchSchema) },
  responses: { 200: jsonContent(FieldSchema, "The field was changed") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{fieldName}",
  tags,
  summary: "Delete a field that nothing uses (WRITE)",
  access: authenticated,
  objectPermission: "source:WRITE",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: FieldPathSchema },
  responses: { 204: noContent },
});
