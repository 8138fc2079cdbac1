/**
 * The audit event: who changed what, when, through which request. One event per changed object,
 * written in the same D1 batch as the change (db/audit-trail.ts), so one exists iff the other does.
 */

/** The type names of audited objects, used in `action` (`<type>.<verb>`) and `target.type`. */
export const AUDIT_TARGET_TYPES = [
  "account",
  "user",
  "group",
  "quota",
  "source",
  "field",
  "custom-metric",
  "calendar",
  "json-dataset",
  "connection-type",
  "connection",
  "folder",
  "trusted-access-client",
  "token",
  "materialized-view",
  "webhook",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * The actions: `<type>.<verb>` with the three verbs of every resource, and the specific ones the
 * issue names as they are: `token.issue`, `token.revoke`, `client.rotate-secret` (target type
 * `trusted-access-client`) and `login.lock-out` (target type `user`, the name tried), and
 * `webhook.disable`: the service disabled a subscription after a run of failed deliveries;
 * `account.move`: the account's rows moved to another database (POST /api/accounts/{id}/move).
 */
export const SPECIFIC_ACTIONS = ["token.issue", "token.revoke", "client.rotate-secret", "login.lock-out", "webhook.disable", "account.move"] as const;
type ResourceType = Exclude<AuditTargetType, "token">;
export type AuditAction = `${ResourceType}.${"create" | "update" | "delete"}` | (typeof SPECIFIC_ACTIONS)[number];
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  ...AUDIT_TARGET_TYPES.filter((t): t is ResourceType => t !== "token").flatMap((t) => [`${t}.create`, `${t}.update`, `${t}.delete`] as const),
  ...SPECIFIC_ACTIONS,
];

/** SYSTEM: the service itself, acting on no request (a subscription disabled by the webhook consumer). */
export type ActorType = "USER" | "SUPERVISOR" | "TRUSTED_CLIENT" | "SYSTEM";

export interface AuditActor {
  type: ActorType;
  id: string | null;
  name: string;
  authentication: "BASIC" | "BEARER" | "NONE";
}

/** A value the database computes when the event is written (a revoked token's account), by a scalar subquery. */
export interface ComputedValue {
  sql: string;
  params: unknown[];
}

export interface AuditTarget {
  type: AuditTargetType;
  id: string | null | ComputedValue;
  name: string | null;
}

/**
 * A member that changed; a secret one only says that it changed. A write made without reading the
 * object first (a JSON dataset's PUT) knows only the new value.
 */
export type AuditChange = { member: string; before: unknown; after: unknown } | { member: string; changed: true } | { member: string; after: unknown };

/** What a write declares about one changed object; the trail adds who, when and which request. */
export interface AuditRecord {
  /** The account the object lives in; null outside any (connection types, trusted-access clients). */
  accountId: string | null | ComputedValue;
  action: AuditAction;
  target: AuditTarget;
  changes?: AuditChange[];
}

export interface AuditEvent extends Omit<AuditRecord, "changes" | "accountId" | "target"> {
  accountId: string | null;
  target: { type: AuditTargetType; id: string | null; name: string | null };
  id: string;
  time: string;
  actor: AuditActor;
  changes: AuditChange[] | null;
  requestId: string;
  ip: string | null;
  userAgent: string | null;
}

/** `source.*` (a prefix) or an exact action; undefined when it is neither. */
export function parseActionFilter(value: string): { exact: string } | { prefix: string } | undefined {
  if (!/^[a-z-]+(\.[a-z-]+|\.\*)$/.test(value)) return undefined;
  return value.endsWith(".*") ? { prefix: value.slice(0, -1) } : { exact: value };
}
