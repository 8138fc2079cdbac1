import { compiled, placeholders } from "./compiled";
import { groups } from "./schema";

/**
 * A group's row, compiled once per isolate (db/compiled.ts): a group's POST and an account's
 * creation (its two built-in groups) insert it.
 */
export const insertGroup = compiled((db) =>
  db.insert(groups).values(placeholders("id", "revision", "accountId", "name", "description", "privileges", "builtIn", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate")),
);
