import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import { ValidateExpressionSchema, ValidationResultSchema } from "../source-fields/fields.schemas";
import { SourceIdParamSchema } from "../sources/sources.schemas";
import {
  CustomMetricCreateSchema,
  CustomMetricListQuerySchema,
  CustomMetricPageSchema,
  CustomMetricPatchSchema,
  CustomMetricSchema,
  CustomMetricWriteSchema,
  MetricPathSchema,
} from "./metrics.schemas";

const tags = ["Custom metrics"];
const authenticated = { kind: "authenticated" } as const;
// Writes need WRITE on the source, or READ plus ROLE_EDIT_FORMULAS; DUPLICATED is a 400 here, as E1 fixes.
const writeErrors = ["NOT_FOUND", "FORBIDDEN", "DUPLICATED", "PRECONDITION_FAILED"] as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the source's custom metrics (paged, by name; READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN", "INVALID_PAGE_TOKEN"],
  request: { params: SourceIdParamSchema, query: CustomMetricListQuerySchema },
  responses: { 200: jsonContent(CustomMetricPageSchema, "A page of custom metrics") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a custom metric",
  access: authenticated,
  objectPermission: "source:EDIT_METRICS",
  errors: [...writeErrors],
  duplicatedStatus: 400,
  request: { params: SourceIdParamSchema, body: jsonBody(CustomMetricCreateSchema) },
  responses: { 201: jsonContent(CustomMetricSchema, "The custom metric was created") },
});

export const validate = defineRoute({
  method: "post",
  path: "/validate",
  tags,
  summary: "Check a custom metric's expression: inferred dataType and referenced fields (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params: SourceIdParamSchema, body: jsonBody(ValidateExpressionSchema) },
  responses: { 200: jsonContent(ValidationResultSchema, "The outcome; an invalid expression is a 200 with valid=false") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{customMetricName}",
  tags,
  summary: "Load a custom metric (READ)",
  access: authenticated,
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN"],
  request: { params: MetricPathSchema },
  responses: { 200: jsonContent(CustomMetricSchema, "The custom metric") },
});

export const put = defineRoute({
  method: "put",
  path: "/{customMetricName}",
  tags,
  summary: "E1 Create or update a custom metric",
  description:
    "WRITE on the source, or READ plus ROLE_EDIT_FORMULAS. PUT replaces the whole metric: omitted members return to their defaults. " +
    "401 answers a ServletErrorMessage; 404 means the source was not found.",
  access: authenticated,
  objectPermission: "source:EDIT_METRICS",
  errors: [...writeErrors],
  duplicatedStatus: 400,
  request: { params: MetricPathSchema, body: jsonBody(CustomMetricWriteSchema) },
  responses: {
    200: jsonContent(CustomMetricSchema, "The custom metric was updated"),
    201: jsonContent(CustomMetricSchema, "The custom metric was created"),
  },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{customMetricName}",
  tags,
  summary: "Show or hide a custom metric",
  access: authenticated,
  objectPermission: "source:EDIT_METRICS",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: MetricPathSchema, body: jsonBody(CustomMetricPatchSchema) },
  responses: { 200: jsonContent(CustomMetricSchema, "The custom metric was changed") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{customMetricName}",
  tags,
  summary: "Delete a custom metric that no other metric uses",
  access: authenticated,
  objectPermission: "source:EDIT_METRICS",
  errors: ["NOT_FOUND", "FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: MetricPathSchema },
  responses: { 204: noContent },
});
