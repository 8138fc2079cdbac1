import { ApiError, type AccessibleObjectUsage, type ErrorCode } from "../../lib/errors";
import { MAX_USERS_LISTED } from "../../db/connections";

/**
 * The 409 of a delete refused because other objects use the one deleted: a Problem whose
 * `dependencies` names them (at most MAX_USERS_LISTED; `hasOtherUsages` says there are more).
 */
export function inUse(errorCode: ErrorCode, what: { name: string; label: string }, users: AccessibleObjectUsage[]): ApiError {
  const listed = users.slice(0, MAX_USERS_LISTED);
  const more = users.length > MAX_USERS_LISTED;
  const names = listed.map((u) => `'${u.name}'`).join(", ");
  const message = `The ${what.label} '${what.name}' is used by ${more ? `more than ${MAX_USERS_LISTED} objects` : names}; delete or change them first`;
  return new ApiError(errorCode, message, {
    problems: [{ name: "id", message, level: "ERROR", dependencies: { [what.name]: { hasOtherUsages: more, accessible: listed } } }],
  });
}
