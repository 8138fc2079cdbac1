import { z } from "@hono/zod-openapi";
import { DataTypeSchema } from "../source-fields/fields.schemas";
import { nameString } from "../../lib/text-schemas";
import { ConnectionIdSchema } from "../connections/connections.schemas";

/** The reference product's SINGLE_COLLECTION data entity names its table here: a connection, a schema and a collection. */
export const SingleCollectionSchema = z
  .strictObject({
    connectionId: ConnectionIdSchema.openapi({ description: "A connection of the caller's account." }),
    schema: nameString(255).openapi({ example: "sales" }),
    collection: nameString(255).openapi({ description: "The table or view.", example: "customers" }),
  })
  .openapi("SingleCollection");

const OUR_MEMBERS = ["connectionId", "schema", "table"] as const;

/**
 * Ours (`connectionId`, `schema`, `table`) or the reference product's data entity
 * (`{type: "SINGLE_COLLECTION", singleCollection: {connectionId, schema, collection}}`, as
 * isw-da/composer-mcp describe_entity sends it): one form or the other, never both.
 */
export const DataEntityDescribeRequestSchema = z
  .strictObject({
    connectionId: ConnectionIdSchema.optional().openapi({ description: "A connection of the caller's account (or `singleCollection.connectionId`)." }),
    schema: nameString(255).optional().openapi({ example: "sales" }),
    table: nameString(255).optional().openapi({ example: "customers" }),
    type: z.enum(["SINGLE_COLLECTION"]).optional().openapi({ description: "The reference product's data entity kind: SINGLE_COLLECTION, the only one." }),
    id: z.string().max(255).optional().openapi({ description: "The reference product's data entity id: accepted and not used." }),
    name: z.string().max(255).optional().openapi({ description: "The reference product's data entity name: accepted and not used." }),
    singleCollection: SingleCollectionSchema.optional().openapi({
      description: "Alias: the reference product's data entity. Stands for `connectionId`, `schema` and `table` (`collection`); give one form, not both.",
    }),
  })
  .superRefine((body, ctx) => {
    const ours = OUR_MEMBERS.filter((member) => body[member] !== undefined);
    if (body.singleCollection) {
      for (const member of ours) ctx.addIssue({ code: "custom", path: [member], message: "Given beside singleCollection: give one form of the table, not both" });
      return;
    }
    for (const member of OUR_MEMBERS) {
      if (body[member] === undefined) ctx.addIssue({ code: "custom", path: [member], message: "Required (or give singleCollection)" });
    }
  })
  .transform((body) =>
    body.singleCollection
      ? { connectionId: body.singleCollection.connectionId, schema: body.singleCollection.schema, table: body.singleCollection.collection }
      : { connectionId: body.connectionId!, schema: body.schema!, table: body.table! },
  )
  // A JSON-datasets connection: its schema "datasets" holds a table per dataset of the account.
  .openapi("DataEntityDescribeRequest", { example: { connectionId: "sales-warehouse", schema: "datasets", table: "customers" } });

const NativeFieldDefinitionSchema = z
  .strictObject({
    name: z.string().openapi({ description: "A valid field name made from the column's name, unique in the list (and never Volume)." }),
    label: z.string(),
    dataType: DataTypeSchema,
    origin: z.strictObject({
      type: z.enum(["NATIVE"]),
      nativeOrigin: z.strictObject({
        originalName: z.string().openapi({ description: "The column's name in the store." }),
        originalType: z.string().openapi({ description: "The column's type in the store." }),
        dataEntityId: z.string().openapi({ description: "The table: `schema.table`." }),
      }),
    }),
  })
  .openapi("NativeFieldDefinition", { description: "A field definition POST /api/sources accepts in `fields` as it is." });

export const DataEntityFieldsSchema = z.strictObject({ content: z.array(NativeFieldDefinitionSchema) }).openapi("DataEntityFields");
