import { sql } from "drizzle-orm";
import { text } from "drizzle-orm/sqlite-core";

/** The four audit columns every tenant-owned table carries. */
export const audit = {
  createdByUserId: text("created_by_user_id").notNull(),
  createdDate: text("created_date").notNull(),
  lastModifiedByUserId: text("last_modified_by_user_id").notNull(),
  lastModifiedDate: text("last_modified_date").notNull(),
};

/**
 * A random token replaced by every write; the ETag is derived from it. Being unique per write,
 * it also lets the later statements of a batch check that the batch's own guarded update won.
 */
export const version = { revision: text("revision").notNull().default(sql`(lower(hex(randomblob(8))))`) };
