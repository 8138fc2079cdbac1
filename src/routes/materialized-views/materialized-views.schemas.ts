import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { SIMPLE_METRIC_TYPES } from "../../domain/sql";
import { auditMembers, orNull } from "../../lib/openapi";
import { freeFormLimits, nameString, textString } from "../../lib/text-schemas";

/**
 * Materialized views are deprecated since 23.1: every schema here, and every member of each, is
 * marked `deprecated` in the OpenAPI document, as the operations are (a member that is another
 * of these schemas is written as a bare `$ref`, to the schema marked deprecated). Member names and shapes are the
 * reference product's where the spec is silent, except a metric's `type`, which here is an
 * aggregate of the expression language (see MetricSchema).
 */
function deprecatedObject<S extends z.ZodRawShape>(shape: S) {
  const marked = Object.fromEntries(Object.entries(shape).map(([key, member]) => [key, (member as z.ZodType).openapi({ deprecated: true })]));
  return z.strictObject(marked as unknown as S);
}

/**
 * The filter operations, spelled as the reference product spells them, and the `value` each
 * takes. The reference lists more (EQUALSI, TEXT_SEARCH, keysets, ...); those have no faithful
 * SQL here and are refused like any unknown value.
 */
export const VIEW_FILTER_OPERATIONS = ["EQUALS", "NOTEQUALS", "GT", "GE", "LT", "LE", "IN", "NOTIN", "BETWEEN", "ISNULL", "ISNOTNULL", "CONTAINS_CS"] as const;

const FILTER_OPERATION_DESCRIPTION =
  "EQUALS, NOTEQUALS, GT, GE, LT, LE: `value` one scalar; IN, NOTIN: a non-empty array of scalars; BETWEEN: [low, high], inclusive; " +
  "ISNULL, ISNOTNULL: no value (or null); CONTAINS_CS: text found literally in a text field, case-sensitive. " +
  "A scalar is text, a number or a boolean; times are ISO 8601 text ('2024-01-31'). Values become quoted SQL literals.";

const FieldNameSchema = deprecatedObject({ name: nameString(255) }).openapi("MaterializedViewFieldName", {
  deprecated: true,
  description: "Names a field of the definition's source.",
});

const ScalarSchema = z.union([z.string().max(1000), z.number(), z.boolean()]);

export type ViewFilterOperation = (typeof VIEW_FILTER_OPERATIONS)[number];

/** The `value` each operation takes; `null` stands for "no value". */
const VALUE_OF_OPERATION: Record<ViewFilterOperation, { fits: (value: unknown) => boolean; needs: string }> = {
  EQUALS: { fits: isScalar, needs: "one text, number or boolean" },
  NOTEQUALS: { fits: isScalar, needs: "one text, number or boolean" },
  GT: { fits: isScalar, needs: "one text, number or boolean" },
  GE: { fits: isScalar, needs: "one text, number or boolean" },
  LT: { fits: isScalar, needs: "one text, number or boolean" },
  LE: { fits: isScalar, needs: "one text, number or boolean" },
  IN: { fits: (v) => Array.isArray(v) && v.length > 0, needs: "a non-empty array of values" },
  NOTIN: { fits: (v) => Array.isArray(v) && v.length > 0, needs: "a non-empty array of values" },
  BETWEEN: { fits: (v) => Array.isArray(v) && v.length === 2, needs: "an array of two values, [low, high]" },
  ISNULL: { fits: (v) => v === undefined || v === null, needs: "no value" },
  ISNOTNULL: { fits: (v) => v === undefined || v === null, needs: "no value" },
  CONTAINS_CS: { fits: (v) => typeof v === "string", needs: "a text value" },
};

function isScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

const FilterSchema = deprecatedObject({
  path: FieldNameSchema,
  operation: z.enum(VIEW_FILTER_OPERATIONS).openapi({ description: FILTER_OPERATION_DESCRIPTION }),
  value: z.union([ScalarSchema, z.array(ScalarSchema).max(1000), z.null()]).optional(),
})
  .superRefine((filter, ctx) => {
    const { fits, needs } = VALUE_OF_OPERATION[filter.operation];
    if (!fits(filter.value)) ctx.addIssue({ code: "custom", path: ["value"], message: `${filter.operation} takes ${needs}` });
  })
  .openapi("MaterializedViewFilter", { deprecated: true, description: "A condition on the rows read: all of a definition's filters hold (AND)." });

const AggregationSchema = deprecatedObject({
  type: z.enum(["TERMS"]).openapi({ description: "TERMS: one group (and one row of the view) per distinct value of the field." }),
  field: FieldNameSchema,
}).openapi("MaterializedViewAggregation", { deprecated: true });

const MetricSchema = deprecatedObject({
  type: z
    .enum(SIMPLE_METRIC_TYPES)
    .optional()
    .openapi({ description: "The aggregate over `field`; COUNT without a field counts rows. Not used by a metric with a `formula`." }),
  field: FieldNameSchema.optional(),
  rollup: z.boolean().optional().openapi({ description: "Whether the stored values may be combined further; kept as sent." }),
  formulaName: nameString(255)
    .optional()
    .openapi({ description: "With `formula`: the name of the formula's column. Alone: names a custom metric of the source." }),
  formula: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .openapi({ description: "An aggregate-level expression of the expression language (as a custom metric's), e.g. `SUM(price) / COUNT(*)`." }),
}).openapi("MaterializedViewMetric", {
  deprecated: true,
  description:
    "A column of the view: a formula metric (`formula`, named by `formulaName`), a custom metric of the source (`formulaName` alone), or `type` over `field`. " +
    "Columns are named after `formulaName`, `count`, or `<type>_<field>` (`sum_price`).",
});

/** A definition is stored as JSON: at most this many bytes of it. */
const MAX_DEFINITION_BYTES = 32 * 1024;

export const DefinitionSchema = deprecatedObject({
  type: z.enum(["AGG"]).openapi({ description: "AGG: an aggregate query. (The reference's RAW variant is not supported.)" }),
  sourceId: z.string().min(1).max(64).openapi({ description: "The source whose data the view holds: one of the caller's account." }),
  filters: z.array(FilterSchema).max(50).default([]),
  aggregations: z.array(AggregationSchema).max(50).default([]),
  metrics: z.array(MetricSchema).max(100).default([]),
})
  .superRefine(freeFormLimits({ maxBytes: MAX_DEFINITION_BYTES }))
  .openapi("MaterializedViewDefinition", {
    deprecated: true,
    description: `What the view holds: \`SELECT <aggregations' fields>, <metrics> FROM <the source's table> WHERE <filters> GROUP BY <aggregations' fields>\`. At most ${MAX_DEFINITION_BYTES} bytes as JSON.`,
  });

const TargetStorageSchema = deprecatedObject({
  connectionId: z.string().min(1).max(64).openapi({ description: "A connection of the account (GET /api/connections); another account's, or none with this id, is a 400." }),
  schemas: z.array(nameString(255)).max(16).optional(),
  collection: nameString(255).optional(),
  collectionParams: z.record(z.string().max(255), z.string().max(4096)).optional(),
}).openapi("MaterializedViewTargetStorage", { deprecated: true });

const FieldMappingSchema = deprecatedObject({
  targetFieldName: nameString(255).optional(),
  sourceFieldName: nameString(255).optional(),
  sourceMetric: MetricSchema.optional(),
  sourceAggregation: AggregationSchema.optional(),
}).openapi("MaterializedViewFieldMapping", { deprecated: true });

export const StorageSettingsSchema = deprecatedObject({
  targetStorage: TargetStorageSchema,
  fieldMappings: z.array(FieldMappingSchema).max(200).optional(),
})
  .superRefine(freeFormLimits({ maxBytes: 16 * 1024 }))
  .openapi("MaterializedViewStorageSettings", {
    deprecated: true,
    description: "Where the view's data is kept, for external storage only; without it (or null) it is stored internally. Kept as sent, the connection checked.",
  });

const viewMembers = {
  name: nameString(255).openapi({ description: "Unique in the account." }),
  description: textString(1024).nullable().optional(),
  enabled: z.boolean().default(true),
  definition: DefinitionSchema,
  storageSettings: orNull(StorageSettingsSchema).optional(),
};

export const MaterializedViewSchema = deprecatedObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  definition: DefinitionSchema,
  storageSettings: orNull(StorageSettingsSchema).openapi({ description: "null: the data is stored internally." }),
  referencedSourceIds: z.array(z.string()).openapi({ readOnly: true, description: "Sources that can be matched by the view: its definition's source." }),
  definitionQuery: z.string().openapi({
    readOnly: true,
    description: "The SQL the definition stands for, generated when the view was last written (POST or PUT), in the dialect of the source's connection (PostgreSQL, else ANSI).",
  }),
  ...auditMembers,
}).openapi("MaterializedView", { deprecated: true, description: "A materialized view (deprecated since 23.1)." });

export const MaterializedViewInputSchema = deprecatedObject(
  withReadOnlyMembers(MaterializedViewSchema, {
    id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
    ...viewMembers,
  }),
).openapi("MaterializedViewInput", {
  deprecated: true,
  example: {
    name: "Customer count",
    description: "How many customers there are",
    enabled: true,
    definition: { type: "AGG", sourceId: "7b0c5b1e-0d1a-4e8e-9f55-3f4c5d6e7f80", metrics: [{ type: "COUNT" }] },
  },
  description: "A materialized view as a client writes it: a MaterializedView without id, referencedSourceIds and definitionQuery (those are ignored when sent).",
});

export type MaterializedViewInput = z.infer<typeof MaterializedViewInputSchema>;

export const MaterializedViewPatchSchema = deprecatedObject({
  name: viewMembers.name.optional(),
  description: viewMembers.description,
  enabled: z.boolean().optional(),
}).openapi("MaterializedViewPatch", { deprecated: true, description: "The members to change; those left out keep their values." });

export const MaterializedViewListSchema = deprecatedObject({ content: z.array(MaterializedViewSchema) }).openapi("MaterializedViewList", { deprecated: true });

export const ListQuerySchema = z.object({
  sourceId: z.string().min(1).max(64).optional().openapi({ description: "Only the views of this source.", deprecated: true }),
});
