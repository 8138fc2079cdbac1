import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts, users } from "./accounts";
import { trustedAccessClients } from "./trusted-access";

/**
 * Bearer tokens, issued by the trusted-access token endpoints. Only the SHA-256 digest of a token
 * is stored (hex, the primary key a bearer request is looked up by); `token_id` is its public
 * name, safe to show and log, by which the supervisor may revoke it. Revoking is deleting the row:
 * nothing caches a verified token, so the next request anywhere finds nothing.
 * `expires_at` is in milliseconds since the epoch.
 */
export const accessTokens = sqliteTable(
  "access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    tokenId: text("token_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    clientId: text("client_id")
      .notNull()
      .references(() => trustedAccessClients.clientId, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [
    uniqueIndex("access_tokens_token_id_unique").on(t.tokenId),
    index("access_tokens_user").on(t.userId),
    index("access_tokens_account").on(t.accountId),
    index("access_tokens_client").on(t.clientId),
    // Issuing a token also sweeps a few expired ones, found by this index.
    index("access_tokens_expires").on(t.expiresAt),
  ],
);
