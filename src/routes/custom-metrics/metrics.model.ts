import { auditOut, type AuditColumns } from "../../lib/http";

/**
 * A custom metric as stored: `name` and `dataType` are columns of source_items; label,
 * visibility, formats and the expression live in `body`. PUT replaces the whole body, so
 * members a client omits go back to these defaults.
 */
export interface MetricInput {
  label?: string;
  visible?: boolean;
  numberFormat?: Record<string, unknown>;
  timeFormat?: Record<string, unknown>;
  granularity?: string;
  expression: string;
}

export function metricBody(name: string, input: MetricInput): Record<string, unknown> {
  const body: Record<string, unknown> = {
    label: input.label || name,
    visible: input.visible ?? true,
    expression: input.expression,
  };
  for (const key of ["numberFormat", "timeFormat", "granularity"] as const) if (input[key] !== undefined) body[key] = input[key];
  return body;
}

/** Every new source gets this metric. */
export const VOLUME_METRIC = { name: "Volume", dataType: "INTEGER", body: metricBody("Volume", { expression: "count(*)" }) };

export function toMetric(row: { name: string; dataType: string; body: Record<string, unknown> } & AuditColumns) {
  return { name: row.name, ...row.body, dataType: row.dataType, ...auditOut(row) } as never;
}
