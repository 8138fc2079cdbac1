import { z } from "@hono/zod-openapi";
import { patternProblem } from "../../domain/webhooks/webhooks";
import { auditMembers } from "../../lib/openapi";

/** Webhook subscriptions (docs/webhooks.md). */
const UrlSchema = z.string().min(1).max(2048).openapi({
  description:
    "Where deliveries are POSTed. https; plain http only to a host CONNECTOR_ALLOWED_HOSTS lists. The host passes the same policy as connections' " +
    "(no private, loopback or metadata address unless listed): a refused URL is a 400 naming body.url.",
  example: "http://127.0.0.1:8790/hooks/catalogue",
});

const PatternSchema = z
  .string()
  .max(100)
  .superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

const EventsSchema = z.array(PatternSchema).min(1).max(50).openapi({
  description: "Audit actions delivered: exact (`custom-metric.update`), a prefix ending in `.*` (`source.*`), or `*` (every change).",
  example: ["source.*", "custom-metric.update"],
});

const DescriptionSchema = z.string().max(500).openapi({ description: "Free text for people (at most 500 characters)." });

export const WebhookSchema = z
  .strictObject({
    id: z.string(),
    accountId: z.string().nullable().openapi({ description: "The account whose changes it receives; null: changes outside any account (the supervisor's)." }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().openapi({ description: "Why the service disabled it (a run of failed deliveries); null otherwise." }),
    consecutiveFailures: z.number().int().openapi({ description: "Deliveries FAILED in a row; WEBHOOK_DISABLE_AFTER_FAILURES of them disable it." }),
    secret: z.string().optional().openapi({
      description: "The signing secret (Standard Webhooks, `whsec_` and base64). Present ONLY in the answers of create and rotate: stored sealed, never shown again.",
      "x-issued-once": true,
    }),
    ...auditMembers,
  })
  .openapi("Webhook");

export const WebhookListSchema = z.strictObject({ content: z.array(WebhookSchema) }).openapi("WebhookList");

export const WebhookCreateSchema = z
  .strictObject({
    url: UrlSchema,
    events: EventsSchema,
    description: DescriptionSchema.default(""),
    enabled: z.boolean().default(true),
    accountId: z.string().min(1).max(64).nullable().optional().openapi({
      description:
        "Whose changes it receives. A user: its own account only (another is 403 ACCOUNT_FORBIDDEN). The supervisor: any account, or none (omitted or null): changes outside any account.",
    }),
  })
  // The receiver of npm run demo:webhooks (docs/webhooks.md); a deployment's receivers are https.
  .openapi("WebhookCreate", { example: { url: "http://127.0.0.1:8790/hooks/catalogue", events: ["source.*"], description: "Catalogue sync", enabled: true } });

export const WebhookUpdateSchema = z
  .strictObject({
    url: UrlSchema.optional(),
    events: EventsSchema.optional(),
    description: DescriptionSchema.optional(),
    enabled: z.boolean().optional().openapi({ description: "true re-enables a subscription the service disabled (its failure count starts again)." }),
  })
  .openapi("WebhookUpdate");

export const WebhookDeliverySchema = z
  .strictObject({
    id: z.string(),
    eventId: z.string().openapi({ description: "The audit event delivered: the `webhook-id` header of each attempt." }),
    action: z.string().nullable().openapi({ description: "The event's action; null once the event is pruned." }),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable().openapi({ description: "HTTP status of the last answer; null when none came (time-out, refused connection)." }),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable().openapi({ description: "When the next attempt is due, while PENDING.", format: "date-time" }),
    outcome: z.enum(["PENDING", "DELIVERED", "FAILED"]),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("WebhookDelivery");

export const WebhookDeliveryListSchema = z.strictObject({ content: z.array(WebhookDeliverySchema) }).openapi("WebhookDeliveryList");

export const WebhookListQuerySchema = z.object({
  accountId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: "The supervisor: this account's subscriptions (without it, those for changes outside any account). A user may name only its own account." }),
});

export const DeliveryQuerySchema = z.object({
  maxResults: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "How many, newest first: 1 to 200 (default 50)." }),
  outcome: z.enum(["PENDING", "DELIVERED", "FAILED"]).optional(),
});

export const DeliveryParamSchema = z.object({
  id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" } }),
  deliveryId: z.string().min(1).max(64).openapi({ param: { name: "deliveryId", in: "path" } }),
});

export const WebhookPingSchema = z
  .strictObject({
    delivered: z.boolean().openapi({ description: "The receiver answered 2xx." }),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    webhookId: z.string().openapi({ description: "The ping's `webhook-id` header (`ping_` and a UUID)." }),
  })
  .openapi("WebhookPing");
