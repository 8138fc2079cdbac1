import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { PARAMETER_VALUE_TYPES } from "../../domain/connectors/connection-parameters";
import { auditMembers } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";

/** A query member that is `true` or `false` (nothing else), read as a boolean. */
export function booleanQuery(description: string) {
  return z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .openapi({ description });
}

const ValueTypeSchema = z.enum(PARAMETER_VALUE_TYPES).openapi("ParameterValueType", {
  description: "PASSWORD values are secret: write-only, stored encrypted. INTEGER, BOOLEAN (`true`/`false`) and URL (http or https) values are checked.",
});

export const TypeParameterSchema = z
  .strictObject({
    key: z.string(),
    label: z.string(),
    valueType: ValueTypeSchema,
    required: z.boolean(),
    helper: z.string().nullable(),
    visible: z.boolean(),
    userAttribute: z.boolean(),
    values: z.array(z.string()),
    sequenceNumber: z.number().int(),
    requireValidation: z.boolean(),
  })
  .openapi("ConnectionTypeParameter");

const TypeParameterWriteSchema = z
  .strictObject({
    key: nameString(255).openapi({ description: 'The key a connection sets. A key ending in "." declares a family: "header." takes "header.X-Api-Version".' }),
    label: nameString(255).optional().openapi({ description: "Shown in forms and messages; the key when omitted." }),
    valueType: ValueTypeSchema.default("STRING"),
    required: z.boolean().default(false),
    helper: textString(1024).nullable().optional(),
    visible: z.boolean().default(true),
    userAttribute: z.boolean().default(false).openapi({ description: "Kept for clients that fill the value from a user attribute; the service does not resolve it." }),
    values: z.array(nameString(255)).max(100).default([]).openapi({ description: "When not empty, the only values accepted." }),
    sequenceNumber: z.number().int().min(0).max(100_000).optional().openapi({ description: "Order in forms; the position in the list when omitted." }),
    requireValidation: z.boolean().default(false).openapi({ description: "A hint for clients: changing the value calls for validating the connection again." }),
  })
  .openapi("ConnectionTypeParameterWrite");

const uniqueKeys = (parameters: { key: string }[] | undefined, ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  parameters?.forEach((p, i) => {
    if (seen.has(p.key)) ctx.addIssue({ code: "custom", path: ["parameters", i, "key"], message: "Each key may appear once" });
    seen.add(p.key);
  });
};

const storageName = (what: string) =>
  nameString(64)
    .regex(/^[A-Za-z0-9_.-]+$/, "Letters, digits, '_', '.' and '-' only")
    .optional()
    .openapi({ description: `${what}; derived from the connector when omitted (POSTGRESQL, HTTP_JSON, ...).` });

const typeMembers = {
  connectorId: z.string().min(1).max(64),
  name: nameString(255).openapi({ description: "Unique across the installation." }),
  description: textString(1024).nullable().optional(),
  type: storageName("The kind of store, matched by BY_TYPE_AND_PARAMETERS"),
  subStorageType: storageName("The variant of the store, matched by BY_TYPE_AND_PARAMETERS"),
  enabled: z.boolean().default(true),
  disabledMessage: textString(1024).nullable().optional().openapi({ description: "What a disabled type answers to new connections and validations." }),
  minSupportedVersion: nameString(64).nullable().optional(),
  maxSupportedVersion: nameString(64).nullable().optional(),
  onPremise: z.boolean().default(false),
  parameters: z.array(TypeParameterWriteSchema).max(100).optional().openapi({ description: "The keys connections take; the connector's own parameters when omitted." }),
};

export const ConnectionTypeSchema = z
  .strictObject({
    id: z.string(),
    connectorId: z.string().openapi({ description: "The connector that serves the type's connections (GET /api/connection/types lists the built-in one of each)." }),
    enabled: z.boolean(),
    disabledMessage: z.string().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.string(),
    subStorageType: z.string(),
    minSupportedVersion: z.string().nullable(),
    maxSupportedVersion: z.string().nullable(),
    onPremise: z.boolean(),
    parameters: z.array(TypeParameterSchema),
    ...auditMembers,
  })
  .openapi("ConnectionType");

export const ConnectionTypeWriteSchema = z
  .strictObject(withReadOnlyMembers(ConnectionTypeSchema, {
    id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
    ...typeMembers,
  }))
  .superRefine((body, ctx) => uniqueKeys(body.parameters, ctx))
  .openapi("ConnectionTypeWrite", {
    example: {
      connectorId: "http-json",
      name: "Orders API",
      description: "The orders service's JSON endpoints",
    },
  });

export type ConnectionTypeWrite = z.infer<typeof ConnectionTypeWriteSchema>;

export const ConnectionTypePatchSchema = z
  .strictObject({
    connectorId: typeMembers.connectorId.optional(),
    name: typeMembers.name.optional(),
    description: typeMembers.description,
    type: typeMembers.type,
    subStorageType: typeMembers.subStorageType,
    enabled: z.boolean().optional(),
    disabledMessage: typeMembers.disabledMessage,
    minSupportedVersion: typeMembers.minSupportedVersion,
    maxSupportedVersion: typeMembers.maxSupportedVersion,
    onPremise: z.boolean().optional(),
    parameters: typeMembers.parameters,
  })
  .superRefine((body, ctx) => uniqueKeys(body.parameters, ctx))
  .openapi("ConnectionTypePatch", { description: "The members to change; the others keep their values." });

export type ConnectionTypePatch = z.infer<typeof ConnectionTypePatchSchema>;

export const ConnectionTypeListSchema = z.strictObject({ content: z.array(ConnectionTypeSchema) }).openapi("ConnectionTypeList");

export const ConnectionTypeListQuerySchema = z.object({
  name: z.string().max(255).optional().openapi({ description: "Only the type with exactly this name." }),
  enabled: booleanQuery("Only enabled (true) or only disabled (false) types."),
});

export const AccountIdListSchema = z
  .array(z.string().min(1).max(64))
  .max(1000)
  .superRefine((ids, ctx) => {
    if (new Set(ids).size !== ids.length) ctx.addIssue({ code: "custom", message: "Each account may appear once" });
  })
  .openapi("ConnectionTypeAccounts", { description: "Ids of the accounts that may use the type, each once. An empty list: every account." });
