/**
 * JSON Merge Patch (RFC 7396): what a PATCH body does to the representation it is applied to.
 *  - a member set to null removes the member;
 *  - a member whose value is an object merges into the target's member (recursively), when that
 *    member is an object too; otherwise the patch's object replaces it (with its nulls removed);
 *  - any other value, arrays included, replaces the member whole.
 * A patch that is not an object replaces the whole target. Neither argument is changed.
 * Body depth is bounded upstream (the body reader's 64 levels), so the recursion is too.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [member: string]: JsonValue };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [member, value] of Object.entries(patch)) {
    if (value === null) delete result[member];
    else result[member] = applyMergePatch(result[member], value);
  }
  return result;
}
