import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { auditMembers, PageQuerySchema, pagedList } from "../../lib/openapi";
import { DataTypeSchema, ExpressionTextSchema, FieldNameSchema } from "../source-fields/fields.schemas";
import { GRANULARITIES, NumberFormatSchema, TimeFormatSchema } from "../sources/formats.schemas";
import { nameString } from "../../lib/text-schemas";

// Inline rather than a $ref to the Granularity component: a $ref would bury `deprecated` in an allOf member.
const DeprecatedGranularitySchema = z.enum(GRANULARITIES).optional();

const metricMembers = {
  label: nameString(255, { allowEmpty: true }).optional().openapi({ description: "User-visible text; the name when omitted." }),
  visible: z.boolean().optional().openapi({ description: "Visible to users on a visual; true when omitted." }),
  numberFormat: NumberFormatSchema.optional(),
  timeFormat: TimeFormatSchema.optional(),
  granularity: DeprecatedGranularitySchema.openapi({ deprecated: true, description: "Deprecated. Minimum time granularity." }),
  expression: ExpressionTextSchema.openapi({ example: "sum(amount) / count(*)" }),
  dataType: DataTypeSchema.optional().openapi({ description: "Detected from the expression; a contradicting value is a 400." }),
};

export const CustomMetricSchema = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    visible: z.boolean(),
    numberFormat: NumberFormatSchema.optional(),
    timeFormat: TimeFormatSchema.optional(),
    granularity: DeprecatedGranularitySchema.openapi({ deprecated: true, description: "Deprecated. Minimum time granularity." }),
    expression: z.string(),
    dataType: DataTypeSchema,
    ...auditMembers,
  })
  .openapi("CustomMetric");

export const CustomMetricWriteSchema = z
  .strictObject(withReadOnlyMembers(CustomMetricSchema, {
    name: FieldNameSchema.optional().openapi({ description: "Immutable. On PUT it must equal the path's name when sent." }),
    ...metricMembers,
  }))
  .openapi("CustomMetricWrite");

export const CustomMetricCreateSchema = z
  .strictObject(withReadOnlyMembers(CustomMetricSchema, { name: FieldNameSchema.openapi({ description: "Unique across the source's fields and custom metrics. Immutable." }), ...metricMembers }))
  .openapi("CustomMetricCreate");

export type CustomMetricInput = z.infer<typeof CustomMetricWriteSchema>;

export const MetricPathSchema = z.object({
  sourceId: z.string().min(1).max(64).openapi({ param: { name: "sourceId", in: "path" } }),
  customMetricName: FieldNameSchema.openapi({ param: { name: "customMetricName", in: "path" }, description: "Length 1-255." }),
});

export const CustomMetricPageSchema = pagedList(CustomMetricSchema, "CustomMetricPage");
export const CustomMetricListQuerySchema = PageQuerySchema;
export const CustomMetricPatchSchema = z.strictObject({ visible: z.boolean() }).openapi("CustomMetricPatch");
