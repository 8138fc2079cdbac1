import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import { countRoundTrips, type RoundTripCounter } from "./round-trips";

export type Database = ReturnType<typeof createDatabase>;

export function createDatabase(d1: D1Database, counter: RoundTripCounter) {
  return drizzle(countRoundTrips(d1, counter), { schema });
}

export { schema };
