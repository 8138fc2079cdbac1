import type { AuditEvent } from "../domain/audit/event";
import type { auditEvents } from "./schema";

export type AuditEventRow = typeof auditEvents.$inferSelect;

/** The columns of audit_events under the names of AuditEventRow, for statements written in SQL (the webhook consumer). */
export const AUDIT_EVENT_SELECT =
  "e.id, e.time, e.account_id AS accountId, e.actor_type AS actorType, e.actor_id AS actorId, e.actor_name AS actorName, " +
  "e.actor_authentication AS actorAuthentication, e.action, e.target_type AS targetType, e.target_id AS targetId, e.target_name AS targetName, " +
  "e.changes, e.request_id AS requestId, e.ip, e.user_agent AS userAgent";

/** An event as the API (and a webhook payload) shows it. */
export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    time: row.time,
    accountId: row.accountId,
    actor: { type: row.actorType as AuditEvent["actor"]["type"], id: row.actorId, name: row.actorName, authentication: row.actorAuthentication as AuditEvent["actor"]["authentication"] },
    action: row.action as AuditEvent["action"],
    target: { type: row.targetType as AuditEvent["target"]["type"], id: row.targetId, name: row.targetName },
    changes: row.changes === null ? null : JSON.parse(row.changes),
    requestId: row.requestId,
    ip: row.ip,
    userAgent: row.userAgent,
  };
}
