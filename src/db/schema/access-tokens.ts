import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts, users } from "./accounts";

/** Bearer tokens, stored as SHA-256 digests. Issued by the trusted-access endpoints. */
export const accessTokens = sqliteTable(
  "access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    clientId: text("client_id"),
    expiresAt: integer("expires_at").notNull(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("access_tokens_user").on(t.userId)],
);
