import type { Context, MiddlewareHandler } from "hono";
import { AuditTrail } from "../../db/audit-trail";
import { createDatabase } from "../../db/client";
import { rememberStatements, RoundTripCounter } from "../../db/round-trips";
import { describeServedBy, isBookmark, RequestSession, sessionStart } from "../../db/session";
import { actorOf, requestOf } from "../../lib/audit";
import { invalidBookmark } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import { enqueue, eventMessagesByDatabase } from "../../webhooks/enqueue";
import { shardBinding, ShardRoute } from "../../db/shards/routing";

export const BOOKMARK_HEADER = "X-D1-Bookmark";

/**
 * Gives the request its Drizzle handle over one D1 session (db/session.ts) through a wrapper that
 * counts round trips, and its audit trail, whose events ride on the request's writes
 * (db/audit-trail.ts). The answer carries the session's latest bookmark in X-D1-Bookmark; a request
 * that ran no statement hands back the bookmark it was sent, so a client's chain never loses it.
 * A blank X-D1-Bookmark counts as none.
 */
export const database: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sent = c.req.header(BOOKMARK_HEADER)?.trim() || undefined;
  if (sent !== undefined && !isBookmark(sent)) throw invalidBookmark();
  const { shards, exposeD1Statements } = c.get("config");
  const counter = new RoundTripCounter(exposeD1Statements);
  const audit = new AuditTrail(() => ({ actor: actorOf(c), ...requestOf(c) }));
  const start = sessionStart(c.req.method, sent);
  c.set("roundTrips", counter);
  c.set("audit", audit);
  let session: RequestSession;
  let directorySession: RequestSession | undefined;
  if (shards.single) {
    session = new RequestSession(bindingOf(c, shards.directory), start);
    const db = createDatabase(session, counter, audit);
    c.set("db", db);
    c.set("directory", db);
  } else {
    // Two sessions: the directory's, and the shard's, placed once the account is known (db/shards/routing.ts).
    // A client's bookmark is its account's shard's and says nothing of the directory: a request that
    // sends one reads the directory at the primary (newer than any bookmark), so the chain still reads
    // its own writes there (an account it created, found by the locator or in the list). Without one,
    // the directory's reads start anywhere, its writes at the primary.
    directorySession = new RequestSession(bindingOf(c, shards.directory), sent === undefined ? sessionStart(c.req.method, undefined) : "first-primary");
    session = new RequestSession(undefined, start);
    const route = new ShardRoute(shards, session);
    c.set("shardRoute", route);
    c.set("directory", createDatabase(directorySession, counter, audit.companionFor("directory", undefined, () => shards.directory)));
    c.set("db", createDatabase(session, counter, route.companion(audit)));
  }
  c.set("d1Session", session);
  c.set("directorySession", directorySession ?? session);
  await next();
  const bookmark = session.bookmark() ?? sent;
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  // The shard's calls, then the directory's (over several databases): for the request log and X-D1-Served-By alike.
  const servedBy = [...session.servedBy, ...(directorySession?.servedBy ?? [])];
  c.set("d1ServedBy", servedBy);
  if (c.get("config").exposeRoundTrips) {
    c.res.headers.set("X-D1-Round-Trips", String(counter.count));
    if (servedBy.length > 0) c.res.headers.set("X-D1-Served-By", describeServedBy(servedBy));
  }
  if (counter.trips) rememberStatements(c.get("requestId"), counter.trips);
  if (audit.toDeliver.length > 0) enqueueForWebhooks(c, audit.toDeliver);
};

const bindingOf = (c: Context<AppEnv>, name: string): D1Database => shardBinding(c.env, name);

/**
 * Hands the committed events to the webhook Queue after the answer, on no round trip of the
 * request's. A send that is lost (the isolate dies first, the Queue fails) loses nothing: the
 * per-minute sweep finds events no message carried (src/webhooks/consumer.ts). Over several
 * databases each message names the database its events committed on.
 */
function enqueueForWebhooks(c: Context<AppEnv>, events: AuditTrail["toDeliver"]): void {
  const queue = c.env.WEBHOOK_QUEUE;
  if (!queue) return;
  const sending = enqueue(queue, eventMessagesByDatabase(events)).catch((err) => console.error(JSON.stringify({ level: "error", message: "webhook enqueue failed", error: String(err) })));
  c.executionCtx.waitUntil(sending);
}
