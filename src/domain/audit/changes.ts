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
  const secret = new Set(options.secret ?? []);
  const ignore = new Set(options.ignore ?? []);
  const members = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((m) => !BOOKKEEPING.has(m) && !ignore.has(m)).sort();
  const changes: AuditChange[] = [];
  for (const member of members) {
    const [b, a] = [before[member], after[member]];
    if (sameJson(b, a)) continue;
    changes.push(secret.has(member) ? { member, changed: true } : { member, before: b ?? null, after: a ?? null });
  }
  return changes;
}

/** A change of a secret member, for writes that replace one without a before/after to compare (a rotated secret). */
export const secretChanged = (member: string): AuditChange => ({ member, changed: true });

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A JSON dataset's data as the trail records it: its size in UTF-8 bytes and its SHA-256, never its content. */
export async function dataSummary(text: string): Promise<{ bytes: number; sha256: string }> {
  const bytes = new TextEncoder().encode(text);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { bytes: bytes.length, sha256: toHex(digest) };
}
