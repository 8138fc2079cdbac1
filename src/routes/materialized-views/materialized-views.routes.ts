import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import {
  ListQuerySchema,
  MaterializedViewInputSchema,
  MaterializedViewListSchema,
  MaterializedViewPatchSchema,
  MaterializedViewSchema,
} from "./materialized-views.schemas";

const tags = ["Materialized views"];
// Views live inside an account: its users, by their permission on each view's source; never the supervisor.
const access = { kind: "accountMember" } as const;
const stability = "deprecated" as const;

/** The rule every write states: the permission is on a source, which the path does not name. */
const WRITE_RULE =
  "Needs WRITE on the definition's source (`definition.sourceId`: a source of the caller's account, else 400 naming it; without WRITE, 403).";

/** What a definition may be refused for, on the routes that take one. */
const DEFINITION_CHECKS =
  "The definition is checked against its source: TERMS, filter and metric fields must be fields of it, formulas valid aggregate-level expressions " +
  "over its fields and metrics, metric types must suit their fields and filter values their fields' types; each problem is a 400 naming the member " +
  "(`body.definition.metrics[0].formula`). The source's native fields must name one table (`origin.nativeOrigin.dataEntityId`, `schema.table`), " +
  "which the query reads; a source whose fields name none, or several, is a 400 naming `body.definition.sourceId`. " +
  "`storageSettings.targetStorage.connectionId` must be a connection of the account (400 otherwise).";

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "(deprecated since 23.1) List the materialized views of the sources the caller may READ",
  description: "By name, unpaged (an account holds at most 100 views). `sourceId`: only that source's views.",
  access,
  stability,
  request: { query: ListQuerySchema },
  responses: { 200: jsonContent(MaterializedViewListSchema, "The views") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "E19 (deprecated since 23.1) Create a materialized view",
  description: `${WRITE_RULE} ${DEFINITION_CHECKS} Answers 200 (as the spec fixes) with Location and ETag, the view's id, referencedSourceIds and definitionQuery.`,
  access,
  stability,
  errors: ["DUPLICATED", "TOO_MANY_MATERIALIZED_VIEWS"],
  request: { body: jsonBody(MaterializedViewInputSchema) },
  responses: {
    200: {
      ...jsonContent(MaterializedViewSchema, "The view was created"),
      headers: {
        Location: { description: "URL of the created view.", required: true, schema: { type: "string" } },
        ETag: { description: "Current entity tag of the view.", required: true, schema: { type: "string" } },
      },
    },
  },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "(deprecated since 23.1) Load a materialized view",
  description: "Needs READ on the view's source (403 without).",
  access,
  objectPermission: "source:READ",
  stability,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(MaterializedViewSchema, "The view") },
});

export const replace = defineRoute({
  method: "put",
  path: "/{id}",
  tags,
  summary: "(deprecated since 23.1) Replace a materialized view",
  description: `Needs WRITE on the view's source, and ${WRITE_RULE.replace("Needs ", "")} ${DEFINITION_CHECKS} The definitionQuery is generated anew. Never creates (an unknown id is 404).`,
  access,
  objectPermission: "source:WRITE",
  stability,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(MaterializedViewInputSchema) },
  responses: { 200: jsonContent(MaterializedViewSchema, "The view was replaced") },
});

export const patch = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "(deprecated since 23.1) Change a materialized view's name, description or enabled state",
  description: "Needs WRITE on the view's source (403 without).",
  access,
  objectPermission: "source:WRITE",
  stability,
  errors: ["NOT_FOUND", "DUPLICATED", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(MaterializedViewPatchSchema) },
  responses: { 200: jsonContent(MaterializedViewSchema, "The view was changed") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "(deprecated since 23.1) Delete a materialized view",
  description: "Needs WRITE on the view's source (403 without).",
  access,
  objectPermission: "source:WRITE",
  stability,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});
