/**
 * The privilege catalogue: every named privilege the API checks, in one place.
 * Privileges reach a user through its groups and its own extra `roles`.
 * ROLE_ADMIN makes a user administrator of its account: it holds every privilege there.
 */
export const PRIVILEGES = [
  "ROLE_ADMIN",
  "ROLE_MANAGE_CONNECTIONS",
  "ROLE_EDIT_FORMULAS",
  "ROLE_CREATE_SOURCES",
  "ROLE_ADMINISTER_CALENDARS",
  "ROLE_ADMINISTER_FOLDERS",
  "ROLE_CREATE_FOLDERS",
  "ROLE_PERMISSION_FOLDERS",
  "ROLE_ADMINISTER_USERS",
  "ROLE_ADMINISTER_GROUPS",
  "ROLE_VIEW_AUDIT",
  "ROLE_MANAGE_WEBHOOKS",
] as const;

export type Privilege = (typeof PRIVILEGES)[number];

export const PRIVILEGE_DESCRIPTIONS: Record<Privilege, string> = {
  ROLE_ADMIN: "Administrator of one account: every privilege inside it.",
  ROLE_MANAGE_CONNECTIONS: "Create, change and validate data connections.",
  ROLE_EDIT_FORMULAS: "Edit custom metrics of sources the user may READ.",
  ROLE_CREATE_SOURCES: "Create data sources.",
  ROLE_ADMINISTER_CALENDARS: "Create, change and delete calendars.",
  ROLE_ADMINISTER_FOLDERS: "Administer every library folder of the account.",
  ROLE_CREATE_FOLDERS: "Create library folders.",
  ROLE_PERMISSION_FOLDERS: "Change the permissions of library folders.",
  ROLE_ADMINISTER_USERS: "Create, change and delete the account's users.",
  ROLE_ADMINISTER_GROUPS: "Create, change and delete the account's groups.",
  ROLE_VIEW_AUDIT: "Read the account's audit trail (GET /api/audit-events).",
  ROLE_MANAGE_WEBHOOKS: "Subscribe webhooks to the account's changes (/api/webhooks).",
};

/**
 * Privileges the supervisor exercises on any account besides its own supervisor authority (it reads
 * every account's audit trail; its webhook subscriptions also receive the changes outside any account).
 */
export const SUPERVISOR_TENANT_PRIVILEGES: readonly Privilege[] = ["ROLE_ADMINISTER_USERS", "ROLE_ADMINISTER_GROUPS", "ROLE_VIEW_AUDIT", "ROLE_MANAGE_WEBHOOKS"];

/** What a new account's Administrators group holds (ROLE_ADMIN already implies the rest; ROLE_VIEW_AUDIT is named so a reader of the group sees it). */
export const ADMINISTRATORS_PRIVILEGES: readonly Privilege[] = ["ROLE_ADMIN", "ROLE_VIEW_AUDIT"];

export function isPrivilege(value: string): value is Privilege {
  return (PRIVILEGES as readonly string[]).includes(value);
}

/** A user's effective privileges: the union of its own roles and of its groups' privileges. */
export function resolvePrivileges(roles: readonly string[], groupPrivileges: readonly (readonly string[])[]): Set<Privilege> {
  const held = new Set<Privilege>();
  for (const list of [roles, ...groupPrivileges]) {
    for (const p of list) if (isPrivilege(p)) held.add(p);
  }
  return held;
}

export function holds(held: ReadonlySet<Privilege>, wanted: Privilege): boolean {
  return held.has("ROLE_ADMIN") || held.has(wanted);
}

/**
 * The privileges in `requested` that a granter holding `held` may not hand out.
 * Nobody grants what they do not hold themselves, so ROLE_ADMIN only comes from an admin.
 */
export function ungrantable(held: ReadonlySet<Privilege>, requested: readonly Privilege[]): Privilege[] {
  if (held.has("ROLE_ADMIN")) return [];
  return [...new Set(requested)].filter((p) => !held.has(p));
}
