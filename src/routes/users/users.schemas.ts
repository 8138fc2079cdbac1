import { z } from "@hono/zod-openapi";
import { PRIVILEGES } from "../../domain/privileges";
import { auditMembers, PageQuerySchema, pagedList } from "../../lib/openapi";
import { ignoredMember, withReadOnlyMembers } from "../../lib/closed-bodies";
import { nameString } from "../../lib/text-schemas";

export const PrivilegeSchema = z.enum(PRIVILEGES).openapi("Privilege");

// A Basic username cannot contain ':' and control characters have no place in a name.
export const UsernameSchema = nameString(255).regex(/^[^:]*$/, "Must not contain ':'");

export const UserSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    fullName: z.string().nullable(),
    email: z.string().nullable(),
    accountId: z.string(),
    groups: z.array(z.string()).openapi({ description: "Names of the account's groups the user belongs to." }),
    roles: z.array(PrivilegeSchema).openapi({ description: "Extra privileges granted to the user directly." }),
    ...auditMembers,
  })
  .openapi("User");

const userWriteMembers = {
  id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
  name: UsernameSchema,
  fullName: nameString(255, { allowEmpty: true }).nullable().optional(),
  fullname: nameString(255, { allowEmpty: true })
    .nullable()
    .optional()
    .openapi({ description: "Alias: the reference product's name of `fullName`. Both may be given only with the same value." }),
  email: z.email().max(255).nullable().optional(),
  accountId: z.string().min(1).max(64).optional().openapi({
    description: "The user's account. Account admins may only name their own; the supervisor names any (default account if omitted).",
  }),
  groups: z.array(nameString(255)).max(100).default(["Users"]),
  roles: z.array(PrivilegeSchema).max(PRIVILEGES.length).default([]),
  // Read-only members of the reference product's UserResource, which its clients send back with a user they read.
  ...Object.fromEntries(
    ["userId", "activeGroups", "activeRoles", "deletable", "availableAttributeKeys"].map((name) => [
      name,
      ignoredMember(`The reference product's read-only UserResource.${name}: ignored.`, { readOnly: true }),
    ]),
  ),
};

export const UserCreateSchema = z
  .strictObject(withReadOnlyMembers(UserSchema, { ...userWriteMembers, password: z.string().min(8).max(256).openapi({ writeOnly: true }) }))
  .openapi("UserCreate", {
    example: { name: "jdoe", fullName: "Jane Doe", email: "jdoe@acme.example", password: "correct horse battery", accountId: "00000000-0000-4000-8000-000000000001", groups: ["Users"], roles: [] },
  });

export const UserUpdateSchema = z
  .strictObject(
    withReadOnlyMembers(UserSchema, {
      ...userWriteMembers,
      password: z.string().min(8).max(256).optional().openapi({ writeOnly: true, description: "Omit to keep the current password." }),
    }),
  )
  .openapi("UserUpdate");

export const UserListQuerySchema = PageQuerySchema.extend({
  accountId: z.string().min(1).max(64).optional().openapi({ description: "Supervisor only: the account to list (default account otherwise)." }),
});

export const UserDeleteQuerySchema = z.object({
  transferTo: z.string().min(1).max(64).optional().openapi({
    description:
      "A user of the same account who takes over what the deleted user owns (its sources and shared folders), in the delete's own transaction. Without it, deleting a user who owns any is 409 USER_OWNS_OBJECTS listing them.",
  }),
});

export const UserPageSchema = pagedList(UserSchema, "UserPage");

export type UserWrite = z.infer<typeof UserCreateSchema> | z.infer<typeof UserUpdateSchema>;
