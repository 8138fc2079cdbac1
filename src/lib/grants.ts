import type { Principal } from "../domain/principal";
import { isPrivilege, ungrantable, type Privilege } from "../domain/privileges";
import { ApiError } from "./errors";

/**
 * Nobody hands out, or takes control of, privileges it does not hold: a user administrator
 * who is not an account admin cannot grant ROLE_ADMIN, nor edit a user or group that has it.
 */
export function assertMayGrant(principal: Principal, privileges: readonly string[], action: string): void {
  if (principal.kind === "supervisor") return;
  const missing = ungrantable(principal.privileges, privileges.filter(isPrivilege) as Privilege[]);
  if (missing.length > 0) {
    throw new ApiError("PRIVILEGE_ESCALATION", `You cannot ${action} privileges you do not hold: ${missing.join(", ")}`);
  }
}
