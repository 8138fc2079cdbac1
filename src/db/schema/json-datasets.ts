import { sql } from "drizzle-orm";
import { check, foreignKey, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { audit, version } from "./columns";
import { accounts } from "./accounts";

/**
 * JSON datasets. The dataset row holds what the API shows besides `data`, and points at the
 * version of `data` that is current; the data text itself lives in json_dataset_chunks, cut on
 * character boundaries into pieces that each stay far under D1's 2,000,000-byte limit on a string
 * and a row (db/json-datasets.ts). `data_bytes` is the text's UTF-8 length: the FILE_SIZE quota sums it.
 */
export const jsonDatasets = sqliteTable(
  "json_datasets",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    /** The version whose chunks are the current data (json_dataset_chunks.version). */
    dataVersion: text("data_version").notNull(),
    dataBytes: integer("data_bytes").notNull(),
    chunkCount: integer("chunk_count").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    // Names are unique per account, case-sensitive; the index also pages the list by name.
    uniqueIndex("json_datasets_account_name_unique").on(t.accountId, t.name),
    // The parent key of the chunks' (account_id, dataset_id): a chunk belongs to a dataset of its own account.
    uniqueIndex("json_datasets_account_id_unique").on(t.accountId, t.id),
    check("json_datasets_sizes", sql`${t.dataBytes} >= 0 AND ${t.chunkCount} >= 1`),
  ],
);

/**
 * The pieces of each version of a dataset's data text, in `seq` order. A write adds the new
 * version's pieces, moves the dataset's pointer and deletes the old version's pieces in one batch,
 * so a reader sees either the old version whole or the new one whole.
 */
export const jsonDatasetChunks = sqliteTable(
  "json_dataset_chunks",
  {
    datasetId: text("dataset_id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    version: text("version").notNull(),
    seq: integer("seq").notNull(),
    data: text("data").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.version, t.seq] }),
    foreignKey({ columns: [t.accountId, t.datasetId], foreignColumns: [jsonDatasets.accountId, jsonDatasets.id] }).onDelete("cascade"),
  ],
);
