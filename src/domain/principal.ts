import { holds, SUPERVISOR_TENANT_PRIVILEGES, type Privilege } from "./privileges";

/** Who is calling: the configured supervisor, or a user of one account. */
export type Principal = SupervisorPrincipal | UserPrincipal;

export interface SupervisorPrincipal {
  kind: "supervisor";
  id: "supervisor";
  name: string;
}

export interface UserPrincipal {
  kind: "user";
  id: string;
  name: string;
  accountId: string;
  privileges: ReadonlySet<Privilege>;
  /** The groups the user belongs to: source permissions may be granted to them. */
  groupIds: readonly string[];
  /** How the caller proved who it is: Basic credentials or a trusted-access bearer token. */
  via: "basic" | "bearer";
}

/** What a route demands of its caller, declared next to the route and checked before its handler. */
export type Access =
  | { kind: "public" }
  | { kind: "authenticated" }
  /** Any user of an account (the supervisor, a member of none, is refused): for objects that live inside one account. */
  | { kind: "accountMember" }
  | { kind: "supervisor" }
  /** The supervisor, or an administrator of the account the handler resolves (others' accounts are 404). */
  | { kind: "accountAdmin" }
  | { kind: "privilege"; privilege: Privilege }
  /** A trusted-access client, by its client_id and secret (the token endpoints): no user or supervisor is one. */
  | { kind: "trustedClient" };

export function isAdmin(principal: Principal): boolean {
  return principal.kind === "user" && principal.privileges.has("ROLE_ADMIN");
}

export function hasPrivilege(principal: Principal, privilege: Privilege): boolean {
  if (principal.kind === "supervisor") return SUPERVISOR_TENANT_PRIVILEGES.includes(privilege);
  return holds(principal.privileges, privilege);
}

export function isAllowed(principal: Principal, access: Access): boolean {
  switch (access.kind) {
    case "public":
    case "authenticated":
      return true;
    case "accountMember":
      return principal.kind === "user";
    case "supervisor":
      return principal.kind === "supervisor";
    case "accountAdmin":
      return principal.kind === "supervisor" || isAdmin(principal);
    case "privilege":
      return hasPrivilege(principal, access.privilege);
    case "trustedClient":
      return false;
  }
}
