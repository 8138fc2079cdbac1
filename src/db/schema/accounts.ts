import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";

/** Accounts (tenants), their users and groups. */
export interface AccountAttribute {
  key: string;
  value: string;
  isSecured: boolean;
}

export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    replyToAddress: text("reply_to_address"),
    senderDisplayName: text("sender_display_name"),
    attributes: text("attributes", { mode: "json" }).$type<AccountAttribute[]>().notNull().default(sql`'[]'`),
    /** Directory: the binding of the database holding the account's rows; NULL is the directory's own (docs/sharding.md). */
    shard: text("shard"),
    /** The shard's copy: set while a move copies the account away; its writes are refused meanwhile. */
    moving: integer("moving", { mode: "boolean" }).notNull().default(false),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("accounts_name_unique").on(t.name),
    index("accounts_shard").on(t.shard),
    // The default account can never be disabled, whatever the application does.
    check("accounts_default_enabled", sql`NOT (${t.isDefault} AND ${t.disabled})`),
  ],
);

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    fullName: text("full_name"),
    email: text("email"),
    roles: text("roles", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    passwordAlgorithm: text("password_algorithm").notNull(),
    passwordIterations: integer("password_iterations").notNull(),
    passwordSalt: text("password_salt").notNull(),
    passwordHash: text("password_hash").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    // Usernames are unique across the installation: Basic credentials carry no account.
    uniqueIndex("users_name_unique").on(t.name),
    index("users_account_name").on(t.accountId, t.name),
    check("users_iterations_cap", sql`${t.passwordIterations} BETWEEN 1 AND 100000`),
  ],
);

export const groups = sqliteTable(
  "groups",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    privileges: text("privileges", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    builtIn: integer("built_in", { mode: "boolean" }).notNull().default(false),
    ...version,
    ...audit,
  },
  (t) => [uniqueIndex("groups_account_name_unique").on(t.accountId, t.name)],
);

export const userGroups = sqliteTable(
  "user_groups",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    groupId: text("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index("user_groups_group").on(t.groupId)],
);
