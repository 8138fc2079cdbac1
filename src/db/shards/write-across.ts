import type { Context } from "hono";
import type { BatchItem } from "drizzle-orm/batch";
import type { AppEnv } from "../../lib/types";
import type { Database } from "../client";
import { log } from "../../lib/errors";
import { shardIsDirectory } from "./routing";

type Items = BatchItem<"sqlite">[];
type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

/**
 * A write that changes the directory and the account's shard (an account, a user name). Where the
 * two are one database (the default, or an account the directory's own database holds) it is one
 * batch, one transaction. Otherwise the directory's part commits first (it holds what is unique
 * across the installation: account and user names), then the shard's; if the shard's fails, `undo`
 * reverts the directory's part and the shard's error is thrown. `after`: the directory's statements
 * that follow the shard's commit (letting go of a name the write no longer holds); if they fail, the
 * write has still happened, so it is logged, not thrown (docs/sharding.md, "User names").
 * Answers the shard part's results. Each part is built on the handle it runs on: a statement
 * belongs to its database's session.
 */
export async function writeAcross(
  c: Context<AppEnv>,
  parts: { directory: (db: Database) => Items; shard: (db: Database) => Items; undo?: (db: Database) => Items; after?: (db: Database) => Items },
): Promise<{ directory: any[]; shard: any[] }> {
  const db = c.get("db");
  if (shardIsDirectory(c)) {
    const directoryItems = parts.directory(db);
    const shardItems = parts.shard(db);
    const results = await db.batch([...directoryItems, ...shardItems, ...(parts.after?.(db) ?? [])] as Batch);
    return { directory: results.slice(0, directoryItems.length), shard: results.slice(directoryItems.length, directoryItems.length + shardItems.length) };
  }
  const directory = c.get("directory");
  const directoryItems = parts.directory(directory);
  const directoryResults = directoryItems.length > 0 ? await directory.batch(directoryItems as Batch) : [];
  const shardItems = parts.shard(db);
  let shardResults: any[] = [];
  if (shardItems.length > 0) {
    try {
      shardResults = await db.batch(shardItems as Batch);
    } catch (err) {
      const undo = parts.undo?.(directory) ?? [];
      if (undo.length > 0) await directory.batch(undo as Batch).catch(() => undefined);
      throw err;
    }
  }
  const after = parts.after?.(directory) ?? [];
  if (after.length > 0) await directory.batch(after as Batch).catch((err) => log(c, "error", "directory write after a shard's commit failed", { error: String(err).slice(0, 300) }));
  return { directory: directoryResults, shard: shardResults };
}
