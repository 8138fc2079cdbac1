import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { DATA_TYPES, DEFAULT_METRICS, FIELD_NAME_PATTERN } from "../../domain/source-fields";
import { auditMembers, PageQuerySchema, pagedList, orNull } from "../../lib/openapi";
import { GranularitySchema, NumberFormatSchema, TimeFieldFormatOptionsSchema, TimeZoneSchema } from "../sources/formats.schemas";
import { freeFormLimits, freeFormObject, nameString } from "../../lib/text-schemas";

export const FieldNameSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(FIELD_NAME_PATTERN, "Must start with a letter or '_' and hold only letters, digits, '_' and '.'")
  // The document states the pattern as ECMA-262 source; the flag stays in the validator.
  .openapi({ pattern: FIELD_NAME_PATTERN.source });

export const DataTypeSchema = z.enum(DATA_TYPES).openapi("DataType");

/** Accepted in any case (COUNT, count); answered in the spec's lower case. */
export const DefaultMetricSchema = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(DEFAULT_METRICS))
  .openapi({ type: "string", enum: [...DEFAULT_METRICS] });

const NativeOriginSchema = z.strictObject({
  originalName: nameString(255),
  originalType: z.string().max(64).optional(),
  dataEntityId: z.string().max(255).optional(),
  rawFormat: freeFormObject().optional(),
  metaFlags: z.array(z.string().max(64)).max(32).optional(),
  partitionedBy: z.strictObject({ field: z.string().max(255), function: z.string().max(64) }).optional(),
});

export const MAX_EXPRESSION_LENGTH = 10_000;
export const ExpressionTextSchema = z.string().min(1).max(MAX_EXPRESSION_LENGTH);

const DerivedOriginSchema = z.strictObject({
  expression: ExpressionTextSchema,
  calendarId: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "A calendar of the source's account (`GET /api/calendars`), or `default`, the built-in Gregorian calendar." }),
  referencedFieldNames: z.array(z.string()).optional().openapi({ readOnly: true, description: "Computed by the server; ignored when sent." }),
});

const HierarchyOriginSchema = z.strictObject({
  childParent: z.strictObject({ childField: FieldNameSchema, parentField: FieldNameSchema }),
  labelField: FieldNameSchema.optional(),
});

export const OriginSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("NATIVE"), nativeOrigin: NativeOriginSchema }),
    z.strictObject({ type: z.literal("DERIVED"), derivedOrigin: DerivedOriginSchema }),
    z.strictObject({ type: z.literal("HIERARCHY"), hierarchyOrigin: HierarchyOriginSchema }),
  ])
  .openapi("FieldOrigin");

const FieldFormatSchema = z.strictObject({
  time: z
    .strictObject({ granularity: GranularitySchema.optional(), timeZone: TimeZoneSchema.optional(), options: TimeFieldFormatOptionsSchema.optional() })
    .optional(),
  number: NumberFormatSchema.optional(),
  url: z
    .strictObject({
      type: z.string().max(32).optional(),
      src: z.string().max(2048).optional(),
      width: z.number().int().min(0).max(10000).optional(),
      height: z.number().int().min(0).max(10000).optional(),
    })
    .optional(),
});

const StatisticsSchema = z.strictObject({
  override: z
    .strictObject({ min: z.number().optional(), max: z.number().optional(), distinctValues: z.array(z.unknown()).max(1000).superRefine(freeFormLimits({})).optional() })
    .optional(),
  cacheEnabled: z.boolean().optional(),
  refreshable: z.boolean().optional(),
  lookup: z.strictObject({ raw: z.strictObject({ dataEntityId: z.string().max(255).optional(), originalFieldName: z.string().max(255).optional() }) }).optional(),
  cardinality: z.number().int().min(0).optional(),
});

const fieldMembers = {
  label: nameString(255, { allowEmpty: true }).optional(),
  visible: z.boolean().default(true),
  origin: OriginSchema,
  defaultMetric: DefaultMetricSchema.optional(),
  dataType: DataTypeSchema.optional().openapi({ description: "Detected from the origin when not given; a contradicting value is a 400." }),
  format: FieldFormatSchema.optional(),
  statistics: StatisticsSchema.optional(),
  facetFiltering: z
    .strictObject({ enabled: z.boolean(), order: z.number().int().min(0).max(10000).optional() })
    .optional()
    .openapi({ description: "Only for sources with the TEXT_SEARCH feature." }),
  granularity: GranularitySchema.optional(),
  disabledCapabilities: z.array(z.string().max(64)).max(32).optional(),
  fieldMetadata: freeFormObject({ maxBytes: 16_384 }).optional(),
  fieldName: z.string().optional().openapi({ deprecated: true, description: "Deprecated duplicate of name; ignored when sent." }),
  originalFieldName: z.string().optional().openapi({ deprecated: true, description: "Deprecated; ignored when sent." }),
};

export const FieldSchema = z
  .strictObject({
    origin: z.strictObject({
      type: z.enum(["NATIVE", "DERIVED", "HIERARCHY"]),
      nativeOrigin: NativeOriginSchema.optional(),
      derivedOrigin: DerivedOriginSchema.extend({ referencedFieldNames: z.array(z.string()) }).optional(),
      hierarchyOrigin: HierarchyOriginSchema.optional(),
    }),
    name: z.string(),
    label: z.string(),
    visible: z.boolean(),
    defaultMetric: z.enum(DEFAULT_METRICS),
    dataType: DataTypeSchema,
    format: FieldFormatSchema.optional(),
    statistics: StatisticsSchema.optional(),
    facetFiltering: z.strictObject({ enabled: z.boolean(), order: z.number().int().optional() }).optional(),
    granularity: orNull(GranularitySchema),
    disabledCapabilities: z.array(z.string()),
    fieldMetadata: z.record(z.string(), z.unknown()),
    rawFormatSupportTimeGroup: z.boolean(),
    fieldName: z.string().openapi({ deprecated: true, description: "Deprecated duplicate of `name`. Scheduled for removal at 23.3." }),
    originalFieldName: z
      .string()
      .nullable()
      .openapi({ deprecated: true, description: "Deprecated duplicate of `origin.nativeOrigin.originalName`. Scheduled for removal at 23.3." }),
    ...auditMembers,
  })
  .openapi("SourceField");

export const FieldCreateSchema = z
  .strictObject(withReadOnlyMembers(FieldSchema, { name: FieldNameSchema.optional().openapi({ description: "Generated from the label or original name when missing." }), ...fieldMembers }))
  .openapi("FieldCreate");

export const FieldPutSchema = z
  .strictObject(withReadOnlyMembers(FieldSchema, { name: FieldNameSchema.optional().openapi({ description: "Immutable: must equal the path's name when sent." }), ...fieldMembers }))
  .openapi("FieldPut");

export type FieldInput = z.infer<typeof FieldCreateSchema>;

export const FieldPageSchema = pagedList(FieldSchema, "SourceFieldPage");
export const FieldListQuerySchema = PageQuerySchema;

export const FieldPathSchema = z.object({
  sourceId: z.string().min(1).max(64).openapi({ param: { name: "sourceId", in: "path" } }),
  fieldName: z.string().min(1).max(255).openapi({ param: { name: "fieldName", in: "path" } }),
});

/** PUT may create the field its path names, so that name must be a valid field name. */
export const FieldPutPathSchema = FieldPathSchema.extend({
  fieldName: FieldNameSchema.openapi({ param: { name: "fieldName", in: "path" }, description: "The field's name; PUT creates it when missing." }),
});

export const FieldPatchSchema = z.strictObject({ visible: z.boolean() }).openapi("FieldPatch");

export const ValidateExpressionSchema = z.strictObject({ expression: z.string().max(MAX_EXPRESSION_LENGTH) }).openapi("ValidateExpression");

export const ValidationResultSchema = z
  .strictObject({
    valid: z.boolean(),
    dataType: orNull(DataTypeSchema),
    referencedFields: z.array(z.string()),
    error: z.strictObject({
      type: z.enum(["NONE", "SYNTAX", "VALIDATION", "DUPLICATED"]),
      message: z.string().nullable(),
      syntaxError: z.strictObject({ line: z.number().int(), column: z.number().int() }).nullable(),
    }),
  })
  .openapi("ExpressionValidationResult");
