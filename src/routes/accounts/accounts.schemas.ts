import { z } from "@hono/zod-openapi";
import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { auditMembers } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";

const AttributeSchema = z.strictObject({
  key: nameString(255),
  value: textString(4096)
    .optional()
    .openapi({ description: "Write-only when isSecured: never returned. Omit it on update to keep the stored value." }),
  isSecured: z.boolean().default(false),
});

export const AccountSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    disabled: z.boolean(),
    numberOfUsers: z.number().int().openapi({ readOnly: true }),
    shard: z.string().openapi({
      readOnly: true,
      description: "The D1 binding of the database that holds the account's rows (`SHARDS`, docs/sharding.md); moved by POST /api/accounts/{id}/move.",
    }),
    replyToAddress: z.string().nullable(),
    senderDisplayName: z.string().nullable(),
    attributes: z.array(AttributeSchema),
    links: z
      .array(z.strictObject({ rel: z.literal("self"), href: z.string() }).openapi("AccountLink"))
      .openapi({
        readOnly: true,
        description:
          "`[{rel: \"self\", href}]`: the account's own path (as in `Location`). Older clients of the reference product (its v2 API's " +
          "hypermedia links) read the account's id from the end of `links[0].href`.",
      }),
    ...auditMembers,
  })
  .openapi("Account");

const AttributesSchema = z
  .array(AttributeSchema)
  .max(100)
  .refine((list) => new Set(list.map((a) => a.key)).size === list.length, "Attribute keys must be unique");

const writeMembers = {
  id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
  name: nameString(255),
  replyToAddress: z.email().max(255).nullable().optional(),
  senderDisplayName: nameString(255, { allowEmpty: true }).nullable().optional(),
};

export const AccountWriteSchema = z
  .strictObject(withReadOnlyMembers(AccountSchema, { ...writeMembers, disabled: z.boolean().default(false), attributes: AttributesSchema.default([]) }))
  .openapi("AccountWrite");

/**
 * POST takes the account's members at the top level, or inside `account` as the reference
 * product's AccountUserResource does (`{account: {...}, users: []}`). Without defaults here, so
 * that the handler can tell which way they came (src/lib/aliases.ts).
 */
export const AccountCreateSchema = z
  .strictObject(withReadOnlyMembers(AccountSchema, {
    ...writeMembers,
    name: writeMembers.name.optional().openapi({ description: "Required, here or inside `account`." }),
    disabled: z.boolean().optional().openapi({ default: false }),
    attributes: AttributesSchema.optional().openapi({ default: [] }),
    account: AccountWriteSchema.optional().openapi({
      description:
        "Alias: the reference product's AccountUserResource carries the account's members in `account` instead of at the top level. " +
        "Give them in one place or the other, not both.",
    }),
    users: z
      .array(z.unknown())
      .max(0, "Existing users cannot join a new account: users never change account here. Create them in it (POST /api/users).")
      .optional()
      .openapi({ description: "AccountUserResource's existing users to attach: accepted only empty, since a user never changes account here." }),
  }))
  // The reference page prefills this instead of every member (it filled both `name` and the alias `account.name`: a 400).
  .openapi("AccountCreate", { example: { name: "Acme", replyToAddress: "analytics@acme.example", senderDisplayName: "Acme Analytics" } });

export const AccountListSchema = z.strictObject({ content: z.array(AccountSchema) }).openapi("AccountList");

export const AccountNameParamSchema = z.object({
  name: z.string().min(1).max(255).openapi({ param: { name: "name", in: "path" }, example: "Acme" }),
});

export type AccountWrite = z.infer<typeof AccountWriteSchema>;
export type AccountCreate = z.infer<typeof AccountCreateSchema>;

export const AccountMoveSchema = z
  .strictObject({
    shard: z.string().min(1).max(64).openapi({ description: "The binding of the database to move the account to: one of `SHARDS`." }),
  })
  .openapi("AccountMove", { example: { shard: "DB" } });

export const AccountMoveResultSchema = z
  .strictObject({
    id: z.string(),
    from: z.string().openapi({ description: "The shard the account was on." }),
    shard: z.string().openapi({ description: "The shard the account is on now." }),
    moved: z.boolean().openapi({ description: "False when the account was already there: nothing was copied." }),
    tables: z
      .array(z.strictObject({ table: z.string(), rows: z.number().int() }))
      .openapi({ description: "The rows copied per table, each checked by count and digest on both shards; empty when nothing was copied, or for a resumed move that had already switched." }),
  })
  .openapi("AccountMoveResult");
