import { and, eq, gte, like, lt, or, sql, type Placeholder } from "drizzle-orm";
import type { Context } from "hono";
import { toAuditEvent as toEvent, type AuditEventRow as EventRow } from "../../db/audit-event-row";
import type { Database } from "../../db/client";
import { auditEvents } from "../../db/schema";
import { compiledByKey } from "../../db/compiled";
import { accountForWrite, accountIdOf, compiledPerScope, scoped, scopeOf } from "../../db/scope";
import { readHandlesOnEveryDatabase, readMerged } from "../../db/shards/read-everywhere";
import { shardIsDirectory } from "../../db/shards/routing";
import { parseActionFilter } from "../../domain/audit/event";
import { eventIdFloor } from "../../domain/audit/event-id";
import { toOcsfApiActivity } from "../../domain/audit/ocsf";
import type { Principal } from "../../domain/principal";
import type { AppRouteHandler } from "../../lib/create-router";
import { notFound } from "../../lib/errors";
import { keysetPlan, perPageShape } from "../../lib/http";
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

/** The filters a list may send, in the order their conditions are written. Times compare through the time-sortable ids, so they use the indexes' id column. */
const FILTERS = {
  accountId: (value: Placeholder) => eq(auditEvents.accountId, value),
  actor: (value: Placeholder) => or(eq(auditEvents.actorId, value), eq(auditEvents.actorName, value)),
  action: (value: Placeholder) => eq(auditEvents.action, value),
  actionPrefix: (value: Placeholder) => like(auditEvents.action, value),
  targetType: (value: Placeholder) => eq(auditEvents.targetType, value),
  targetId: (value: Placeholder) => eq(auditEvents.targetId, value),
  since: (value: Placeholder) => gte(auditEvents.id, value),
  until: (value: Placeholder) => lt(auditEvents.id, value),
  requestId: (value: Placeholder) => eq(auditEvents.requestId, value),
};
type FilterName = keyof typeof FILTERS;
const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];

/** The values of the filters a request sends, by name (those it does not send are absent). */
function filterValues(account: string | undefined, query: AuditEventQuery): Filters {
  const action = query.action === undefined ? undefined : parseActionFilter(query.action);
  const values: Record<FilterName, string | undefined> = {
    accountId: account,
    actor: query.actor,
    action: action && "exact" in action ? action.exact : undefined,
    actionPrefix: action && "prefix" in action ? `${action.prefix}%` : undefined,
    targetType: query.targetType,
    targetId: query.targetId,
    since: query.since === undefined ? undefined : eventIdFloor(Date.parse(query.since)),
    until: query.until === undefined ? undefined : eventIdFloor(Date.parse(query.until)),
    requestId: query.requestId,
  };
  const names = FILTER_NAMES.filter((name) => values[name] !== undefined);
  return { names, values: Object.fromEntries(names.map((name) => [name, values[name]])) };
}
type Filters = { names: FilterName[]; values: Partial<Record<FilterName, string>> };

// A page of events, compiled once per isolate (db/compiled.ts) for each page shape and each set of
// filters sent: a filter absent from the SQL (not `? IS NULL OR ...`) leaves the planner the index
// that serves the filters present, and the newest-first walk by id. Templates are made as their
// sets of filters are first asked for.
const eventsPage = perPageShape(
  auditEvents.id,
  (page) =>
    compiledByKey(
      (db, names: FilterName[]) =>
        db
          .select()
          .from(auditEvents)
          .where(and(...names.map((name) => FILTERS[name](sql.placeholder(name))), page.keyCondition))
          .orderBy(page.orderBy)
          .limit(page.limit),
      (names) => names.join(),
    ),
  true,
);

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
  const sent = filterValues(account, query);
  const databases = listedDatabases(c, account);
  if (wantsNdjson(c)) return streamOcsf(databases, sent) as never;
  const { maxResults, pageToken, ...filters } = query;
  const binding = { list: "audit-events", account: account ?? "*", filters: { ...filters, accountId: account } };
  const plan = await keysetPlan(c, binding, auditEvents.id, (r: EventRow) => r.id, { maxResults, pageToken }, { newestFirst: true });
  const read = (db: Database) => eventsPage[plan.shape](db, sent.names).all({ ...sent.values, ...plan.pageValues });
  const rows = await readMerged(databases, read, (r) => r.id, plan.limit, plan.descending);
  const page = await plan.toPage(rows);
  return c.json({ content: page.content.map(toEvent), pageInfo: page.pageInfo }, 200);
};

// One event, compiled once per isolate for each scope (a user's: of its account only).
const eventById = compiledPerScope((db, scope) => db.select().from(auditEvents).where(scoped(auditEvents.accountId, scope, eq(auditEvents.id, sql.placeholder("id")))));

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const principal = c.get("principal");
  const scope = scopeOf(principal);
  const values = { id: c.req.valid("param").id, accountId: accountIdOf(scope) };
  const read = (db: Database) => eventById(db, scope).get(values);
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
function streamOcsf(databases: readonly Database[], filters: Filters): Response {
  const encoder = new TextEncoder();
  let after: string | undefined;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close();
      // A list's first page, then its next pages (newest first: id below the last one read).
      const values = { ...filters.values, pageKey: after, pageLimit: STREAM_CHUNK };
      const read = (db: Database) => eventsPage[after === undefined ? "first" : "next"](db, filters.names).all(values);
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

