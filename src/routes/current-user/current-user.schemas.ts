import { z } from "@hono/zod-openapi";
import { orNull } from "../../lib/openapi";
import { PrivilegeSchema } from "../users/users.schemas";

/**
 * Who is calling, as GET /api/user answers it. Member names follow the reference product's
 * UserResource where it has one (`fullname`, `accountId`, `activeGroups`, `activeRoles`).
 */
export const CurrentUserSchema = z
  .strictObject({
    id: z.string().openapi({ description: "The user's id; `supervisor` for the supervisor." }),
    name: z.string().openapi({ description: "The username it signs in with." }),
    fullname: z.string().nullable().openapi({ description: "The full name (a User's `fullName`, spelled as the reference product spells it here)." }),
    email: z.string().nullable(),
    accountId: z.string().nullable().openapi({ description: "The caller's account; null for the supervisor, who belongs to none." }),
    account: orNull(z.strictObject({ id: z.string(), name: z.string() }).openapi("CurrentUserAccount")),
    activeGroups: z.array(z.string()).openapi({ description: "Names of the groups it belongs to." }),
    roles: z.array(PrivilegeSchema).openapi({ description: "Extra privileges granted to the user directly (a User's `roles`)." }),
    activeRoles: z.array(PrivilegeSchema).openapi({
      description:
        "Its effective privileges, with which this request was authorized: its roles and its groups' privileges, every privilege for an " +
        "administrator (ROLE_ADMIN holds them all), the user and group administration the supervisor exercises in every account.",
    }),
    supervisor: z.boolean().openapi({ description: "True for the supervisor (global authority over accounts, quotas, connection types, trusted access)." }),
    signedInWith: z.enum(["basic", "bearer"]).openapi({ description: "How the caller authenticated: HTTP Basic, or a trusted-access bearer token." }),
  })
  .openapi("CurrentUser");

export type CurrentUser = z.infer<typeof CurrentUserSchema>;
