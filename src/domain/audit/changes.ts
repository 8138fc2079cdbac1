import type { AuditChange } from "./event";
import { toHex } from "../bytes";

/** Members an update always touches and that say nothing of what changed. */
const BOOKKEEPING = new Set(["revision", "version", "auditable", "createdByUserID", "createdByUserId", "createdByUserName", "createdDate", "lastModifiedByUserID", "lastModifiedByUserId", "lastModifiedDate"]);

export interface DiffOptions {
  /** Members whose values are secret: a change shows as `{member, changed: true}`, never a value. */
  secret?: readonly string[];
  /** Members left out altogether. */
  ignore?: readonly string[];
}

/**
 * The members of `after` that differ from `before` (top-level members of the API representation),
 * in a stable order. Values compare as JSON, so arrays and objects compare by content.
 */
export function diffMembers(before: Record<string, unknown>, after: Record<string, unknown>, options: DiffOptions = {}): AuditChange[] {
  const members = Object.keys(before);
  for (const member of Object.keys(after)) if (!Object.hasOwn(before, member)) members.push(member);
  members.sort();
  const changes: AuditChange[] = [];
  for (const member of members) {
    if (BOOKKEEPING.has(member) || options.ignore?.includes(member)) continue;
    const b = before[member];
    const a = after[member];
    if (sameJson(b, a)) continue;
    changes.push(options.secret?.includes(member) ? { member, changed: true } : { member, before: b ?? null, after: a ?? null });
  }
  return changes;
}

/** A change of a secret member, for writes that replace one without a before/after to compare (a rotated secret). */
export const secretChanged = (member: string): AuditChange => ({ member, changed: true });

/**
 * Whether two values are the same JSON: arrays by their elements in order, objects by their members
 * in any order (a member that is undefined is absent, as JSON.stringify leaves it out), numbers as
 * JSON writes them. Compared in place: every audited update compares each member of its object, and
 * writing each as canonical JSON text to compare the texts made garbage on every request.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  a ??= null;
  b ??= null;
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return JSON.stringify(a) === JSON.stringify(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const key in x) {
    if (!Object.hasOwn(x, key) || x[key] === undefined) continue;
    if (!Object.hasOwn(y, key) || y[key] === undefined || !sameJson(x[key], y[key])) return false;
    members++;
  }
  for (const key in y) if (Object.hasOwn(y, key) && y[key] !== undefined) members--;
  return members === 0;
}

/** A JSON dataset's data as the trail records it: its size in UTF-8 bytes and its SHA-256, never its content. */
export async function dataSummary(text: string): Promise<{ bytes: number; sha256: string }> {
  const bytes = new TextEncoder().encode(text);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { bytes: bytes.length, sha256: toHex(digest) };
}
