import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { TypeParameter } from "../../domain/connectors/connection-parameters";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

/**
 * Connection types: installation-wide (the supervisor's), not owned by an account. Each names the
 * connector that serves its connections and declares the parameters they take. The built-in types,
 * one per connector, are inserted by the migration with their connector's id as their id.
 */
export const connectionTypes = sqliteTable(
  "connection_types",
  {
    id: text("id").primaryKey(),
    connectorId: text("connector_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    type: text("type").notNull(),
    subStorageType: text("sub_storage_type").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledMessage: text("disabled_message"),
    minSupportedVersion: text("min_supported_version"),
    maxSupportedVersion: text("max_supported_version"),
    onPremise: integer("on_premise", { mode: "boolean" }).notNull().default(false),
    parameters: text("parameters", { mode: "json" }).$type<TypeParameter[]>().notNull().default(sql`'[]'`),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("connection_types_name_unique").on(t.name),
    // Matching by type and parameters looks types up by type and subStorageType.
    index("connection_types_storage").on(t.type, t.subStorageType),
  ],
);

/**
 * The accounts that may use a type. A type with no row here is available to every account. No
 * foreign key to accounts (drizzle/0014): each shard keeps a copy of every type's list, naming
 * accounts that live on other shards (docs/sharding.md). An account's deletion deletes its rows
 * (db/account-owned.ts), and a list is written with existing accounts only.
 */
export const connectionTypeAccounts = sqliteTable(
  "connection_type_accounts",
  {
    typeId: text("type_id")
      .notNull()
      .references(() => connectionTypes.id, { onDelete: "cascade" }),
    accountId: text("account_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.typeId, t.accountId] }), index("connection_type_accounts_account").on(t.accountId)],
);

/**
 * A connection's parameter as stored: `value` in clear, or `sealed`, the value encrypted under
 * CONNECTION_SECRETS_KEY (domain/connectors/connection-secrets.ts) when the key is secret.
 */
export interface StoredParameter {
  key: string;
  systemAccess: boolean;
  value?: string;
  sealed?: string;
}

/**
 * An account's connections. Ids are unique per account (the client may name them, E6 PUT), so the
 * key is (account_id, id): an id taken in another account is free in this one, and reveals nothing.
 * The foreign key on the type makes the database itself refuse to delete a type still in use.
 */
export const connections = sqliteTable(
  "connections",
  {
    id: text("id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    connectionTypeId: text("connection_type_id")
      .notNull()
      .references(() => connectionTypes.id),
    parameters: text("parameters", { mode: "json" }).$type<StoredParameter[]>().notNull().default(sql`'[]'`),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    folderId: text("folder_id"),
    creatingUserName: text("creating_user_name").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.id] }),
    // Names are unique per account; the list reads an account's connections in name order through it.
    uniqueIndex("connections_account_name_unique").on(t.accountId, t.name),
    index("connections_type").on(t.connectionTypeId),
  ],
);

/**
 * Never holds a row: each CHECK refuses the one reason it is named after. A write batch carries a
 * statement that inserts a reason only when the write must be refused (db/connections.ts), so the
 * rule and the write happen in one transaction: a source naming a connection that does not exist,
 * deleting a connection that sources use, a connection written against a type that changed since
 * it was read, or naming a folder the account does not have.
 */
export type ConnectionGuardReason = "connection_missing" | "connection_in_use" | "connection_type_changed" | "connection_folder_missing";

export const connectionGuard = sqliteTable("connection_guard", { reason: text("reason").notNull() }, (t) => [
  check("connection_missing", sql`${t.reason} <> 'connection_missing'`),
  check("connection_in_use", sql`${t.reason} <> 'connection_in_use'`),
  check("connection_type_changed", sql`${t.reason} <> 'connection_type_changed'`),
  check("connection_folder_missing", sql`${t.reason} <> 'connection_folder_missing'`),
  check("connection_guard_reason", sql`${t.reason} IN ('connection_missing', 'connection_in_use', 'connection_type_changed', 'connection_folder_missing')`),
]);
