import { defineRoute, jsonBody, jsonContent } from "../../lib/openapi";
import { SuppressWarningsQuerySchema } from "../connections/connections.schemas";
import { DATA_STORE_ERRORS } from "../connections/data-store";
import { DataEntityDescribeRequestSchema, DataEntityFieldsSchema } from "./data-entities.schemas";

export const describe = defineRoute({
  method: "post",
  path: "/describe",
  tags: ["Sources"],
  summary: "A table of a connection as the native fields of a source: POST /api/sources takes them in `fields` as they are",
  // Metadata of the account's own connections: every user of the account (as for describing a schema).
  access: { kind: "accountMember" },
  problemLevels: ["ERROR", "WARNING"],
  errors: ["NOT_FOUND", "CONNECTION_TYPE_DISABLED", "CONNECTION_DISABLED", "CONNECTION_SECRETS_UNAVAILABLE", ...DATA_STORE_ERRORS],
  request: { query: SuppressWarningsQuerySchema, body: jsonBody(DataEntityDescribeRequestSchema) },
  responses: { 200: jsonContent(DataEntityFieldsSchema, "The table's columns as native field definitions") },
});
