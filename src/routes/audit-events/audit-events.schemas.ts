import { z } from "@hono/zod-openapi";
import { AUDIT_TARGET_TYPES } from "../../domain/audit/event";
import { pagedList, PageQuerySchema } from "../../lib/openapi";

const isoTime = z.iso.datetime({ offset: true }).openapi({ description: "ISO 8601 date-time", example: "2026-11-25T00:00:00Z" });

export const AuditEventQuerySchema = PageQuerySchema.extend({
  maxResults: z.coerce.number().int().min(1).max(200).default(100).openapi({ description: "Page size, 1 to 200 (default 100)." }),
  accountId: z.string().min(1).max(64).optional().openapi({ description: "The supervisor: only this account's events. A user may name only its own account." }),
  actor: z.string().min(1).max(256).optional().openapi({ description: "The actor's id or name." }),
  action: z
    .string()
    .regex(/^[a-z-]+(\.[a-z-]+|\.\*)$/, "An action (`source.create`) or a prefix ending in `.*` (`source.*`)")
    .optional()
    .openapi({ description: "An exact action, or a prefix ending in `.*` such as `source.*`." }),
  targetType: z.enum(AUDIT_TARGET_TYPES).optional(),
  targetId: z.string().min(1).max(256).optional(),
  since: isoTime.optional().openapi({ description: "Events at or after this time." }),
  until: isoTime.optional().openapi({ description: "Events before this time." }),
  requestId: z.string().min(1).max(128).optional().openapi({ description: "The events of one request (its X-Request-Id)." }),
});
export type AuditEventQuery = z.infer<typeof AuditEventQuerySchema>;

export const AuditEventIdParamSchema = z.object({
  // Any id as the other resources take them: one of no event (malformed included) is a 404, as another account's.
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, description: "An audit event id: 26 characters of Crockford base32", example: "01JDA7Q5N0XZ5M8W4Y9F3R2T1K" }),
});

const ChangeSchema = z
  .object({
    member: z.string(),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
    changed: z.literal(true).optional().openapi({ description: "A secret member: it changed; its value is never recorded." }),
  })
  .openapi("AuditChange");

export const AuditEventSchema = z
  .object({
    id: z.string().openapi({ description: "Sortable by time (ULID layout)." }),
    time: z.string().openapi({ format: "date-time" }),
    accountId: z.string().nullable().openapi({ description: "null for changes outside any account (connection types, trusted-access clients)." }),
    actor: z.object({
      type: z.enum(["USER", "SUPERVISOR", "TRUSTED_CLIENT", "SYSTEM"]).openapi({ description: "SYSTEM: the service itself (a webhook subscription it disabled)." }),
      id: z.string().nullable(),
      name: z.string(),
      authentication: z.enum(["BASIC", "BEARER", "NONE"]).openapi({ description: "NONE for the SYSTEM actor." }),
    }),
    action: z.string().openapi({ example: "source.update" }),
    target: z.object({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string().nullable(), name: z.string().nullable() }),
    changes: z.array(ChangeSchema).nullable().openapi({ description: "For updates: the members that changed." }),
    requestId: z.string(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .openapi("AuditEvent");

export const AuditEventListSchema = pagedList(AuditEventSchema, "AuditEventList");
