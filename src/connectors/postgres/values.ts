/**
 * Preview values as JSON. Date, time and bytea columns arrive as PostgreSQL's own text
 * (see RAW_TEXT_TYPES in session.ts: no time-zone shifts, "infinity" survives); int8 and
 * numeric arrive as strings (no precision lost); json arrives parsed.
 */
export function toJsonValue(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value); // NaN, Infinity
  if (typeof value === "bigint") return value.toString();
  return value ?? null;
}
