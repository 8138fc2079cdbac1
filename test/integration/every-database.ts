import { env } from "cloudflare:workers";
import { databases } from "./helpers";

/**
 * Tests that run on one database (project integration) and over a directory and two shards
 * (integration-shards, docs/sharding.md): rows that may be on any database are read on every one.
 */

/** Every database of the project: DB alone, or the directory and the shards (helpers.ts, databases()). */
export const everyDatabase = (): D1Database[] => databases().map(([, database]) => database);

/** A `SELECT count(*) AS n` summed over every database: rows that may be on any shard (tokens, users). */
export async function countEverywhere(query: string, ...params: unknown[]): Promise<number> {
  const counts = await Promise.all(everyDatabase().map((d1) => d1.prepare(query).bind(...params).first<{ n: number }>()));
  return counts.reduce((sum, row) => sum + row!.n, 0);
}

/** A statement run on every database (test set-up of rows that may be on any shard). */
export async function runEverywhere(query: string, ...params: unknown[]): Promise<void> {
  await Promise.all(everyDatabase().map((d1) => d1.prepare(query).bind(...params).run()));
}

/**
 * The shards other than the directory's database: 0 on one database. A change of a client that
 * revokes its tokens adds one round trip per such shard (db/shards/clients.ts).
 */
export const otherShards = (): number => (env.SHARDS ?? "DB").split(",").filter((name) => name.trim() && name.trim() !== (env.DIRECTORY ?? "DB")).length;

/**
 * Round trips a bearer token this isolate has not verified yet adds over several databases: every
 * shard is asked at once which holds it (db/shards/routing.ts, placeByToken), one counted each.
 * 0 on one database.
 */
export const shardsAsked = (): number => {
  const shards = (env.SHARDS ?? "DB").split(",").map((name) => name.trim()).filter(Boolean);
  return shards.length === 1 && shards[0] === (env.DIRECTORY ?? "DB") ? 0 : shards.length;
};

/** Whether the project runs over several databases (the integration-shards project). */
export const sharded = (): boolean => shardsAsked() > 0;

/**
 * What a Basic sign-in or a pull not answered from the credential cache adds over several databases:
 * one directory read of whose the name is and where its account lives (placeByUserName). 0 on one database.
 */
export const nameAsked = (): number => (sharded() ? 1 : 0);

/** The rows of a query on every database, one after the other (rows that may be on any shard). */
export async function allEverywhere(query: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  const answers = await Promise.all(everyDatabase().map((d1) => d1.prepare(query).bind(...params).all()));
  return answers.flatMap((answer) => answer.results);
}

