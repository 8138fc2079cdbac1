import { z } from "@hono/zod-openapi";
import { UsernameSchema } from "../users/users.schemas";

export const AccountIdParamSchema = z.object({
  accountId: z.string().min(1).max(64).openapi({ param: { name: "accountId", in: "path" }, example: "00000000-0000-4000-8000-000000000001" }),
});

/** The reference product's UserViewResource: a user named by id and name. */
export const UserViewSchema = z
  .object({ id: z.string(), name: z.string() })
  .openapi("UserView", { description: "A user of the account, by id and name." });

export const UserViewListSchema = z.array(UserViewSchema).openapi("UserViewList");

/** What a PUT names: a user by its id, its name, or both (then they must agree). */
const UserRefSchema = z
  .strictObject({
    id: z.string().min(1).max(64).optional(),
    name: UsernameSchema.optional(),
  })
  .refine((ref) => ref.id !== undefined || ref.name !== undefined, { message: "Name the user by its id or its name", path: ["id"] })
  .openapi("UserRef");

export const MAX_LISTED_USERS = 10_000;

export const UserRefListSchema = z
  .array(UserRefSchema)
  .max(MAX_LISTED_USERS)
  .openapi("UserRefList", { description: "The whole list, as the reference product's clients send it: `[{id, name}, ...]` (a flat array)." });

export type UserRef = z.infer<typeof UserRefSchema>;
