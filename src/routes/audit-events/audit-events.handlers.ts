import { and, desc, eq, gte, like, lt, or, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { toAuditEvent as toEvent, type AuditEventRow as EventRow } from "../../db/audit-event-row";
import type { Database } from "../../db/client";
import { auditEvents } from "../../db/schema";
import { accountForWrite } from "../../db/scope";
import { readHandlesOnEveryDatabase, readMerged } from "../../db/shards/read-everywhere";
import { shardIsDirectory } from "../../db/shards/routing";
import { parseActionFilter } from "../../domain/audit/event";
import { eventIdFloor } from "../../domain/audit/event-id";
import { toOcsfApiActivity } from "../../domain/audit/ocsf";
import type { Principal } from "../../domain/principal";
import type { AppRouteHandler } from "../../lib/create-router";
import { notFound } from "../../lib/errors";
import { keysetPlan } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import type { AuditEventQuery } from "./audit-events.schemas";
import type * as routes from "./audit-events.routes";

export const NDJSON = "application/x-ndjson";
/** Events per D1 read while streaming: one round trip each, never the whole result in memory. */
const STREAM_CHUNK = 200;

/** The account whose events the caller reads: a user its own (naming another is 403); the supervisor all, or the one it names. */
function accountOfReader(principal: Principal, requested: string | undefined): string | undefined {
  if (principal.kind === "supervisor") return requested;
  return accountForWrite(principal, requested);
}

/** The filters as one condition. Times compare through the time-sortable ids, so they use the indexes' id column. */
function filterOf(account: string | undefined, query: AuditEventQuery): SQL | undefined {
  const action = query.action === undefined ? undefined : parseActionFilter(query.action);
  return and(
    account === undefined ? undefined : eq(auditEvents.accountId, account),
    query.actor === undefined ? undefined : or(eq(auditEvents.actorId, query.actor), eq(auditEvents.actorName, query.actor)),
    action === undefined ? undefined : "exact" in action ? eq(auditEvents.action, action.exact) : like(auditEvents.action, `${action.prefix}%`),
    query.targetType === undefined ? undefined : eq(auditEvents.targetType, query.targetType),
    query.targetId === undefined ? undefined : eq(auditEvents.targetId, query.targetId),
    query.since === undefined ? undefined : gte(auditEvents.id, eventIdFloor(Date.parse(query.since))),
    query.until === undefined ? undefined : lt(auditEvents.id, eventIdFloor(Date.parse(query.until))),
    query.requestId === undefined ? undefined : eq(auditEvents.requestId, query.requestId),
  );
}

/**
 * Which databases a list reads (docs/sharding.md): one account's events are on its shard, where the
 * request is placed (a user's by authentication, the supervisor's by ?accountId=). The supervisor's
 * list of every account reads every database (the shards, and the directory with the events outside
 * any account) at once and merges them by id, newest first: the same list as on one database, at one
 * round trip of latency and one counted per database.
 */
const listedDatabases = (c: Context<AppEnv>, account: string | undefined): Database[] => (account === undefined ? readHandlesOnEveryDatabase(c) : [c.get("db")]);

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const account = accountOfReader(c.get("principal"), query.accountId);
  const filter = filterOf(account, query);
  const databases = listedDatabases(c, account);
  if (wantsNdjson(c)) return streamOcsf(databases, filter) as never;
  const { maxResults, pageToken, ...filters } = query;
  const binding = { list: "audit-events", account: account ?? "*", filters: { ...filters, accountId: account } };
  const plan = await keysetPlan(c, binding, auditEvents.id, (r: EventRow) => r.id, { maxResults, pageToken }, { newestFirst: true });
  const read = (db: Database) => db.select().from(auditEvents).where(and(filter, plan.keyCondition)).orderBy(plan.orderBy).limit(plan.limit).all();
  const rows = await readMerged(databases, read, (r) => r.id, plan.limit, plan.descending);
  const page = await plan.toPage(rows);
  return c.json({ content: page.content.map(toEvent), pageInfo: page.pageInfo }, 200);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const principal = c.get("principal");
  const account = principal.kind === "user" ? principal.accountId : undefined;
  const read = (db: Database) =>
    db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.id, c.req.valid("param").id), account === undefined ? undefined : eq(auditEvents.accountId, account)))
      .get();
  // The locator placed the supervisor on the shard holding an account's event; an event outside any account is in the directory.
  const row = (await read(c.get("db"))) ?? (principal.kind === "supervisor" && !shardIsDirectory(c) ? await read(c.get("directory")) : undefined);
  if (!row) throw notFound("Audit event");
  return c.json(toEvent(row), 200);
};

/** Accept names application/x-ndjson (the media-type middleware lets it through for this list only). */
function wantsNdjson(c: Context<AppEnv>): boolean {
  return (c.req.header("Accept") ?? "").toLowerCase().includes(NDJSON);
}

/**
 * Every matching event, newest first, one OCSF API Activity object per line. The stream reads D1
 * STREAM_CHUNK events at a time as the client reads (keyset on id), so memory stays one chunk deep
 * whatever the trail's size. Over several databases each chunk is read from each and merged.
 */
function streamOcsf(databases: readonly Database[], filter: SQL | undefined): Response {
  const encoder = new TextEncoder();
  let after: string | undefined;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close();
      const read = (db: Database) =>
        db
          .select()
          .from(auditEvents)
          .where(and(filter, after === undefined ? undefined : lt(auditEvents.id, after)))
          .orderBy(desc(auditEvents.id))
          .limit(STREAM_CHUNK)
          .all();
      // Fewer than a chunk from every database together: all there was.
      const rows = await readMerged(databases, read, (r) => r.id, STREAM_CHUNK, true);
      if (rows.length < STREAM_CHUNK) done = true;
      after = rows.at(-1)?.id;
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((r) => JSON.stringify(toOcsfApiActivity(toEvent(r)))).join("\n") + "\n"));
      if (done) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": NDJSON } });
}

