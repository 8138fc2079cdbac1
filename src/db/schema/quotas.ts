import { sql } from "drizzle-orm";
import { check, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

export const quotas = sqliteTable("quotas", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id, { onDelete: "cascade" }),
  ...version,
  ...audit,
});

export const quotaLimits = sqliteTable(
  "quota_limits",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => quotas.accountId, { onDelete: "cascade" }),
    type: text("type").notNull(),
    limitValue: integer("limit_value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.type] }),
    check(
      "quota_limits_type",
      sql`${t.type} IN ('CONNECTION','SOURCE','VISUAL','DASHBOARD','SELF_SERVICE_REPORT','SCHEDULE','FILE_SIZE')`,
    ),
    check("quota_limits_non_negative", sql`${t.limitValue} >= 0`),
  ],
);

/**
 * Never holds a row: its CHECK constraint refuses every insert. A write batch starts with a
 * statement that inserts here only when the account would pass a quota (db/quota.ts), so the
 * count and the write happen in one transaction and an exceeded quota rolls the batch back.
 */
export const quotaGuard = sqliteTable(
  "quota_guard",
  { type: text("type").notNull() },
  () => [check("quota_exceeded", sql`0`)],
);
