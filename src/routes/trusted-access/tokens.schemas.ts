import { z } from "@hono/zod-openapi";
import { nameString, textString } from "../../lib/text-schemas";
import { UsernameSchema } from "../users/users.schemas";

/**
 * The token endpoints' bodies (names as in the reference product) and their answer, an OAuth 2.0
 * access token response (RFC 6749 section 5.1) with the token's public id beside it.
 */
const AccountNameSchema = nameString(255).openapi({ description: "The account's NAME (not its id)." });

const UserAttributeSchema = z
  .strictObject({
    key: nameString(255),
    values: z.array(textString(1024)).max(1).openapi({ description: "At most one value, as in the reference product." }),
  })
  .openapi("UserAttribute");

const MAX_ATTRIBUTES = 100;

const UserAttributeListSchema = z
  .array(UserAttributeSchema)
  .max(MAX_ATTRIBUTES)
  .superRefine((attributes, ctx) => {
    const seen = new Set<string>();
    attributes.forEach((a, i) => {
      if (seen.has(a.key)) ctx.addIssue({ code: "custom", path: [i, "key"], message: `The key '${a.key}' is given twice` });
      seen.add(a.key);
    });
  });

/** The map the reference product's clients send (isw-da/composer-mcp mint_push_token): key to one value, bare or in a list. */
const UserAttributeMapSchema = z
  .record(nameString(255), z.union([textString(1024), z.array(textString(1024)).max(1, "At most one value, as in the reference product")]))
  .refine((map) => Object.keys(map).length <= MAX_ATTRIBUTES, `At most ${MAX_ATTRIBUTES} attributes`)
  .openapi("UserAttributeMap");

const attributeListOf = (map: Record<string, string | string[]>) =>
  Object.entries(map).map(([key, value]) => ({ key, values: typeof value === "string" ? [value] : value }));

export const AccessTokenPushRequestSchema = z
  .strictObject({
    username: UsernameSchema.openapi({ description: "Created in the account if no user has this name; updated if it is a user of the account." }),
    account: AccountNameSchema,
    fullname: nameString(255).optional().openapi({ description: "Replaces the user's full name; omitted: kept (none for a new user)." }),
    email: z.email().max(255).optional().openapi({ description: "Replaces the user's email; omitted: kept (none for a new user)." }),
    groups: z
      .array(nameString(255))
      .max(100)
      .optional()
      .openapi({
        description:
          "Names of groups of the account. Given, they REPLACE the user's memberships (an empty list removes them all); omitted, an existing " +
          "user keeps its groups and a new one joins `Users`. An unknown name is `invalid_request`.",
      }),
    attributes: z
      .union([UserAttributeListSchema, UserAttributeMapSchema])
      .transform((given) => (Array.isArray(given) ? given : attributeListOf(given)))
      .optional()
      .openapi({
        description:
          "Replace the user's attributes as a whole; omitted: kept. A list of `{key, values}` (keys unique), or the reference product's map " +
          "`{\"key\": \"value\"}` / `{\"key\": [\"value\"]}` (the same attributes: a string is its one value).",
      }),
  })
  .openapi("AccessTokenPushRequest", {
    example: { username: "jsmith", account: "Default", fullname: "John Smith", email: "jsmith@acme.example", groups: ["Users"], attributes: [{ key: "region", values: ["EMEA"] }] },
  });

export const AccessTokenPullRequestSchema = z
  .strictObject({
    username: UsernameSchema.openapi({ description: "An existing user (usernames are unique across accounts)." }),
    account: AccountNameSchema.optional().openapi({ description: "The user's account NAME; omitted: the user's own account." }),
  })
  // The user the push example makes: a pull token is only issued for an existing user.
  .openapi("AccessTokenPullRequest", { example: { username: "jsmith", account: "Default" } });

export const AccessTokenResponseSchema = z
  .strictObject({
    access_token: z.string().openapi({ description: "Send it as `Authorization: Bearer <access_token>` (bearerAuth). 256 random bits, base64url; shown only here." }),
    expires_in: z.number().int().openapi({ description: "Its lifetime in seconds: the client's access_token_validity_seconds." }),
    token_type: z.literal("bearer"),
    token_id: z.string().openapi({ description: "The token's public id (a UUID), safe to log: revoke it with `DELETE /api/trusted-access/tokens/{tokenId}`." }),
  })
  .openapi("AccessTokenResponse");

export const TokenIdParamSchema = z.object({
  tokenId: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "tokenId", in: "path" }, description: "The token's token_id, or the access token itself.", example: "0b1d4f5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f" }),
});

export type PushRequest = z.infer<typeof AccessTokenPushRequestSchema>;
export type PullRequest = z.infer<typeof AccessTokenPullRequestSchema>;
