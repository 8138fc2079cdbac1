/** Quota arithmetic: what a limit allows. Consumption is always computed live from the account's objects. */
export const QUOTA_TYPES = ["CONNECTION", "SOURCE", "VISUAL", "DASHBOARD", "SELF_SERVICE_REPORT", "SCHEDULE", "FILE_SIZE"] as const;
export type QuotaType = (typeof QUOTA_TYPES)[number];

export interface QuotaLine {
  type: QuotaType;
  limit: number;
  consumption: number;
}

/** A missing limit means no limit. `adding` is a count of objects, or bytes for FILE_SIZE. */
export function allows(limit: number | undefined, consumption: number, adding: number): boolean {
  if (limit === undefined) return true;
  return consumption + adding <= limit;
}

export function remaining(limit: number, consumption: number): number {
  return Math.max(0, limit - consumption);
}

/** The types that appear more than once in a requested quota list. */
export function duplicateTypes(types: readonly QuotaType[]): QuotaType[] {
  const seen = new Set<QuotaType>();
  const dup = new Set<QuotaType>();
  for (const t of types) (seen.has(t) ? dup : seen).add(t);
  return [...dup];
}
