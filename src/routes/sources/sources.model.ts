import type { sources } from "../../db/schema";

type SourceRow = typeof sources.$inferSelect;

/** A source's security settings as GET /api/sources/{sourceId}/security answers them (and the bundles carry them). */
export const securityOf = (row: Pick<SourceRow, "fieldsSecurityEnabled" | "customMetricsSecurityEnabled">) => ({
  fieldsSecurity: { enabled: row.fieldsSecurityEnabled },
  customMetricsSecurity: { enabled: row.customMetricsSecurityEnabled },
});
