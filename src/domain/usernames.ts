import { namesLookAlike } from "./names";

/**
 * The supervisor's name is reserved: no user may take it in any letter case, Unicode spelling or
 * look-alike (a user "SUPERVISOR", "supervisor " or "ѕupervisor" with a Cyrillic ѕ would look like
 * the supervisor in every audit trail and log). Compared by skeleton (src/domain/names.ts).
 */
export function isSupervisorName(name: string, supervisorName: string | undefined): boolean {
  if (!supervisorName) return false;
  return namesLookAlike(name, supervisorName);
}
