import type { AuditEvent } from "./event";

/**
 * An audit event in the OCSF API Activity class (6003, category Application Activity), one JSON
 * object per line of the NDJSON export, for a SIEM. docs/audit.md documents the mapping.
 */
export const OCSF_VERSION = "1.3.0";

const ACTIVITIES: Record<string, [id: number, name: string]> = {
  create: [1, "Create"],
  update: [3, "Update"],
  delete: [4, "Delete"],
};

// OCSF user type_id: 1 User, 2 Admin, 3 System.
const USER_TYPES: Record<string, { type: string; type_id: number }> = {
  USER: { type: "User", type_id: 1 },
  SUPERVISOR: { type: "Admin", type_id: 2 },
  SYSTEM: { type: "System", type_id: 3 },
};

export function toOcsfApiActivity(event: AuditEvent): Record<string, unknown> {
  const verb = event.action.slice(event.action.indexOf(".") + 1);
  const [activityId, activityName] = ACTIVITIES[verb] ?? [99, "Other"];
  const actor =
    event.actor.type === "TRUSTED_CLIENT"
      ? { app_uid: event.actor.id, app_name: event.actor.name }
      : { user: { uid: event.actor.id, name: event.actor.name, ...USER_TYPES[event.actor.type] } };
  return {
    class_uid: 6003,
    class_name: "API Activity",
    category_uid: 6,
    category_name: "Application Activity",
    activity_id: activityId,
    activity_name: activityName,
    type_uid: 6003 * 100 + activityId,
    type_name: `API Activity: ${activityName}`,
    severity_id: 1,
    severity: "Informational",
    status_id: 1,
    status: "Success",
    time: Date.parse(event.time),
    metadata: {
      version: OCSF_VERSION,
      uid: event.id,
      correlation_uid: event.requestId,
      product: { name: "Analytics Metadata Administration API", vendor_name: "Analytics Metadata Administration API" },
    },
    cloud: { provider: "Cloudflare", account: event.accountId === null ? undefined : { uid: event.accountId } },
    actor,
    api: { operation: event.action, request: { uid: event.requestId } },
    src_endpoint: { ip: event.ip ?? undefined },
    http_request: { user_agent: event.userAgent ?? undefined },
    resources: [{ type: event.target.type, uid: event.target.id ?? undefined, name: event.target.name ?? undefined, data: event.changes ? { changes: event.changes } : undefined }],
    unmapped: { authentication: event.actor.authentication, actor_type: event.actor.type },
  };
}
