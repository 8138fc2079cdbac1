import type { Context } from "hono";
import type { AppEnv } from "../../lib/types";
import { createDatabase, type Database } from "../client";
import { RequestSession } from "../session";
import { shardBinding } from "./routing";

/**
 * A supervisor's read over every database (docs/sharding.md): the audit trail of every account is
 * spread over the shards and the directory. One handle per database DIRECTORY and SHARDS name, each
 * once: the request's own where it is on that database, otherwise a read-only session of its own
 * (started anywhere; counted in the request's round trips). On one database, the request's handle.
 */
export function readHandlesOnEveryDatabase(c: Context<AppEnv>): Database[] {
  const route = c.get("shardRoute");
  if (!route) return [c.get("db")];
  const names = [...new Set([route.config.directory, ...route.config.shards])];
  return names.map((name) => {
    if (name === route.config.directory) return c.get("directory");
    if (name === route.shardName) return c.get("db");
    return createDatabase(new RequestSession(shardBinding(c.env, name), "first-unconstrained"), c.get("roundTrips"));
  });
}

/**
 * The same keyset read on several databases at once, merged: the first `limit` rows by `key` in
 * the order each database answered in (`descending` or not). Each database answers its first
 * `limit`, so the merge is exact; a row found on two databases (an account being moved, between
 * its copy and the deletion of its old rows) is kept once. One database: its answer as it is.
 */
export async function readMerged<T>(handles: readonly Database[], read: (db: Database) => Promise<T[]>, key: (row: T) => string, limit: number, descending: boolean): Promise<T[]> {
  if (handles.length === 1) return read(handles[0]!);
  const answers = await Promise.all(handles.map(read));
  const seen = new Set<string>();
  const merged = answers.flat().filter((row) => {
    if (seen.has(key(row))) return false;
    seen.add(key(row));
    return true;
  });
  merged.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (descending ? -1 : 1));
  return merged.slice(0, limit);
}
