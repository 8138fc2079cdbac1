import type { MiddlewareHandler } from "hono";
import { createDatabase } from "../../db/client";
import { rememberStatements, RoundTripCounter } from "../../db/round-trips";
import type { AppEnv } from "../../lib/types";

/** Gives the request its Drizzle handle over a D1 binding that counts round trips. */
export const database: MiddlewareHandler<AppEnv> = async (c, next) => {
  const counter = new RoundTripCounter(c.get("config").exposeD1Statements);
  c.set("roundTrips", counter);
  c.set("db", createDatabase(c.env.DB, counter));
  await next();
  if (c.get("config").exposeRoundTrips) c.res.headers.set("X-D1-Round-Trips", String(counter.count));
  if (counter.trips) rememberStatements(c.get("requestId"), counter.trips);
};
