import type { Bindings } from "../../lib/types";
import { parseShardConfig, type ShardConfig } from "./config";
import { shardBinding } from "./routing";

/** One database of the deployment: its binding's name and the binding. */
export interface NamedDatabase {
  name: string;
  d1: D1Database;
}

/**
 * Every database DIRECTORY and SHARDS name, each once (the directory first; it may also be a shard):
 * what the background jobs run over (audit retention, the webhook sweep, a Queue message that
 * names no database). On one database, that one.
 */
export function everyDatabase(env: Bindings, config: ShardConfig = parseShardConfig(env.DIRECTORY, env.SHARDS)): NamedDatabase[] {
  const names = [...new Set([config.directory, ...config.shards])];
  return names.map((name) => ({ name, d1: shardBinding(env, name) }));
}

/**
 * The database a Queue message names, or every database when it names none (a message of one
 * database, or sent before the service was spread over several). A name the deployment no longer
 * binds is its error.
 */
export function databasesOf(env: Bindings, name: string | undefined): NamedDatabase[] {
  return name === undefined ? everyDatabase(env) : [{ name, d1: shardBinding(env, name) }];
}

/** What a message should name for database `name`: nothing on one database (messages as they always were), the name otherwise. */
export function messageTag(env: Bindings, name: string): string | undefined {
  return parseShardConfig(env.DIRECTORY, env.SHARDS).single ? undefined : name;
}
