import type { MiddlewareHandler } from "hono";
import { AuditTrail } from "../../db/audit-trail";
import { createDatabase } from "../../db/client";
import { rememberStatements, RoundTripCounter } from "../../db/round-trips";
import { actorOf, requestOf } from "../../lib/audit";
import type { AppEnv } from "../../lib/types";

/**
 * Gives the request its Drizzle handle over a D1 binding that counts round trips, and its audit
 * trail, whose events ride on the request's writes (db/audit-trail.ts).
 */
export const database: MiddlewareHandler<AppEnv> = async (c, next) => {
  const counter = new RoundTripCounter(c.get("config").exposeD1Statements);
  const audit = new AuditTrail(() => ({ actor: actorOf(c), ...requestOf(c) }));
  counter.companion = audit;
  c.set("roundTrips", counter);
  c.set("audit", audit);
  c.set("db", createDatabase(c.env.DB, counter));
  await next();
  if (c.get("config").exposeRoundTrips) c.res.headers.set("X-D1-Round-Trips", String(counter.count));
  if (counter.trips) rememberStatements(c.get("requestId"), counter.trips);
};
