import { defineRoute, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import { AccessTokenPullRequestSchema, AccessTokenPushRequestSchema, AccessTokenResponseSchema, TokenIdParamSchema } from "./tokens.schemas";

const tags = ["Trusted access"];
const errorBody = "oauth";
/** The token endpoints authenticate the client (trustedAccessAuth), not a user. */
const client = { kind: "trustedClient" } as const;
const tokenErrors = ["INVALID_GRANT", "UNAUTHORIZED_CLIENT", "ACCESS_DENIED"] as const;

/** RFC 6749 section 5.1: the token, never to be cached. */
const tokenResponse = {
  ...jsonContent(AccessTokenResponseSchema, "The token (RFC 6749 section 5.1), shown this once"),
  headers: { "Cache-Control": { description: "`no-store`", required: true, schema: { type: "string" as const } } },
};

const WHERE_TOKENS_GO =
  "Authenticate the trusted-access client with HTTP Basic (client_id, client_secret: trustedAccessAuth). " +
  "The answer's access_token then signs its user in on every other endpoint as `Authorization: Bearer <access_token>` (bearerAuth), " +
  "with exactly that user's privileges, for expires_in seconds (the client's access_token_validity_seconds), until it is revoked " +
  "(DELETE /api/trusted-access/tokens/{tokenId}; deleting the client or the user, or disabling the account, revokes it too). " +
  "Never for the supervisor's name, nor for a user of a disabled account (403 access_denied).";

export const push = defineRoute({
  method: "post",
  path: "/push/tokens",
  tags,
  summary: "Create or update a user from the request, and issue a bearer token for it",
  description:
    `${WHERE_TOKENS_GO} The user is created in the named account if no user has the name (with no usable password), or updated if it is a user ` +
    "of that account; a username of another account is `invalid_grant`.",
  access: client,
  errorBody,
  errors: [...tokenErrors],
  request: { body: jsonBody(AccessTokenPushRequestSchema) },
  responses: { 200: tokenResponse },
});

export const pull = defineRoute({
  method: "post",
  path: "/pull/tokens",
  tags,
  summary: "Issue a bearer token for an existing user",
  description: WHERE_TOKENS_GO,
  access: client,
  errorBody,
  errors: [...tokenErrors],
  request: { body: jsonBody(AccessTokenPullRequestSchema) },
  responses: { 200: tokenResponse },
});

export const revoke = defineRoute({
  method: "delete",
  path: "/{tokenId}",
  tags,
  summary: "Revoke a bearer token, named by its token_id or by the token itself: refused on the very next request",
  description: "Prefer the token_id: a token in a URL may be kept in the logs of proxies on the way (this service's own log lines replace it by `{token}`).",
  access: { kind: "supervisor" },
  errorBody,
  errors: ["NOT_FOUND"],
  request: { params: TokenIdParamSchema },
  responses: { 204: noContent },
});
