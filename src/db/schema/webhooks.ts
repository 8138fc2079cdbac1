import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

/**
 * Webhook subscriptions (docs/webhooks.md). `account_id` null: the supervisor's, for changes
 * outside any account. The signing secret is sealed (domain/webhooks/secret.ts), never stored in clear.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** JSON array of action patterns: `*`, `source.*`, `custom-metric.update`. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    secretSealed: text("secret_sealed").notNull(),
    /** Deliveries that failed in a row (each after its last attempt); reset by a success or re-enabling. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** Why the service disabled it (a run of failures); null when enabled or disabled by a caller. */
    disabledReason: text("disabled_reason"),
    ...version,
    ...audit,
  },
  (t) => [index("webhooks_account").on(t.accountId)],
);

/**
 * One audit event to one subscription: created by the queue consumer's fan-out, updated by each
 * attempt. Unique per (webhook, event), so a fan-out carried twice creates nothing twice.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** The last answer's HTTP status; null before any, or when none came (time-out, refused). */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    /** When the next attempt is due (ISO 8601), while PENDING. */
    nextAttemptAt: text("next_attempt_at"),
    outcome: text("outcome").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.webhookId, t.eventId),
    index("webhook_deliveries_webhook").on(t.webhookId, t.id),
    // The sweep's look for PENDING deliveries whose message was lost.
    index("webhook_deliveries_due").on(t.outcome, t.nextAttemptAt),
    check("webhook_deliveries_outcome", sql`${t.outcome} IN ('PENDING', 'DELIVERED', 'FAILED')`),
  ],
);

/**
 * Audit events the consumer has fanned out (the outbox's "sent" marks), written by the consumer,
 * never by a request. The sweep enqueues events past its watermark that have none.
 */
export const webhookDispatched = sqliteTable("webhook_dispatched", { eventId: text("event_id").primaryKey() });

/** The sweep's watermark: every event with a smaller id has been enqueued. One row. */
export const webhookSweep = sqliteTable(
  "webhook_sweep",
  { id: integer("id").primaryKey(), sweptTo: text("swept_to").notNull() },
  (t) => [check("webhook_sweep_one_row", sql`${t.id} = 1`)],
);
