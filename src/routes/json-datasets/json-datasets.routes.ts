import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent , routeDeclaration } from "../../lib/openapi";
import type { BodyCap } from "../../middleware/request-body";
import {
  JsonDatasetCreateSchema,
  JsonDatasetListQuerySchema,
  JsonDatasetPageSchema,
  JsonDatasetSchema,
  JsonDatasetUpdateSchema,
} from "./json-datasets.schemas";

const tags = ["JSON datasets"];
/** Reading: any user of the account. The supervisor belongs to no account, so it has no datasets to read. */
const read = { kind: "accountMember" } as const;
/** Writing: whoever sets up where the account's data comes from (a dataset is data a connector reads as tables). */
const write = { kind: "privilege", privilege: "ROLE_MANAGE_CONNECTIONS" } as const;
/** A body is `data` (at most MAX_DATASET_BYTES) plus the other members, which MAX_BODY_BYTES bounds as on any route. */
const bodyCap: BodyCap = (config) => config.maxDatasetBytes + config.maxBodyBytes;
/** That cap with the default vars (5 MiB + 1 MiB), documented as `x-max-body-bytes`: clients and the conformance fuzz read it. */
const documentedBodyCap = { "x-max-body-bytes": 5_242_880 + 1_048_576 } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List the account's JSON datasets, without their data (paged, by name)",
  access: read,
  errors: ["INVALID_PAGE_TOKEN"],
  request: { query: JsonDatasetListQuerySchema },
  responses: { 200: jsonContent(JsonDatasetPageSchema, "A page of datasets") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a JSON dataset",
  access: write,
  bodyCap,
  ...documentedBodyCap,
  errors: ["DUPLICATED", "QUOTA_EXCEEDED", "DATASET_LIMIT", "ACCOUNT_FORBIDDEN"],
  request: { body: jsonBody(JsonDatasetCreateSchema) },
  responses: { 201: jsonContent(JsonDatasetSchema, "The dataset was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a JSON dataset with its data",
  access: read,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(JsonDatasetSchema, "The dataset") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{id}",
  tags,
  summary: "E5 Update a JSON dataset (omitted description or data: kept)",
  access: write,
  bodyCap,
  ...documentedBodyCap,
  errors: ["NOT_FOUND", "DUPLICATED", "QUOTA_EXCEEDED", "ID_MISMATCH", "ACCOUNT_FORBIDDEN", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(JsonDatasetUpdateSchema) },
  responses: { 200: jsonContent(JsonDatasetSchema, "The dataset was updated") },
});

export const update = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of a JSON dataset; data merges into the stored data (kept when omitted)", "JsonDatasetMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete a JSON dataset",
  access: write,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});
