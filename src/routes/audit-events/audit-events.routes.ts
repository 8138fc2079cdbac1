import { z } from "@hono/zod-openapi";
import { defineRoute, jsonContent } from "../../lib/openapi";
import { AuditEventIdParamSchema, AuditEventListSchema, AuditEventQuerySchema, AuditEventSchema } from "./audit-events.schemas";

const tags = ["Audit events"];
// The account's administrators (Administrators hold ROLE_VIEW_AUDIT); the supervisor reads every account's.
const access = { kind: "privilege", privilege: "ROLE_VIEW_AUDIT" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "The audit trail, newest first (ROLE_VIEW_AUDIT); Accept: application/x-ndjson streams every matching event in the OCSF API Activity mapping",
  access,
  errors: ["INVALID_PAGE_TOKEN", "ACCOUNT_FORBIDDEN"],
  request: { query: AuditEventQuerySchema },
  responses: {
    200: {
      description: "A page of events; or, with Accept: application/x-ndjson, every matching event as one OCSF API Activity (class 6003) object per line",
      content: { ...jsonContent(AuditEventListSchema, "").content, "application/x-ndjson": { schema: z.string() } },
    },
  },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "One audit event (ROLE_VIEW_AUDIT); another account's is 404",
  access,
  errors: ["NOT_FOUND"],
  request: { params: AuditEventIdParamSchema },
  responses: { 200: jsonContent(AuditEventSchema, "The event") },
});
