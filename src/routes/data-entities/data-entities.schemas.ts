import { z } from "@hono/zod-openapi";
import { DataTypeSchema } from "../source-fields/fields.schemas";
import { nameString } from "../../lib/text-schemas";
import { ConnectionIdSchema } from "../connections/connections.schemas";

export const DataEntityDescribeRequestSchema = z
  .strictObject({
    connectionId: ConnectionIdSchema.openapi({ description: "A connection of the caller's account." }),
    schema: nameString(255).openapi({ example: "sales" }),
    table: nameString(255).openapi({ example: "customers" }),
  })
  .openapi("DataEntityDescribeRequest");

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
