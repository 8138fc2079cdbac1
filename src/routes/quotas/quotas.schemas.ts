import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { duplicateTypes, QUOTA_TYPES } from "../../domain/quota";
import { auditMembers } from "../../lib/openapi";

export const QuotaTypeSchema = z.enum(QUOTA_TYPES).openapi("QuotaType");

export const QuotaSchema = z
  .strictObject({
    accountId: z.string(),
    quotas: z.array(
      z.strictObject({
        type: QuotaTypeSchema,
        limit: z.number().int(),
        consumption: z.number().int().openapi({ readOnly: true, description: "Live count of the type's objects (bytes for FILE_SIZE)." }),
      }),
    ),
    ...auditMembers,
  })
  .openapi("Quota");

export const QuotaWriteSchema = z
  .strictObject(withReadOnlyMembers(QuotaSchema, {
    accountId: z.string().min(1).max(64),
    quotas: z
      .array(
        z.strictObject({
          type: QuotaTypeSchema,
          limit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
          consumption: z.number().optional().openapi({ description: "Read-only: ignored when sent." }),
        }),
      )
      .min(1)
      .max(QUOTA_TYPES.length)
      .superRefine((lines, ctx) => {
        const dup = duplicateTypes(lines.map((l) => l.type));
        lines.forEach((l, i) => {
          if (dup.includes(l.type)) ctx.addIssue({ code: "custom", path: [i, "type"], message: `Quota type ${l.type} appears more than once` });
        });
      }),
  }))
  .openapi("QuotaWrite", { example: { accountId: "00000000-0000-4000-8000-000000000001", quotas: [{ type: "CONNECTION", limit: 20 }] } });

export const AccountIdParamSchema = z.object({
  accountId: z.string().min(1).max(64).openapi({ param: { name: "accountId", in: "path" } }),
});
