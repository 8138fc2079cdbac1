import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { MAX_PREVIEW_ROWS, DEFAULT_PREVIEW_ROWS } from "../../domain/connectors/preview-limit";
import { auditMembers } from "../../lib/openapi";
import { nameString } from "../../lib/text-schemas";
import { booleanQuery } from "../connection-types/connection-types.schemas";

/** Ids clients may give connections (E6 PUT): they end up in URLs, so no slashes, spaces or controls. */
const CONNECTION_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$/;

export const ConnectionIdSchema = z
  .string()
  .regex(CONNECTION_ID, "1 to 64 letters, digits, '.', '_', '~' or '-', starting with a letter or digit")
  .openapi({ example: "sales-warehouse" });

export const ConnectionIdParamSchema = z.object({
  connectionId: ConnectionIdSchema.openapi({ param: { name: "connectionId", in: "path" } }),
});

export const SchemaNameParamSchema = ConnectionIdParamSchema.extend({
  schemaName: nameString(255).openapi({ param: { name: "schemaName", in: "path" }, example: "sales" }),
});

export const SUPPRESS_WARNINGS_DESCRIPTION =
  "The answer may be a 400 whose problems have the level ERROR or WARNING. With true, WARNINGs are dropped and only ERRORs block.";

export const SuppressWarningsQuerySchema = z.object({ suppressWarnings: booleanQuery(SUPPRESS_WARNINGS_DESCRIPTION) });

const StrategySchema = z.enum(["BY_ID", "BY_TYPE_AND_PARAMETERS"]).openapi("ConnectionTypeMatchingStrategy");

export const ConnectionWriteQuerySchema = SuppressWarningsQuerySchema.extend({
  strategy: StrategySchema.optional().openapi({
    description:
      "How the connection type is found. BY_ID: by `connectionTypeId`. BY_TYPE_AND_PARAMETERS: the enabled type with the body's `type` and `subStorageType` whose required keys are all given and which declares every given key. Default: BY_ID when `connectionTypeId` is given, else BY_TYPE_AND_PARAMETERS.",
  }),
  connectionTypeMatchingStrategy: StrategySchema.optional().openapi({ description: "The reference product's name of `strategy`; both may be given only with the same value." }),
});

const ParameterWriteSchema = z
  .strictObject({
    key: nameString(255),
    value: z
      .string()
      .max(8192)
      .regex(/^[^\u0000]*$/, "Must not contain NUL")
      .optional()
      .openapi({ description: "Secret values (PASSWORD keys) are write-only: on update, a key sent without a value keeps the stored one." }),
    systemAccess: z.boolean().optional(),
    isSystemAccess: z.boolean().optional().openapi({ description: "Another name of systemAccess (the reference product's)." }),
  })
  .openapi("ConnectionParameterWrite");

const FeatureSchema = z
  .strictObject({ name: z.string(), params: z.record(z.string(), z.string()), status: z.enum(["ENABLED", "UNKNOWN"]) })
  .openapi("ConnectorFeature");

export const ConnectionSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    subStorageType: z.string(),
    accountId: z.string(),
    creatingUserName: z.string(),
    disabled: z.boolean(),
    connectionTypeId: z.string(),
    allParameters: z
      .array(
        z
          .strictObject({
            key: z.string(),
            value: z.string().optional().openapi({ description: "Absent for secret keys: their values are never answered." }),
            systemAccess: z.boolean(),
          })
          .openapi("ConnectionParameter"),
      )
      .openapi({ description: "Standard parameters plus system parameters. Secret values are left out." }),
    folderId: z.string().nullable(),
    projectId: z.string().nullable().openapi({ readOnly: true, description: "The project of the connection's folder; null without a folder." }),
    originId: z.string().nullable().openapi({ readOnly: true, description: "Id of the exported connection it was imported from; null (no import yet)." }),
    internal: z.boolean().openapi({ readOnly: true, description: "True when the service manages the store itself (the JSON-datasets connector)." }),
    features: z.array(FeatureSchema).openapi({ readOnly: true, description: "What the connector behind the connection can do." }),
    ...auditMembers,
  })
  .openapi("Connection");

export const ConnectionWriteSchema = z
  .strictObject(withReadOnlyMembers(ConnectionSchema, {
    id: z.string().max(64).optional().openapi({
      description:
        "Ignored on POST; on PUT it must match the path. On validate: a connection of the account whose stored secrets fill the secret keys sent without a value.",
    }),
    name: nameString(255).openapi({ description: "Unique in the account." }),
    type: nameString(64).optional().openapi({ description: "Matched by BY_TYPE_AND_PARAMETERS; with BY_ID it must agree with the type's, if sent." }),
    subStorageType: nameString(64).optional().openapi({ description: "As `type`." }),
    accountId: z.string().min(1).max(64).optional().openapi({ description: "The caller's own account (the default); naming another is 403." }),
    creatingUserName: z.string().max(255).optional().openapi({ description: "Set by the service when the connection is created; ignored when sent." }),
    disabled: z.boolean().default(false),
    connectionTypeId: z.string().min(1).max(64).optional(),
    allParameters: z
      .array(ParameterWriteSchema)
      .max(200)
      .default([])
      .openapi({ description: "Each key once. A PUT replaces the whole list: a key left out is removed; a secret key sent without a value keeps its stored value." }),
    folderId: z
      .union([z.string().min(1).max(64), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
      .nullable()
      .optional()
      .openapi({
        description:
          "A folder of the account (/api/folders) that organizes the connection. Answered as a string (folder ids are strings); an integer is taken as its decimal text.",
      }),
  }))
  .openapi("ConnectionWrite");

/**
 * The create and validate example (not the schema's: PUT /api/connections/{id} would make a second
 * connection of the same name). The JSON-datasets type is built in and reaches no network.
 */
export const CONNECTION_WRITE_EXAMPLE = { name: "Sales datasets", connectionTypeId: "json-datasets", allParameters: [] };

export type ConnectionWrite = z.infer<typeof ConnectionWriteSchema>;

export const ConnectionListSchema = z.strictObject({ content: z.array(ConnectionSchema) }).openapi("ConnectionList");

export const MAX_LISTED_IDS = 100;

export const ConnectionListQuerySchema = z.object({
  name: z.string().max(255).optional().openapi({ description: "Only the connection with exactly this name." }),
  ids: z
    .union([z.string(), z.array(z.string())])
    .transform((ids) => [ids].flat().flatMap((id) => id.split(",")).map((id) => id.trim()).filter(Boolean))
    .pipe(z.array(z.string().max(64)).max(MAX_LISTED_IDS))
    .optional()
    .openapi({ description: `Only these connections: repeat the member (ids=a&ids=b) or separate ids by commas; at most ${MAX_LISTED_IDS}.` }),
});

export const ValidationResultSchema = z
  .strictObject({
    connected: z.boolean(),
    message: z.string(),
    warning: z.string().optional().openapi({ description: "Something that works but deserves attention (no TLS, a superuser, ...)." }),
  })
  .openapi("ConnectionValidationResult");

export const SchemaListSchema = z.strictObject({ content: z.array(z.string()) }).openapi("ConnectionSchemaList");

const ColumnSchema = z
  .strictObject({
    name: z.string(),
    type: z.string().openapi({ description: "The store's own type name: numeric(12,2), timestamp with time zone, INTEGER." }),
    nullable: z.boolean(),
  })
  .openapi("ConnectionColumn");

export const SchemaDescriptionSchema = z
  .strictObject({
    schemaName: z.string(),
    collections: z.array(z.strictObject({ name: z.string(), kind: z.enum(["TABLE", "VIEW"]), columns: z.array(ColumnSchema) }).openapi("ConnectionCollection")),
  })
  .openapi("ConnectionSchemaDescription");

export const PreviewRequestSchema = z
  .strictObject({
    schema: nameString(255),
    table: nameString(255),
    limit: z.number().int().min(1).max(MAX_PREVIEW_ROWS).default(DEFAULT_PREVIEW_ROWS).openapi({ description: `Rows to read, 1 to ${MAX_PREVIEW_ROWS} (default ${DEFAULT_PREVIEW_ROWS}).` }),
  })
  .openapi("ConnectionPreviewRequest");

export const PreviewSchema = z
  .strictObject({
    columns: z.array(ColumnSchema),
    rows: z.array(z.array(z.unknown())).openapi({ description: "One array per row, values in the order of `columns`, as JSON (big numbers and dates as the store prints them)." }),
  })
  .openapi("ConnectionPreview");
