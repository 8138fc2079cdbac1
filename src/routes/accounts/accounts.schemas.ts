import { z } from "@hono/zod-openapi";
import { auditMembers } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";

const AttributeSchema = z.object({
  key: nameString(255),
  value: textString(4096)
    .optional()
    .openapi({ description: "Write-only when isSecured: never returned. Omit it on update to keep the stored value." }),
  isSecured: z.boolean().default(false),
});

export const AccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    disabled: z.boolean(),
    numberOfUsers: z.number().int().openapi({ readOnly: true }),
    replyToAddress: z.string().nullable(),
    senderDisplayName: z.string().nullable(),
    attributes: z.array(AttributeSchema),
    ...auditMembers,
  })
  .openapi("Account");

export const AccountWriteSchema = z
  .object({
    id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
    name: nameString(255, { trim: true }),
    disabled: z.boolean().default(false),
    replyToAddress: z.email().max(255).nullable().optional(),
    senderDisplayName: nameString(255, { allowEmpty: true }).nullable().optional(),
    attributes: z
      .array(AttributeSchema)
      .max(100)
      .default([])
      .refine((list) => new Set(list.map((a) => a.key)).size === list.length, "Attribute keys must be unique"),
  })
  .openapi("AccountWrite");

export const AccountListSchema = z.object({ content: z.array(AccountSchema) }).openapi("AccountList");

export const AccountNameParamSchema = z.object({
  name: z.string().min(1).max(255).openapi({ param: { name: "name", in: "path" }, example: "Acme" }),
});

export type AccountWrite = z.infer<typeof AccountWriteSchema>;
