import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The audit trail (db/audit-trail.ts, docs/audit.md). No foreign key to accounts: deleting an
 * account keeps its events until retention prunes them. Ids are time-sortable (domain/audit/event-id.ts),
 * so "newest first" and the time filters walk the indexes below by id.
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    time: text("time").notNull(),
    accountId: text("account_id"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorName: text("actor_name").notNull(),
    actorAuthentication: text("actor_authentication").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    targetName: text("target_name"),
    /** JSON array of {member, before, after} or {member, changed: true}; null when the action has none. */
    changes: text("changes"),
    requestId: text("request_id").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [
    // An account's events newest first; the filters each have an index that keeps that order.
    index("audit_events_account").on(t.accountId, t.id),
    index("audit_events_account_action").on(t.accountId, t.action, t.id),
    index("audit_events_account_target").on(t.accountId, t.targetType, t.targetId, t.id),
    index("audit_events_account_actor_id").on(t.accountId, t.actorId, t.id),
    index("audit_events_account_actor_name").on(t.accountId, t.actorName, t.id),
    index("audit_events_request").on(t.requestId),
  ],
);
