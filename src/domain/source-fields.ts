/** Rules of a source field's members that need no database: naming, labels, defaults, native types. */
export const DATA_TYPES = ["ATTRIBUTE", "NUMBER", "INTEGER", "TIME", "TEXT", "HIERARCHY", "NULL"] as const;
export type FieldDataType = (typeof DATA_TYPES)[number];

export const FIELD_NAME_PATTERN = /^[\p{L}_][\p{L}_\p{N}.]*$/u;
export const MAX_NAME_LENGTH = 255;

export const DEFAULT_METRICS = [
  "avg", "min", "max", "sum", "stddev_pop", "stddev_samp", "var_pop", "var_samp", "distinct_count",
  "last_value", "first_value", "count", "calc", "percentile", "median", "listagg",
] as const;
export type DefaultMetric = (typeof DEFAULT_METRICS)[number];

/** COUNT for attributes (and anything not numeric), SUM for numbers. */
export function defaultMetricFor(dataType: FieldDataType): DefaultMetric {
  return dataType === "NUMBER" || dataType === "INTEGER" ? "sum" : "count";
}

/** Turns free text (a label, a column name) into a valid field name, or "" if nothing is left. */
export function nameFromText(text: string): string {
  let name = text
    .normalize("NFC")
    .trim()
    .replace(/[^\p{L}\p{N}_.]+/gu, "_")
    .replace(/_+/g, "_")
    .replace(/^_+(?=[\p{L}\p{N}])|_+$/gu, "");
  if (name && !/^[\p{L}_]/u.test(name)) name = `_${name}`;
  return [...name].slice(0, MAX_NAME_LENGTH).join("");
}

/** The first of base, base_2, base_3, ... that is not taken. */
export function firstFreeName(base: string, taken: ReadonlySet<string>): string {
  const root = base || "field";
  if (!taken.has(root)) return root;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = [...root].slice(0, MAX_NAME_LENGTH - suffix.length).join("") + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** "order_date" and "orderDate" both read "Order Date". */
export function labelFromName(name: string): string {
  const words = name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .split(/[_.\s]+/)
    .filter(Boolean);
  const label = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  return [...(label || name)].slice(0, MAX_NAME_LENGTH).join("");
}

/** The data type a native column of a database type holds; unknown types are attributes. */
export function dataTypeOfNativeType(originalType: string | undefined): FieldDataType {
  const t = (originalType ?? "").trim().toUpperCase().replace(/\(.*$/, "");
  if (/^(TINYINT|SMALLINT|MEDIUMINT|INT|INTEGER|BIGINT|INT2|INT4|INT8|LONG|SHORT|BYTE|SMALLSERIAL|SERIAL|BIGSERIAL)$/.test(t)) return "INTEGER";
  if (/^(DECIMAL|NUMERIC|NUMBER|FLOAT|FLOAT4|FLOAT8|DOUBLE|DOUBLE PRECISION|REAL|MONEY)$/.test(t)) return "NUMBER";
  if (/^(DATE|DATETIME|DATETIME2|TIME|TIMETZ|TIMESTAMP|TIMESTAMPTZ|TIMESTAMP_NTZ|TIMESTAMP_LTZ|TIMESTAMP_TZ)$/.test(t)) return "TIME";
  // PostgreSQL's own spellings (format_type): "timestamp without time zone", "time with time zone".
  if (/^(TIME|TIMESTAMP) WITH(OUT)? TIME ZONE$/.test(t)) return "TIME";
  if (/^(TEXT|CLOB|LONGTEXT|MEDIUMTEXT|JSON|JSONB)$/.test(t)) return "TEXT";
  return "ATTRIBUTE";
}
