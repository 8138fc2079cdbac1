import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import { countRoundTrips, type RoundTripCounter } from "./round-trips";

export type Database = ReturnType<typeof createDatabase>;

/**
 * A Drizzle handle for one request. No `schema` option: the handlers use the query builder, not
 * relational queries, and passing the schema makes drizzle() rebuild its relational metadata on
 * every call, a per-request cost on the hot path.
 */
export function createDatabase(d1: D1Database, counter: RoundTripCounter) {
  return drizzle(countRoundTrips(d1, counter));
}

export { schema };
