import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { auditMembers, PageQuerySchema, pagedList } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";

/**
 * `data` is any JSON object. Not a freeFormObject: its size limit is MAX_DATASET_BYTES (5 MiB,
 * answered 413), measured on the text as sent, which is what is stored; its nesting is bounded by
 * the body reader's 64 levels. Validation only checks that it is an object.
 */
const DatasetDataSchema = z.record(z.string(), z.unknown()).openapi({
  description:
    "The JSON payload, an object. Stored and answered exactly as sent: key order, spacing and number spellings (12345678901234567890, 1.0) are kept. At most MAX_DATASET_BYTES (5 MiB) of UTF-8; larger is 413.",
});

const datasetMembers = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  accountId: z.string(),
  ...auditMembers,
};

export const JsonDatasetSummarySchema = z.strictObject(datasetMembers).openapi("JsonDatasetSummary", {
  description: "A JSON dataset without its data (the list's items).",
});

export const JsonDatasetSchema = z.strictObject({ ...datasetMembers, data: DatasetDataSchema }).openapi("JsonDataset");

const writeMembers = {
  id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
  name: nameString(255).openapi({ description: "Unique in the account, case-sensitive; 1 to 255 characters." }),
  description: textString(512).nullable().optional().openapi({ description: "At most 512 characters. On update, omitted keeps the stored one and null clears it." }),
  accountId: z.string().min(1).max(64).optional().openapi({ description: "The caller's own account (the default); naming another is 403." }),
};

export const JsonDatasetCreateSchema = z.strictObject(withReadOnlyMembers(JsonDatasetSchema, { ...writeMembers, data: DatasetDataSchema })).openapi("JsonDatasetCreate", {
  example: { name: "regions", description: "Sales regions", data: { rows: [{ region: "EMEA", target: 1200000 }, { region: "APAC", target: 800000 }] } },
});

export const JsonDatasetUpdateSchema = z
  .strictObject(withReadOnlyMembers(JsonDatasetSchema, { ...writeMembers, data: DatasetDataSchema.optional().openapi({ description: "The new data; omitted keeps the stored data." }) }))
  .openapi("JsonDatasetUpdate");

export const JsonDatasetListQuerySchema = PageQuerySchema;

export const JsonDatasetPageSchema = pagedList(JsonDatasetSummarySchema, "JsonDatasetPage");
