import { z } from "@hono/zod-openapi";
import {
  MAX_CLIENT_ACCOUNTS,
  MAX_EXPIRES_AT_SECONDS,
  MAX_SECRET_GRACE_SECONDS,
  MAX_TOKEN_VALIDITY_SECONDS,
  nowInSeconds,
  TOKEN_ENDPOINT_AUTH_METHOD,
} from "../../domain/trusted-access";
import { nameString } from "../../lib/text-schemas";

/**
 * Trusted-access clients, with the member names of OAuth 2.0 Dynamic Client Registration
 * (RFC 7591): the spec's TrustedAccessClient, plus `client_id_issued_at` (RFC 7591), the account
 * restriction and the grace period of the last rotation.
 */
const ValiditySchema = z
  .number()
  .int()
  .min(1)
  .max(MAX_TOKEN_VALIDITY_SECONDS)
  .openapi({ description: "How long each access token this client issues lives, in seconds: 1 to 2,592,000 (30 days)." });

const ExpiresAtSchema = z
  .number()
  .int()
  .min(0)
  .max(MAX_EXPIRES_AT_SECONDS)
  .refine((at) => at === 0 || at > nowInSeconds(), "Must be 0 (never) or a time in the future, in seconds since the epoch")
  .openapi({
    description:
      "When the client secret stops working, in seconds since 1970-01-01T00:00:00Z (RFC 7591); 0: never. When set, a time in the future. " +
      "Past it, the client cannot authenticate until its secret is rotated.",
  });

const AccountIdsSchema = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(MAX_CLIENT_ACCOUNTS)
  .openapi({
    description:
      "Restricts the client to these accounts (ids, at most 100): it mints tokens for their users only, and is told `unauthorized_client` for any other. " +
      "Omitted or null: every account.",
  });

const ClientNameSchema = nameString(255).openapi({ description: "Unique among clients (409 when taken)." });

export const TrustedAccessClientSchema = z
  .strictObject({
    client_name: z.string(),
    access_token_validity_seconds: z.number().int(),
    client_id: z.string().openapi({ description: "Made by the service (a UUID): the username of the client's Basic credentials, and the `{id}` of its paths." }),
    client_secret: z.string().optional().openapi({
      description:
        "256 random bits, base64url. Present ONLY in the answers of create and rotate (`POST .../clients`, `POST .../clients/{id}/secret`): " +
        "the service keeps only its SHA-256 and can never show it again.",
      "x-issued-once": true,
    }),
    client_secret_expires_at: z.number().int().openapi({ description: "When the client secret stops working (seconds since the epoch); 0: never." }),
    token_endpoint_auth_method: z.literal(TOKEN_ENDPOINT_AUTH_METHOD).openapi({ description: "HTTP Basic with client_id and client_secret (RFC 6749 section 2.3.1)." }),
    client_id_issued_at: z.number().int().openapi({ description: "When the client was created (seconds since the epoch, RFC 7591)." }),
    account_ids: z.array(z.string()).nullable().openapi({ description: "The accounts the client is restricted to; null: every account." }),
    previous_client_secret_expires_at: z.number().int().nullable().openapi({
      description: "Until when the secret replaced by the last rotation works (seconds since the epoch); null when that rotation gave no grace period.",
    }),
  })
  .openapi("TrustedAccessClient");

export const TrustedAccessClientListSchema = z.strictObject({ content: z.array(TrustedAccessClientSchema) }).openapi("TrustedAccessClientList");

export const TrustedAccessClientCreateSchema = z
  .strictObject({
    client_name: ClientNameSchema,
    access_token_validity_seconds: ValiditySchema,
    client_secret_expires_at: ExpiresAtSchema.default(0),
    token_endpoint_auth_method: z.literal(TOKEN_ENDPOINT_AUTH_METHOD).optional().openapi({ description: "The only method offered; may be omitted." }),
    account_ids: AccountIdsSchema.nullable().optional(),
  })
  .openapi("TrustedAccessClientCreate", {
    example: { client_name: "Portal", access_token_validity_seconds: 3600, client_secret_expires_at: 0, account_ids: ["00000000-0000-4000-8000-000000000001"] },
  });

export const TrustedAccessClientUpdateSchema = z
  .strictObject({
    client_name: ClientNameSchema.optional(),
    access_token_validity_seconds: ValiditySchema.optional().openapi({ description: "For tokens issued from now on; issued ones keep their expiry." }),
    client_secret_expires_at: ExpiresAtSchema.optional(),
    account_ids: AccountIdsSchema.nullable().optional().openapi({
      description: "Replaces the restriction (null lifts it). Tokens the client issued in accounts it no longer serves are revoked at once.",
    }),
  })
  .openapi("TrustedAccessClientUpdate");

export const SecretRotationSchema = z
  .strictObject({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_SECRET_GRACE_SECONDS)
      .default(0)
      .openapi({
        description:
          "How long the replaced secret keeps working beside the new one, in seconds (at most 30 days, never past its own expiry). " +
          "0 (the default): it stops working at once. Only the secret replaced last has a grace period.",
      }),
    client_secret_expires_at: ExpiresAtSchema.default(0).openapi({ description: "When the NEW secret stops working (seconds since the epoch); 0 (the default): never." }),
    revoke_tokens: z.boolean().default(false).openapi({ description: "Also revoke every token the client has issued (for a leaked secret). Default: tokens keep working." }),
  })
  .openapi("TrustedAccessSecretRotation");

export type ClientCreate = z.infer<typeof TrustedAccessClientCreateSchema>;
