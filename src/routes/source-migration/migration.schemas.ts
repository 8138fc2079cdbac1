import { z } from "@hono/zod-openapi";
import { ProblemSchema } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";
import { booleanQuery } from "../connection-types/connection-types.schemas";
import { SUPPRESS_WARNINGS_DESCRIPTION } from "../connections/connections.schemas";
import { CustomMetricCreateSchema, CustomMetricSchema } from "../custom-metrics/metrics.schemas";
import { FieldCreateSchema, FieldSchema } from "../source-fields/fields.schemas";
import { GranularitySchema } from "../sources/formats.schemas";
import { SourceSecuritySchema } from "../sources/sources.schemas";

/**
 * The reference product's source migration: SourcesMigrationResource (what GET /api/sources/export
 * answers and POST /api/sources/import takes), ImportSettingsResource and ImportResultResource.
 * The bundle carries no account-specific member (account, owner, audit members, grants, folder)
 * and no secret value.
 */
export const MAX_BUNDLED_SOURCES = 20;
export const MAX_BUNDLED_CONNECTIONS = 20;
export const MAX_BUNDLED_ITEMS = 1000;
export const BUNDLE_FORMAT_VERSION = "1";

const BundleIdSchema = z.string().min(1).max(64);

export const ExportQuerySchema = z.object({
  ids: z
    .union([z.string(), z.array(z.string())])
    .transform((ids) => [...new Set([ids].flat().flatMap((id) => id.split(",")).map((id) => id.trim()).filter(Boolean))])
    .pipe(z.array(z.string().max(64)).min(1, "Name at least one source").max(MAX_BUNDLED_SOURCES))
    .openapi({
      param: { style: "form", explode: true },
      description: `The sources to export: repeat the member (ids=a&ids=b) or separate ids by commas; 1 to ${MAX_BUNDLED_SOURCES}.`,
      example: "7b0c5b1e-0d1a-4e8e-9f55-3f4c5d6e7f80",
    }),
});

const INSERTIONS = ["CREATE", "REUSE", "UPDATE"] as const;
const insertionMembers = {
  ifExists: z.enum(INSERTIONS).openapi({ description: "For an object the account has (same name): REUSE it, UPDATE it, or CREATE (refused: the name is taken)." }),
  ifDoesNotExist: z.enum(INSERTIONS).openapi({ description: "For an object the account lacks: CREATE it (REUSE and UPDATE fail the object)." }),
};
const InsertionStrategySchema = z.strictObject(insertionMembers).openapi("InsertionStrategy");

// Its own object, not an extension of InsertionStrategy: the document would render that as an allOf whose closed $ref refuses matchingStrategy.
const CompositeStrategySchema = z.strictObject({
  ...insertionMembers,
  matchingStrategy: z
    .array(z.enum(["BY_NAME"]))
    .max(1)
    .optional()
    .openapi({ description: "How an object is matched in the account: BY_NAME, the only strategy here (the reference's others are a 400)." }),
}).openapi("CompositeStrategy");

const byBundleId = z.record(BundleIdSchema, InsertionStrategySchema).refine((r) => Object.keys(r).length <= 100, "At most 100 entries");

export const ImportSettingsSchema = z
  .strictObject({
    globalLevel: InsertionStrategySchema.optional(),
    objectClassLevel: z.strictObject({ sources: CompositeStrategySchema.optional(), connections: CompositeStrategySchema.optional() }).optional(),
    objectLevel: z
      .strictObject({ sources: byBundleId.optional(), connections: byBundleId.optional() })
      .optional()
      .openapi({ description: "Per object, keyed by its id in the bundle (`sources[].definition.id`, `connections[].id`)." }),
  })
  .openapi("ImportSettings", {
    description: "Most specific first: objectLevel, objectClassLevel, globalLevel; with none, {ifExists: REUSE, ifDoesNotExist: CREATE}.",
  });

const SourceDefinitionSchema = z
  .strictObject({
    id: BundleIdSchema.openapi({ description: "The source's id in the exporting account; the import makes its own." }),
    name: nameString(255),
    description: textString(1024).nullable().optional(),
    connectionId: BundleIdSchema.nullable()
      .optional()
      .openapi({ description: "The id, in this bundle's `connections`, of the source's connection; null: none." }),
    features: z.array(z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/)).max(32).default([]),
    enabled: z.boolean().default(true),
  })
  .openapi("SourceDefinition");

const BundledParameterSchema = z
  .strictObject({
    key: nameString(255),
    value: z.string().max(8192).regex(/^[^\u0000]*$/, "Must not contain NUL").optional().openapi({
      description: "Absent for a secret key (never exported). On import a secret key without value keeps the target connection's stored value.",
    }),
    sealedValue: z.string().max(16384).regex(/^[A-Za-z0-9_-]+$/, "Must be base64url").optional().openapi({
      description: "A secret value sealed under the export passphrase (an export with X-Export-Passphrase); opened with the import's X-Export-Passphrase.",
    }),
    systemAccess: z.boolean().default(false),
  })
  .openapi("BundledConnectionParameter");

/** How a bundle's sealed values are sealed (src/domain/transfer/passphrase-sealing.ts). */
export const SecretsSealingSchema = z
  .strictObject({
    kdf: z.literal("PBKDF2-HMAC-SHA-256"),
    iterations: z.number().int().openapi({ description: "100000." }),
    salt: z.string().max(64).openapi({ description: "base64url, 16 bytes." }),
    cipher: z.literal("AES-256-GCM"),
  })
  .openapi("SecretsSealing", { description: "Present when the bundle holds sealed values: the key is PBKDF2 of the export passphrase over this salt." });

export const BundledConnectionSchema = z
  .strictObject({
    id: BundleIdSchema.openapi({ description: "The connection's id in the exporting account; sources of the bundle name it." }),
    name: nameString(255).openapi({ description: "Matched by name in the target account." }),
    connectionTypeId: z.string().min(1).max(64),
    type: z.string().max(64).optional().openapi({ description: "Read-only: the type's storage type; accepted and not used." }),
    subStorageType: z.string().max(64).optional().openapi({ description: "Read-only: accepted and not used." }),
    disabled: z.boolean().default(false),
    allParameters: z.array(BundledParameterSchema).max(100).default([]),
  })
  .openapi("BundledConnection");

const BundledSourceSchema = z
  .strictObject({
    definition: SourceDefinitionSchema,
    fields: z.array(FieldCreateSchema).max(MAX_BUNDLED_ITEMS).default([]),
    customMetrics: z.array(CustomMetricCreateSchema).max(MAX_BUNDLED_ITEMS).default([]),
    security: SourceSecuritySchema.optional().openapi({ description: "Field and custom-metric security; omitted: both off." }),
  })
  .openapi("BundledSource");

export const SourcesMigrationSchema = z
  .strictObject({
    version: z.string().min(1).max(64).openapi({ description: "The bundle format's version (answered: 1); not interpreted on import." }),
    importSettings: ImportSettingsSchema.optional(),
    secretsSealing: SecretsSealingSchema.optional(),
    connections: z.array(BundledConnectionSchema).max(MAX_BUNDLED_CONNECTIONS).default([]),
    sources: z.array(BundledSourceSchema).max(MAX_BUNDLED_SOURCES).default([]),
  })
  .openapi("SourcesMigrationImport");

export type SourcesMigration = z.infer<typeof SourcesMigrationSchema>;
export type BundledSource = SourcesMigration["sources"][number];
export type BundledConnection = SourcesMigration["connections"][number];

const withoutAudit = { createdByUserID: true, createdDate: true, lastModifiedByUserID: true, lastModifiedDate: true } as const;

/** What the export answers: the same members, as answered (every default filled in). */
export const SourcesExportSchema = z
  .strictObject({
    version: z.string(),
    secretsSealing: SecretsSealingSchema.optional(),
    connections: z.array(
      z
        .strictObject({
          id: z.string(),
          name: z.string(),
          connectionTypeId: z.string(),
          type: z.string(),
          subStorageType: z.string(),
          disabled: z.boolean(),
          allParameters: z.array(
            z.strictObject({
              key: z.string(),
              value: z.string().optional().openapi({ description: "Absent for secret keys." }),
              sealedValue: z.string().optional().openapi({ description: "A secret key's value sealed under X-Export-Passphrase, when the export was sent one." }),
              systemAccess: z.boolean(),
            }),
          ),
        })
        .openapi("ExportedConnection"),
    ),
    sources: z.array(
      z
        .strictObject({
          definition: z
            .strictObject({ id: z.string(), name: z.string(), description: z.string().nullable(), connectionId: z.string().nullable(), features: z.array(z.string()), enabled: z.boolean() })
            .openapi("ExportedSourceDefinition"),
          fields: z.array(
            // As GET answers a field, less its null members (the create schema takes none: they are its defaults).
            FieldSchema.omit(withoutAudit).extend({ granularity: GranularitySchema.optional(), originalFieldName: z.string().optional() }).openapi("ExportedField"),
          ),
          customMetrics: z.array(CustomMetricSchema.omit(withoutAudit)),
          security: SourceSecuritySchema,
        })
        .openapi("ExportedSource"),
    ),
  })
  .openapi("SourcesMigration");

export const ImportQuerySchema = z.object({
  suppressWarnings: booleanQuery(SUPPRESS_WARNINGS_DESCRIPTION),
  enableDefaultRead: booleanQuery("With true, every user of the account may READ the sources the import creates (a READ grant to the built-in Users group)."),
  dryRun: booleanQuery("With true, nothing is written: the answer says what the import would do (CAN_BE_CREATED, CAN_BE_REUSED, CAN_BE_UPDATED, FAILED)."),
  accountId: z.string().max(64).optional().openapi({ description: "The target account: the caller's own (another is 403 ACCOUNT_FORBIDDEN)." }),
});

const ImportedResourceSchema = z
  .strictObject({
    id: z.string().nullable().openapi({ description: "The object's id in the account; null when it is not (or would not be) there yet." }),
    bundleId: z.string().openapi({ description: "Its id in the bundle." }),
    name: z.string(),
    status: z.enum(["CREATED", "REUSED", "UPDATED", "FAILED", "CAN_BE_CREATED", "CAN_BE_REUSED", "CAN_BE_UPDATED"]),
    href: z.string().nullable(),
    dependencies: z.array(z.strictObject({ type: z.enum(["SOURCE", "CONNECTION"]), id: z.string().nullable() }).openapi("ImportDependency")),
    problems: z.array(ProblemSchema),
  })
  .openapi("ImportedResource");

export const ImportResultSchema = z
  .strictObject({ sources: z.array(ImportedResourceSchema), connections: z.array(ImportedResourceSchema) })
  .openapi("ImportResult");
export type ImportedResource = z.infer<typeof ImportedResourceSchema>;
