import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import { AccountIdParamSchema, QuotaSchema, QuotaWriteSchema } from "./quotas.schemas";

const tags = ["Quotas"];
const supervisor = { kind: "supervisor" } as const;

export const getOne = defineRoute({
  method: "get",
  path: "/{accountId}",
  tags,
  summary: "E17 Load an account's quota with live consumption",
  access: { kind: "accountAdmin" },
  errors: ["NOT_FOUND"],
  request: { params: AccountIdParamSchema },
  responses: { 200: jsonContent(QuotaSchema, "The quota") },
});

export const upsert = defineRoute({
  method: "put",
  path: "/",
  tags,
  summary: "Create or replace an account's quota",
  access: supervisor,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { body: jsonBody(QuotaWriteSchema) },
  responses: {
    200: jsonContent(QuotaSchema, "The quota was replaced"),
    201: jsonContent(QuotaSchema, "The quota was created"),
  },
});

export const refresh = defineRoute({
  method: "patch",
  path: "/refresh/{accountId}",
  tags,
  summary: "Recompute an account's quota consumption",
  access: supervisor,
  errors: ["NOT_FOUND"],
  request: { params: AccountIdParamSchema },
  responses: { 200: jsonContent(QuotaSchema, "The quota with freshly computed consumption") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{accountId}",
  tags,
  summary: "E18 Delete an account's quota (no limits afterwards)",
  access: supervisor,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: AccountIdParamSchema },
  responses: { 204: noContent },
});
