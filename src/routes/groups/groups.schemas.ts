import { ignoredMember, withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { PRIVILEGES } from "../../domain/privileges";
import { auditMembers, PageQuerySchema, pagedList } from "../../lib/openapi";
import { PrivilegeSchema } from "../users/users.schemas";
import { nameString, textString } from "../../lib/text-schemas";

export const GroupSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    privileges: z.array(PrivilegeSchema),
    accountId: z.string(),
    builtIn: z.boolean().openapi({ readOnly: true, description: "Administrators and Users: cannot be deleted or renamed." }),
    ...auditMembers,
  })
  .openapi("Group");

const PrivilegesSchema = z.array(PrivilegeSchema).max(PRIVILEGES.length);

export const GroupWriteSchema = z
  .strictObject(withReadOnlyMembers(GroupSchema, {
    id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
    name: nameString(255).optional().openapi({ description: "Required, here or as `label`." }),
    label: nameString(255)
      .optional()
      .openapi({ description: "Alias: the reference product's name of `name` (its GroupResource). Both may be given only with the same value." }),
    description: textString(1024).nullable().optional(),
    privileges: PrivilegesSchema.optional().openapi({ default: [] }),
    roles: PrivilegesSchema.optional().openapi({
      description: "Alias: the reference product's name of `privileges` (its GroupResource). Both may be given only with the same value.",
    }),
    system: ignoredMember("The reference product's read-only `system` (our `builtIn`): ignored.", { readOnly: true }),
    accountId: z.string().min(1).max(64).optional().openapi({
      description: "The group's account. Account admins may only name their own; the supervisor names any (default account if omitted).",
    }),
  }))
  .openapi("GroupWrite", {
    example: { name: "Analysts", description: "Build and share dashboards", privileges: ["ROLE_CREATE_SOURCES", "ROLE_CREATE_FOLDERS"], accountId: "00000000-0000-4000-8000-000000000001" },
  });

export const GroupListQuerySchema = PageQuerySchema.extend({
  accountId: z.string().min(1).max(64).optional().openapi({ description: "Supervisor only: the account to list (default account otherwise)." }),
});

export const GroupPageSchema = pagedList(GroupSchema, "GroupPage");
