// The sub-apps of the /api/sources group (src/routes/index.ts), which always load together: one
// module for the group (see ./accounts.group.ts).
export { sourcesRouter } from "./sources/sources.index";
export { fieldsRouter } from "./source-fields/fields.index";
export { customMetricsRouter } from "./custom-metrics/metrics.index";
export { dataEntitiesRouter } from "./data-entities/data-entities.index";
