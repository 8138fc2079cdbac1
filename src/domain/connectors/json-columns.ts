/**
 * Column types inferred from JSON records, for connectors whose data has no schema of its
 * own (an HTTP endpoint returning an array of objects).
 */

export type JsonColumnType = "INTEGER" | "NUMBER" | "BOOLEAN" | "TIME" | "TEXT" | "JSON";

export interface InferredColumn {
  name: string;
  nativeType: JsonColumnType;
  /** True when some record lacks the member or holds null there. */
  nullable: boolean;
}

/**
 * Columns in order of first appearance. A column's type is the narrowest that fits every
 * non-null value: INTEGER widens to NUMBER, TIME to TEXT; objects and arrays are JSON;
 * any other mix is TEXT, and so is a column that only ever holds null.
 */
export function inferColumns(records: readonly Record<string, unknown>[]): InferredColumn[] {
  const columns = new Map<string, { type?: JsonColumnType; seen: number; nullSeen: boolean }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      let column = columns.get(name);
      if (!column) columns.set(name, (column = { seen: 0, nullSeen: false }));
      column.seen++;
      if (value === null || value === undefined) column.nullSeen = true;
      else column.type = column.type ? widen(column.type, typeOfValue(value)) : typeOfValue(value);
    }
  }
  return [...columns].map(([name, column]) => ({
    name,
    nativeType: column.type ?? "TEXT",
    nullable: column.nullSeen || column.seen < records.length,
  }));
}

/**
 * The first `limit` records as rows, values in the order of the columns inferred from ALL records
 * (so that a preview agrees with a describe); a member a record lacks is null.
 */
export function rowsOfRecords(records: readonly Record<string, unknown>[], limit: number): { columns: InferredColumn[]; rows: unknown[][] } {
  const columns = inferColumns(records);
  return {
    columns,
    rows: records.slice(0, limit).map((record) => columns.map((column) => (Object.hasOwn(record, column.name) ? (record[column.name] ?? null) : null))),
  };
}

/**
 * The records a JSON document holds as a table: an array of objects is its records; an object's
 * first member (in document order) that is an array of objects holds them (`{"records": [...]}`,
 * `{"rows": [...], "total": 2}`); an object without such a member is itself one record.
 */
export function recordsOfDocument(document: unknown): Record<string, unknown>[] {
  if (isArrayOfObjects(document)) return document;
  if (!isObject(document)) return [];
  const member = Object.values(document).find(isArrayOfObjects);
  return member ?? [document];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isArrayOfObjects = (value: unknown): value is Record<string, unknown>[] => Array.isArray(value) && value.every(isObject);

export function typeOfValue(value: unknown): JsonColumnType {
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "number") return Number.isSafeInteger(value) ? "INTEGER" : "NUMBER";
  if (typeof value === "string") return isIsoDateTime(value) ? "TIME" : "TEXT";
  return "JSON";
}

function widen(a: JsonColumnType, b: JsonColumnType): JsonColumnType {
  if (a === b) return a;
  const pair = new Set([a, b]);
  if (pair.has("INTEGER") && pair.has("NUMBER")) return "NUMBER";
  if (pair.has("TIME") && pair.has("TEXT")) return "TEXT";
  if (pair.has("JSON")) return "JSON"; // every value is valid JSON
  return "TEXT";
}

// 2024-01-15, 2024-01-15T10:00, 2024-01-15 10:00:00.123, with an optional Z or +hh:mm.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 calendar date, optionally with a time, that names a real instant. */
export function isIsoDateTime(text: string): boolean {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (match[4] === undefined) return true;
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)];
  return hour <= 23 && minute <= 59 && second <= 59;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
