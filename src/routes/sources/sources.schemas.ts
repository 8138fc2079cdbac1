import { ignoredMember, withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { auditMembers, PageQuerySchema, pagedList } from "../../lib/openapi";
import { FieldCreateSchema } from "../source-fields/fields.schemas";
import { nameString, textString } from "../../lib/text-schemas";

export const SourceIdParamSchema = z.object({
  sourceId: z.string().min(1).max(64).openapi({ param: { name: "sourceId", in: "path" } }),
});

const FeatureSchema = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "Features are upper-case identifiers such as TEXT_SEARCH")
  .openapi({ example: "TEXT_SEARCH" });

export const SourceSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    accountId: z.string(),
    connectionId: z.string().nullable(),
    features: z.array(z.string()),
    enabled: z.boolean(),
    ownerUserId: z.string().nullable().openapi({ readOnly: true, description: "The creator; it has WRITE on the source." }),
    ...auditMembers,
  })
  .openapi("Source");

const ConnectionIdSchema = z.string().min(1).max(64);
const InlineFieldsSchema = z.array(FieldCreateSchema).max(1000);

/**
 * The reference product's `storage` of a source: its data entities carry the connection and the
 * native fields. A source here has one data entity and no joins.
 */
const SourceStorageSchema = z
  .strictObject({
    dataEntities: z
      .array(
        z.strictObject({
          id: z.string().max(255).optional(),
          name: z.string().max(255).optional(),
          type: z.enum(["SINGLE_COLLECTION"]).optional().openapi({ description: "SINGLE_COLLECTION, the only kind a source here is made of." }),
          singleCollection: z
            .strictObject({
              connectionId: ConnectionIdSchema.optional().openapi({ description: "Alias of the source's `connectionId`." }),
              schema: z.string().max(255).optional(),
              collection: z.string().max(255).optional(),
            })
            .optional()
            .openapi({
              description:
                "`connectionId` stands for the source's; `schema` and `collection` name the table. On create without fields (`nativeFields`, `fields`), " +
                "the source's fields are read from that table. The table is not kept.",
            }),
          nativeFields: InlineFieldsSchema.optional().openapi({ description: "Alias of the source's `fields`." }),
        }),
      )
      .max(1, "A source here is made of one data entity (no joins)"),
    joins: z.array(z.unknown()).max(0, "Joins are not supported: a source here is made of one data entity").optional(),
  })
  .openapi("SourceStorage");

export const SourceCreateSchema = z
  .strictObject(withReadOnlyMembers(SourceSchema, {
    name: nameString(255),
    description: textString(1024).nullable().optional(),
    connectionId: ConnectionIdSchema.nullable()
      .optional()
      .openapi({ description: "A connection of the account (GET /api/connections); another account's, or none with this id, is a 400." }),
    features: z.array(FeatureSchema).max(32).default([]),
    enabled: z.boolean().default(true),
    fields: InlineFieldsSchema.optional().openapi({ default: [], description: "Native fields created with the source (at most 1000; NATIVE origin only)." }),
    tags: ignoredMember("The reference product's SourceResource.tags (sent by its clients): sources here have no tags, so they are ignored."),
    storage: SourceStorageSchema.optional().openapi({
      description:
        "Alias: the reference product's shape. `storage.dataEntities[0].singleCollection.connectionId` stands for `connectionId` and " +
        "`storage.dataEntities[0].nativeFields` for `fields` (each may be given in both places only with the same value). Without fields, and with " +
        "`singleCollection` naming a connection, schema and collection, the fields are read from that table (as POST /api/sources/data-entities/describe answers them).",
    }),
  }))
  // Without a connection: a connection's id is made by the installation, so no example can name one that exists.
  .openapi("SourceCreate", { example: { name: "Customers", description: "Customers and their regions", features: [], enabled: true } });

export type SourceCreate = z.infer<typeof SourceCreateSchema>;

/**
 * PUT: the source's own members, replaced as a whole (an omitted description or connection becomes
 * none, omitted features none, omitted enabled true). What GET answers may be sent back as it is:
 * its read-only members are accepted and not used. Fields and metrics are sub-resources, changed
 * through their own endpoints.
 */
export const SourceReplaceSchema = z
  .strictObject(withReadOnlyMembers(SourceSchema, {
    id: z.string().max(64).optional().openapi({ description: "Must equal the path's id when given (400 ID_MISMATCH)." }),
    name: nameString(255),
    description: textString(1024).nullable().optional(),
    connectionId: ConnectionIdSchema.nullable()
      .optional()
      .openapi({ description: "A connection of the account, or null (omitted: null). Another account's, or none with this id, is a 400." }),
    features: z.array(FeatureSchema).max(32).default([]),
    enabled: z.boolean().default(true),
    accountId: z.string().max(64).optional().openapi({ description: "The source's account when given: a source never moves (400 otherwise)." }),
    ownerUserId: z.string().max(64).nullable().optional().openapi({ description: "Read-only: accepted and not used." }),
    createdByUserID: z.string().max(64).optional().openapi({ description: "Read-only: accepted and not used." }),
    createdDate: z.string().max(64).optional().openapi({ description: "Read-only: accepted and not used." }),
    lastModifiedByUserID: z.string().max(64).optional().openapi({ description: "Read-only: accepted and not used." }),
    lastModifiedDate: z.string().max(64).optional().openapi({ description: "Read-only: accepted and not used." }),
    storage: SourceStorageSchema.optional().openapi({
      description:
        "Alias, as on create: `storage.dataEntities[0].singleCollection.connectionId` stands for `connectionId`. Its `nativeFields` are refused " +
        "(400): fields are changed through /api/sources/{sourceId}/fields.",
    }),
    fields: z.array(z.unknown()).optional().openapi({ description: "Refused (400): fields are changed through /api/sources/{sourceId}/fields." }),
    forcedFilters: z
      .array(z.unknown())
      .max(0, "Row security (forced filters) does not exist here: no source can have them")
      .optional()
      .openapi({ description: "The reference product's row security: only an empty list is accepted (no source here has forced filters)." }),
  }))
  .openapi("SourceReplace");

export type SourceReplace = z.infer<typeof SourceReplaceSchema>;

export const SourcePatchSchema = z
  .strictObject({
    name: nameString(255).optional(),
    description: textString(1024).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .openapi("SourcePatch");

export const SourcePageSchema = pagedList(SourceSchema, "SourcePage");
export const SourceListQuerySchema = PageQuerySchema;

export const PermissionEntrySchema = z
  .strictObject({
    principalType: z.enum(["USER", "GROUP"]),
    principalId: z.string().min(1).max(64),
    permission: z.enum(["READ", "WRITE"]),
  })
  .openapi("SourcePermissionEntry");

export const PermissionListSchema = z
  .strictObject({
    content: z
      .array(PermissionEntrySchema)
      .max(500)
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((e, i) => {
          const key = `${e.principalType}:${e.principalId}`;
          if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "principalId"], message: "Each principal may appear once" });
          seen.add(key);
        });
      }),
  })
  .openapi("SourcePermissions");

export const SourceSecuritySchema = z
  .strictObject({
    fieldsSecurity: z.strictObject({ enabled: z.boolean() }),
    customMetricsSecurity: z.strictObject({ enabled: z.boolean() }),
  })
  .openapi("SourceSecurity");

export const SourceBriefListSchema = z
  .strictObject({ content: z.array(z.strictObject({ id: z.string(), name: z.string() }).openapi("SourceBrief")) })
  .openapi("SourceBriefList");
