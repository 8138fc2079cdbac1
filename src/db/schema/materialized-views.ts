import { foreignKey, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";
import { connections } from "./connections";
import { sources } from "./sources";

/**
 * Materialized views (deprecated since 23.1): an aggregate query over one source, kept with the SQL
 * generated for it when it was last written (`definition_query`). `definition` and
 * `storage_settings` are JSON, as the API shapes them.
 *
 * The foreign keys hold the rules that involve other rows, in the database itself: a view's source
 * and its target connection belong to the view's account, and neither can be deleted while the
 * view names it (ON DELETE NO ACTION), so a view created while its source is deleted never
 * outlives it. A view without storage settings has no target connection (NULL: no check).
 */
export const materializedViews = sqliteTable(
  "materialized_views",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    sourceId: text("source_id").notNull(),
    definition: text("definition", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    storageSettings: text("storage_settings", { mode: "json" }).$type<Record<string, unknown>>(),
    /** storageSettings.targetStorage.connectionId, as a column so that the foreign key can hold it. */
    targetConnectionId: text("target_connection_id"),
    definitionQuery: text("definition_query").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    // Names are unique per account; the list reads an account's views in name order through it.
    uniqueIndex("materialized_views_account_name_unique").on(t.accountId, t.name),
    // A source's views: the list's sourceId filter, and the foreign key's lookup when a source is deleted.
    index("materialized_views_source").on(t.accountId, t.sourceId),
    index("materialized_views_connection").on(t.accountId, t.targetConnectionId),
    foreignKey({ columns: [t.accountId, t.sourceId], foreignColumns: [sources.accountId, sources.id] }),
    foreignKey({ columns: [t.accountId, t.targetConnectionId], foreignColumns: [connections.accountId, connections.id] }),
  ],
);
