import { sql } from "drizzle-orm";
import { check, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts, users } from "./accounts";

/**
 * Trusted-access clients: the supervisor's objects, owned by no account. A client authenticates
 * with HTTP Basic (client_id, client_secret) to mint bearer tokens for users (access_tokens).
 * Secrets are stored only as SHA-256 digests (hex): they are 256-bit random values, so a slow
 * hash would add nothing but cost. Times of secrets are in SECONDS since the epoch, as RFC 7591
 * gives `client_secret_expires_at` (0 = never); access_tokens.expires_at is in milliseconds.
 */
export const trustedAccessClients = sqliteTable(
  "trusted_access_clients",
  {
    clientId: text("client_id").primaryKey(),
    clientName: text("client_name").notNull(),
    accessTokenValiditySeconds: integer("access_token_validity_seconds").notNull(),
    secretDigest: text("secret_digest").notNull(),
    clientSecretExpiresAt: integer("client_secret_expires_at").notNull().default(0),
    /** The secret before the last rotation, still accepted until previous_secret_expires_at (a grace period), else null. */
    previousSecretDigest: text("previous_secret_digest"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    /** JSON array of the account ids the client may mint tokens in; null: every account. */
    accountIds: text("account_ids", { mode: "json" }).$type<string[] | null>(),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("trusted_access_clients_name_unique").on(t.clientName),
    check("trusted_access_clients_validity", sql`${t.accessTokenValiditySeconds} BETWEEN 1 AND 2592000`),
    check("trusted_access_clients_secret_expiry", sql`${t.clientSecretExpiresAt} >= 0`),
  ],
);

/**
 * Attributes a trusted client pushes with a user (`attributes[{key, values}]` of the push token
 * request), replaced as a whole by each push that carries them. Kept for the features that read
 * user attributes (connection parameters marked userAttribute); the user API does not show them.
 */
export const userAttributes = sqliteTable(
  "user_attributes",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    attributeKey: text("attribute_key").notNull(),
    /** JSON array of strings (at most one, as the reference product allows). */
    attributeValues: text("attribute_values", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.attributeKey] })],
);
