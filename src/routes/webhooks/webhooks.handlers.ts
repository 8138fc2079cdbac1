import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { rowGone, rowHasRevision } from "../../db/audit-trail";
import { COUNT_LIMIT_GUARD, refuseWhen, refusedBy } from "../../db/batch-guards";
import type { Database } from "../../db/client";
import { compiled, compiledRowUpdate, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { auditEvents, webhookDeliveries, webhooks } from "../../db/schema";
import { accountForWrite, accountIdOf, compiledPerScope, placedForWrite, scoped, scopeOf } from "../../db/scope";
import { shardIsDirectory } from "../../db/shards/routing";
import type { Principal } from "../../domain/principal";
import { connectorEnvironment } from "../../connectors/environment";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import { webhookSecrets } from "../../domain/webhooks/secret";
import { MAX_WEBHOOKS_PER_ACCOUNT, newSigningSecret, urlProblem } from "../../domain/webhooks/webhooks";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, invalid, isConstraintError, notFound } from "../../lib/errors";
import { auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, locationOf, newRevision, ifMatchValue } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import { deliveryMessage, enqueue } from "../../webhooks/enqueue";
import { sendSigned } from "../../webhooks/post";
import type * as routes from "./webhooks.routes";

type WebhookRow = typeof webhooks.$inferSelect;

/** The subscription as the API shows it. The secret is a member only of the answers that issue it. */
function toWebhook(row: WebhookRow, issuedSecret?: string) {
  return {
    id: row.id,
    accountId: row.accountId,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    consecutiveFailures: row.consecutiveFailures,
    ...(issuedSecret === undefined ? {} : { secret: issuedSecret }),
    ...auditOut(row),
  };
}

/**
 * The account a new subscription receives the changes of, or a list shows: a user's own (naming
 * another is a 403); the supervisor's choice, none (changes outside any account) unless it names one.
 */
function accountOfNew(principal: Principal, requested: string | null | undefined): string | null {
  if (principal.kind === "supervisor") return requested ?? null;
  return accountForWrite(principal, requested ?? undefined);
}

const target = (row: { id: string; url: string }) => ({ type: "webhook" as const, id: row.id, name: row.url });

/**
 * Where subscriptions live (docs/sharding.md): an account's on its shard, the supervisor's own
 * (account_id null, changes outside any account) in the directory, with the events they deliver.
 * `database` is the binding a Queue message names (undefined on one database, where both handles
 * are one). The locator (db/shards/locate.ts) places the supervisor's request by an id of an
 * account's subscription; one of its own is found on no shard, so it is looked for in the directory.
 */
type Where = { db: Database; database: string | undefined };
const onShard = (c: Context<AppEnv>): Where => ({ db: c.get("db"), database: c.get("shardRoute")?.shardName });
const onDirectory = (c: Context<AppEnv>): Where => ({ db: c.get("directory"), database: c.get("shardRoute") ? c.get("config").shards.directory : undefined });
const whereAccount = (c: Context<AppEnv>, accountId: string | null): Where => (accountId === null ? onDirectory(c) : onShard(c));
/** Whether the directory may hold what the request's shard did not: the supervisor's subscriptions, when the shard is another database. */
const directoryToo = (c: Context<AppEnv>) => c.get("principal").kind === "supervisor" && !shardIsDirectory(c);

/** The subscription `id` in the caller's scope (another account's is not found; the supervisor's scope is every one). */
const isOwnWebhook = (c: Context<AppEnv>, id: string) => scoped(webhooks.accountId, scopeOf(c.get("principal")), eq(webhooks.id, id));

// The reads and writes of one subscription, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every request.
const webhookById = compiledPerScope((db, scope) => db.select().from(webhooks).where(scoped(webhooks.accountId, scope, eq(webhooks.id, sql.placeholder("id")))));
/** isOwnWebhook's query on `db`, with its values. */
function webhookInScope(c: Context<AppEnv>, db: Database, id: string) {
  const scope = scopeOf(c.get("principal"));
  return { query: webhookById(db, scope), values: { id, accountId: accountIdOf(scope) } };
}
const readOwnWebhook = (c: Context<AppEnv>, db: Database, id: string) => {
  const { query, values } = webhookInScope(c, db, id);
  return query.get(values);
};

/** The subscription and where it lives. */
async function findWebhook(c: Context<AppEnv>, id: string): Promise<{ row: WebhookRow; where: Where }> {
  const row = await readOwnWebhook(c, c.get("db"), id);
  if (row) return { row, where: whereAccount(c, row.accountId) };
  const own = directoryToo(c) ? await readOwnWebhook(c, c.get("directory"), id) : undefined;
  if (!own) throw notFound("Webhook");
  return { row: own, where: onDirectory(c) };
}

/** A 400 naming body.url when the host policy or the scheme refuses it. */
function checkUrl(c: Context<AppEnv>, url: string): void {
  const problem = urlProblem(url, connectorEnvironment(c.env).hostPolicy);
  if (problem) throw invalid("body.url", problem);
}

function secrets(c: Context<AppEnv>) {
  const sealer = webhookSecrets(c.env);
  if (!sealer.configured) {
    throw new ApiError("CONNECTION_SECRETS_UNAVAILABLE", "Webhook signing secrets cannot be stored: this service's operator has not set CONNECTION_SECRETS_KEY");
  }
  return sealer;
}

/** A write that found nothing: lost to a concurrent writer (with If-Match), or the subscription is gone. */
const missedWrite = (c: Context<AppEnv>) =>
  c.req.header("If-Match") ? new ApiError("PRECONDITION_FAILED", "The subscription was changed concurrently; reload it and retry") : notFound("Webhook");

// The list's query, compiled once per isolate (db/compiled.ts) for an account's subscriptions and
// for the supervisor's own: Drizzle built its SQL on every request.
const webhooksWhere = (inAccount: SQL) => compiled((db) => db.select().from(webhooks).where(inAccount).orderBy(asc(webhooks.createdDate), asc(webhooks.id)));
const webhooksOfAccount = webhooksWhere(eq(webhooks.accountId, sql.placeholder("accountId")));
const webhooksOfNoAccount = webhooksWhere(isNull(webhooks.accountId));

/** One scope's subscriptions, so a list is bounded by MAX_WEBHOOKS_PER_ACCOUNT however many accounts there are. */
export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const account = accountOfNew(c.get("principal"), c.req.valid("query").accountId);
  // The supervisor's request is on ?accountId='s shard (db/shards/locate.ts); its own subscriptions are in the directory.
  const { db } = whereAccount(c, account);
  const rows = await (account === null ? webhooksOfNoAccount(db).all() : webhooksOfAccount(db).all({ accountId: account }));
  return c.json({ content: rows.map((row) => toWebhook(row)) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  checkUrl(c, body.url);
  const sealer = secrets(c);
  const id = crypto.randomUUID();
  const secret = newSigningSecret();
  const accountId = accountOfNew(c.get("principal"), body.accountId);
  // An account's subscription on its shard (the supervisor's request placed there now), the supervisor's own in the directory.
  if (accountId !== null) await placedForWrite(c, accountId);
  const values: WebhookRow = {
    id,
    accountId,
    url: body.url,
    events: [...new Set(body.events)],
    description: body.description,
    enabled: body.enabled,
    secretSealed: await sealer.seal(secret, id),
    consecutiveFailures: 0,
    disabledReason: null,
    revision: newRevision(),
    ...auditForCreate(c.get("principal")),
  };
  c.get("audit").record({ accountId: values.accountId, action: "webhook.create", target: target(values) });
  const { db } = whereAccount(c, accountId);
  try {
    await db.batch([inBatch(webhookLimitGuard(db), { accountId }), inBatch(insertWebhook(db), values)]);
  } catch (err) {
    if (isConstraintError(err, "FOREIGN KEY")) throw invalid("body.accountId", "No such account");
    if (refusedBy(err, COUNT_LIMIT_GUARD)) throw new ApiError("TOO_MANY_WEBHOOKS", `There are already ${MAX_WEBHOOKS_PER_ACCOUNT} webhook subscriptions, the most there may be`);
    throw err;
  }
  c.header("Location", locationOf(c, id));
  c.header("ETag", etagOf(values.revision));
  return c.json(toWebhook(values, secret), 201);
};

// A creation's statements, compiled once per isolate (db/compiled.ts). The limit is counted in the
// insert's own transaction: simultaneous creations cannot pass it together. `IS`: the supervisor's own have account_id NULL.
const webhookLimitGuard = compiled((db) =>
  refuseWhen(db, COUNT_LIMIT_GUARD, sql`(SELECT count(*) FROM webhooks WHERE account_id IS ${sql.placeholder("accountId")}) >= ${MAX_WEBHOOKS_PER_ACCOUNT}`, "WEBHOOK"),
);
const insertWebhook = compiled((db) =>
  db.insert(webhooks).values(
    placeholders("id", "accountId", "url", "events", "description", "enabled", "secretSealed", "consecutiveFailures", "disabledReason", "revision", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
  ),
);

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { row } = await findWebhook(c, c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toWebhook(row), 200);
};

/** Writes `changes` to the subscription read as `current`, with its audit event; answers the row written. */
async function write(c: Context<AppEnv>, { row: current, where }: { row: WebhookRow; where: Where }, changes: Partial<WebhookRow>, audit: { action: "webhook.update"; changes: ReturnType<typeof diffMembers> }) {
  const revision = newRevision();
  const set = { ...changes, revision, ...auditForUpdate(c.get("principal")) };
  c.get("audit").recordIf(rowHasRevision("webhooks", current.id, revision), { accountId: current.accountId, action: audit.action, target: target({ ...current, ...set }), changes: audit.changes });
  const members = (Object.keys(set) as (keyof WebhookRow)[]).sort();
  const [updated] = await webhookUpdate(where.db, members).all({ ...set, id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  if (!updated) throw missedWrite(c);
  return updated;
}

// An update's statement, compiled once per isolate (db/compiled.ts) for each set of members it
// changes (sorted), made when first needed. `ifMatch` null: no If-Match, the last writer wins.
const webhookUpdate = compiledRowUpdate(webhooks, webhooks.id, webhooks.revision);

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const body = c.req.valid("json");
  const found = await findWebhook(c, c.req.valid("param").id);
  const current = found.row;
  checkIfMatch(c, current.revision);
  if (body.url !== undefined) checkUrl(c, body.url);
  const changes: Partial<WebhookRow> = {
    ...(body.url !== undefined && { url: body.url }),
    ...(body.events !== undefined && { events: [...new Set(body.events)] }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    // Enabled again (or disabled by a caller): the service's reason and its run of failures no longer apply.
    ...(body.enabled !== undefined && body.enabled !== current.enabled && { disabledReason: null, consecutiveFailures: 0 }),
  };
  const updated = await write(c, found, changes, { action: "webhook.update", changes: diffMembers(toWebhook(current), toWebhook({ ...current, ...changes })) });
  c.header("ETag", etagOf(updated.revision));
  return c.json(toWebhook(updated), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { row: current, where } = await findWebhook(c, c.req.valid("param").id);
  checkIfMatch(c, current.revision);
  c.get("audit").recordIf(rowGone("webhooks", current.id), { accountId: current.accountId, action: "webhook.delete", target: target(current) });
  // Its deliveries go with it (ON DELETE CASCADE).
  const deleted = await deleteWebhook(where.db).all({ id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  if (deleted.length === 0) throw missedWrite(c);
  return c.body(null, 204);
};

// Compiled once per isolate (db/compiled.ts). `ifMatch` null: no If-Match, the last writer wins.
const deleteWebhook = compiled((db) =>
  db
    .delete(webhooks)
    .where(and(eq(webhooks.id, sql.placeholder("id")), ifMatchPlaceholder(webhooks.revision)))
    .returning({ id: webhooks.id }),
);

export const rotateSecret: AppRouteHandler<typeof routes.rotateSecret> = async (c) => {
  const found = await findWebhook(c, c.req.valid("param").id);
  const current = found.row;
  checkIfMatch(c, current.revision);
  const secret = newSigningSecret();
  const updated = await write(c, found, { secretSealed: await secrets(c).seal(secret, current.id) }, { action: "webhook.update", changes: [secretChanged("secret")] });
  c.header("ETag", etagOf(updated.revision));
  return c.json(toWebhook(updated, secret), 200);
};

const deliveryColumns = {
  id: webhookDeliveries.id,
  eventId: webhookDeliveries.eventId,
  action: auditEvents.action,
  attempts: webhookDeliveries.attempts,
  lastStatus: webhookDeliveries.lastStatus,
  lastError: webhookDeliveries.lastError,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  outcome: webhookDeliveries.outcome,
  createdAt: webhookDeliveries.createdAt,
  updatedAt: webhookDeliveries.updatedAt,
};

const selectDeliveries = (db: Database) => db.select(deliveryColumns).from(webhookDeliveries).leftJoin(auditEvents, eq(auditEvents.id, webhookDeliveries.eventId));

// Compiled once per isolate (db/compiled.ts); `outcome` null: any outcome.
const newestDeliveries = compiled((db) =>
  selectDeliveries(db)
    .where(and(eq(webhookDeliveries.webhookId, sql.placeholder("id")), sql`(${sql.placeholder("outcome")} IS NULL OR ${webhookDeliveries.outcome} = ${sql.placeholder("outcome")})`))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(sql.placeholder("maxResults")),
);

type Outcome = "PENDING" | "DELIVERED" | "FAILED";
const toDelivery = <T extends { outcome: string }>(row: T) => ({ ...row, outcome: row.outcome as Outcome });

export const deliveries: AppRouteHandler<typeof routes.deliveries> = async (c) => {
  const { id } = c.req.valid("param");
  const { maxResults, outcome } = c.req.valid("query");
  // One round trip: the subscription (another account's is 404) and its newest deliveries; the supervisor's own: in the directory.
  const read = (db: Database) => {
    const own = webhookInScope(c, db, id);
    return db.batch([inBatch(own.query, own.values), inBatch(newestDeliveries(db), { id, outcome: outcome ?? null, maxResults })]);
  };
  let [found, rows] = await read(c.get("db"));
  if (found.length === 0 && directoryToo(c)) [found, rows] = await read(c.get("directory"));
  if (found.length === 0) throw notFound("Webhook");
  return c.json({ content: rows.map(toDelivery) }, 200);
};

export const retryDelivery: AppRouteHandler<typeof routes.retryDelivery> = async (c) => {
  const { id, deliveryId } = c.req.valid("param");
  const now = new Date().toISOString();
  // One round trip: FAILED becomes PENDING from its first attempt; then the delivery as it now is.
  const retry = ({ db }: Where) => {
    const ownWebhook = db.select({ id: webhooks.id }).from(webhooks).where(isOwnWebhook(c, id));
    const owned = and(eq(webhookDeliveries.id, deliveryId), inArray(webhookDeliveries.webhookId, ownWebhook));
    return db.batch([
      db
        .update(webhookDeliveries)
        .set({ outcome: "PENDING", attempts: 0, lastError: null, nextAttemptAt: now, updatedAt: now })
        .where(and(owned, eq(webhookDeliveries.outcome, "FAILED")))
        .returning({ id: webhookDeliveries.id }),
      selectDeliveries(db).where(owned),
    ]);
  };
  let where = onShard(c);
  let [retried, found] = await retry(where);
  // The supervisor's own subscriptions are in the directory.
  if (found.length === 0 && directoryToo(c)) [retried, found] = await retry((where = onDirectory(c)));
  const delivery = found[0];
  if (!delivery) throw notFound("Delivery");
  if (retried.length === 0) throw new ApiError("DELIVERY_NOT_FAILED", `The delivery is ${delivery.outcome}: only a FAILED one can be retried`);
  // Should this send be lost, the sweep finds the PENDING delivery overdue and enqueues it.
  await enqueue(c.env.WEBHOOK_QUEUE, [deliveryMessage(deliveryId, where.database)]);
  return c.json(toDelivery(delivery), 202);
};

export const ping: AppRouteHandler<typeof routes.ping> = async (c) => {
  const { row } = await findWebhook(c, c.req.valid("param").id);
  const secret = await secrets(c).open(row.secretSealed, row.id);
  if (secret === undefined) throw new ApiError("CONNECTION_SECRETS_UNAVAILABLE", "The signing secret cannot be opened: CONNECTION_SECRETS_KEY no longer holds its key; rotate the secret");
  const pingId = `ping_${crypto.randomUUID()}`;
  const body = JSON.stringify({ type: "webhook.ping", timestamp: new Date().toISOString(), data: { webhookId: row.id } });
  const result = await sendSigned(c.env, row.url, secret, pingId, body);
  return c.json({ delivered: result.ok, status: result.status, error: result.error, webhookId: pingId }, 200);
};
