import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import { countRoundTrips, type RoundTripCounter, type WriteCompanion } from "./round-trips";
import type { D1Client, RequestSession } from "./session";

export type Database = ReturnType<typeof createDatabase>;

/**
 * A Drizzle handle for one request, over its D1 session (db/session.ts). No `schema` option: the
 * handlers use the query builder, not relational queries, and passing the schema makes drizzle()
 * rebuild its relational metadata on every call, a per-request cost on the hot path.
 */
export function createDatabase(session: RequestSession, counter: RoundTripCounter, companion?: WriteCompanion) {
  // Drizzle's D1 driver types its client as a D1Database but calls only `prepare` and `batch`,
  // all a D1 session has: the one place a session stands for a database.
  return drizzle(countRoundTrips(session, counter, companion) as D1Client as D1Database) as ReturnType<typeof drizzle> & { $client: D1Client };
}

export { schema };
