import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

export const sources = sqliteTable(
  "sources",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    connectionId: text("connection_id"),
    features: text("features", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** The creator: it owns the source and has WRITE on it. */
    ownerUserId: text("owner_user_id"),
    fieldsSecurityEnabled: integer("fields_security_enabled", { mode: "boolean" }).notNull().default(false),
    customMetricsSecurityEnabled: integer("custom_metrics_security_enabled", { mode: "boolean" }).notNull().default(false),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("sources_account_name_unique").on(t.accountId, t.name),
    // The parent key of materialized_views (account_id, source_id): a view names a source of its own account.
    uniqueIndex("sources_account_id_unique").on(t.accountId, t.id),
    // A connection's sources: deleting a connection asks whether any source still names it.
    index("sources_connection").on(t.accountId, t.connectionId),
  ],
);

export const sourcePermissions = sqliteTable(
  "source_permissions",
  {
    sourceId: text("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    principalType: text("principal_type").notNull(),
    principalId: text("principal_id").notNull(),
    permission: text("permission").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.principalType, t.principalId] }),
    index("source_permissions_principal").on(t.principalId),
    check("source_permissions_type", sql`${t.principalType} IN ('USER','GROUP')`),
    check("source_permissions_permission", sql`${t.permission} IN ('READ','WRITE')`),
  ],
);

/**
 * A source's fields and custom metrics share one table: their names are unique across both
 * kinds, which the UNIQUE(source_id, name) index holds even against concurrent writers.
 * Members specific to a kind live in `body` (JSON), as the API shapes them.
 */
export const sourceItems = sqliteTable(
  "source_items",
  {
    id: text("id").primaryKey(),
    sourceId: text("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    dataType: text("data_type").notNull(),
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("source_items_source_name_unique").on(t.sourceId, t.name),
    // Keyset pagination of one kind of a source's items by name.
    uniqueIndex("source_items_source_kind_name").on(t.sourceId, t.kind, t.name),
    check("source_items_kind", sql`${t.kind} IN ('FIELD','METRIC')`),
  ],
);

/**
 * Which item uses which: a derived field or custom metric references the names in its
 * expression, a hierarchy its child, parent and label fields. The foreign key on the used
 * name makes the database itself refuse to delete an item that is still used.
 */
export const sourceReferences = sqliteTable(
  "source_references",
  {
    sourceId: text("source_id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    userName: text("user_name").notNull(),
    userKind: text("user_kind").notNull(),
    usedName: text("used_name").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.userName, t.usedName] }),
    index("source_references_used").on(t.sourceId, t.usedName),
    foreignKey({ columns: [t.sourceId, t.userName], foreignColumns: [sourceItems.sourceId, sourceItems.name] }).onDelete("cascade"),
    foreignKey({ columns: [t.sourceId, t.usedName], foreignColumns: [sourceItems.sourceId, sourceItems.name] }),
    check("source_references_kind", sql`${t.userKind} IN ('DERIVED_FIELD','CUSTOM_METRIC','HIERARCHY')`),
  ],
);
