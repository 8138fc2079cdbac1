/**
 * The webhook Queue's consumer and the per-minute sweep (docs/webhooks.md). Two kinds of message:
 * - `{events}`: audit event ids, sent by the request that committed them (or by the sweep). The
 *   fan-out creates one delivery per matching enabled subscription of the event's account (INSERT
 *   OR IGNORE: carried twice, it creates nothing twice), marks the events dispatched, and enqueues
 *   each PENDING delivery. Ids of no event (a conditional INSERT that was skipped) are ignored.
 * - `{delivery}`: one attempt of one delivery. A failure is retried through the Queue's retry
 *   delay (exponential backoff) until WEBHOOK_MAX_ATTEMPTS; then the delivery is FAILED, and a
 *   run of WEBHOOK_DISABLE_AFTER_FAILURES failed deliveries disables the subscription (an audit event).
 * Plain SQL on the D1 binding: no request, no session, no drizzle on this path.
 *
 * Over several databases (docs/sharding.md) an event, its subscriptions, deliveries and dispatch
 * marks are all on one database (the account's shard; the directory for changes outside any
 * account): a message names it (`db`), and everything it leads to runs there and names it in turn.
 * A message naming none is looked for on every database. The sweep sweeps each database on its own,
 * each with its own watermark row.
 */
import { AUDIT_EVENT_SELECT, toAuditEvent, type AuditEventRow } from "../db/audit-event-row";
import { AuditTrail, ROW_CHANGED } from "../db/audit-trail";
import { eventIdFloor } from "../domain/audit/event-id";
import { webhookSecrets } from "../domain/webhooks/secret";
import { webhookSettings, type WebhookSettings } from "../domain/webhooks/settings";
import { backoffSeconds, matchesAny, payloadOf } from "../domain/webhooks/webhooks";
import type { Bindings } from "../lib/types";
import { databasesOf, everyDatabase, messageTag, type NamedDatabase } from "../db/shards/databases";
import { deliveryMessage, enqueue, eventMessages, type WebhookMessage } from "./enqueue";
import { sendSigned, type AttemptResult } from "./post";

export async function consumeWebhookBatch(batch: MessageBatch<WebhookMessage>, env: Bindings): Promise<void> {
  const settings = webhookSettings(env);
  // A delivery carried twice in one batch (two carriages of its event) is attempted once.
  const attempted = new Set<string>();
  const messages = batch.messages.filter((message) => {
    const body = message.body;
    if (!("delivery" in body)) return true;
    if (attempted.has(body.delivery)) return void message.ack();
    return attempted.add(body.delivery);
  });
  await Promise.all(
    messages.map(async (message) => {
      try {
        const body = message.body;
        const delay = "events" in body ? await fanOut(env, body.events, body.db) : await attempt(env, settings, body.delivery, body.db);
        if (delay === undefined) message.ack();
        else message.retry({ delaySeconds: delay });
      } catch (err) {
        // D1 or the Queue failed: the message comes back; nothing it did is lost or done twice in effect.
        console.error(JSON.stringify({ level: "error", message: "webhook message failed", error: String(err) }));
        message.retry({ delaySeconds: Math.max(1, settings.retryBaseSeconds) });
      }
    }),
  );
}

type Subscription = { id: string; accountId: string | null; events: string; createdDate: string };

/** The events on the database the message names, or on each database when it names none. */
async function fanOut(env: Bindings, ids: string[], name: string | undefined): Promise<undefined> {
  for (const database of databasesOf(env, name)) await fanOutOn(env, database, ids);
  return undefined;
}

async function fanOutOn(env: Bindings, database: NamedDatabase, ids: string[]): Promise<undefined> {
  const db = database.d1;
  const idList = JSON.stringify(ids);
  const [events, subscriptions] = await db.batch([
    db.prepare(`SELECT e.id, e.account_id AS accountId, e.action, e.time FROM audit_events e WHERE e.id IN (SELECT value FROM json_each(?))`).bind(idList),
    // The enabled subscriptions of the events' accounts (IS: null, outside any account, matches null).
    db
      .prepare(
        "SELECT w.id, w.account_id AS accountId, w.events, w.created_date AS createdDate FROM webhooks w WHERE w.enabled = 1 AND EXISTS " +
          "(SELECT 1 FROM audit_events e WHERE e.id IN (SELECT value FROM json_each(?)) AND e.account_id IS w.account_id)",
      )
      .bind(idList),
  ]);
  const found = events!.results as { id: string; accountId: string | null; action: string; time: string }[];
  if (found.length === 0) return undefined;
  const now = new Date().toISOString();
  const deliveries = found.flatMap((event) =>
    (subscriptions!.results as Subscription[])
      // A subscription receives the changes made since it was created, not older ones swept late.
      .filter((s) => s.accountId === event.accountId && s.createdDate <= event.time && matchesAny(JSON.parse(s.events) as string[], event.action))
      .map((s) => ({ id: crypto.randomUUID(), webhookId: s.id, eventId: event.id })),
  );
  const foundIds = JSON.stringify(found.map((e) => e.id));
  const [, , pending] = await db.batch([
    db
      .prepare(
        "INSERT OR IGNORE INTO webhook_deliveries (id, webhook_id, event_id, attempts, outcome, next_attempt_at, created_at, updated_at) " +
          "SELECT value ->> 'id', value ->> 'webhookId', value ->> 'eventId', 0, 'PENDING', ?1, ?1, ?1 FROM json_each(?2)",
      )
      .bind(now, JSON.stringify(deliveries)),
    db.prepare("INSERT OR IGNORE INTO webhook_dispatched (event_id) SELECT value FROM json_each(?)").bind(foundIds),
    db.prepare("SELECT id FROM webhook_deliveries WHERE outcome = 'PENDING' AND event_id IN (SELECT value FROM json_each(?))").bind(foundIds),
  ]);
  // Those of an earlier carriage of these events too: a consumer that died before sending them.
  const queue: Queue | undefined = env.WEBHOOK_QUEUE;
  const tag = messageTag(env, database.name);
  if (queue) await enqueue(queue, (pending!.results as { id: string }[]).map((d) => deliveryMessage(d.id, tag)));
  return undefined;
}

type DeliveryRow = AuditEventRow & {
  deliveryId: string;
  attempts: number;
  outcome: string;
  webhookId: string;
  url: string;
  secretSealed: string;
  enabled: number;
  webhookAccountId: string | null;
  eventFound: string | null;
};

/** One attempt; answers the delay before the next one, or undefined when the delivery is settled. */
async function attempt(env: Bindings, settings: WebhookSettings, deliveryId: string, name: string | undefined): Promise<number | undefined> {
  for (const database of databasesOf(env, name)) {
    const row = await deliveryOn(database.d1, deliveryId);
    if (row) return attemptOn(env, settings, database, row);
  }
  // Gone with its subscription.
  return undefined;
}

const deliveryOn = (db: D1Database, deliveryId: string) =>
  db
    .prepare(
      `SELECT d.id AS deliveryId, d.attempts, d.outcome, w.id AS webhookId, w.url, w.secret_sealed AS secretSealed, w.enabled, w.account_id AS webhookAccountId, ` +
        `e.id AS eventFound, ${AUDIT_EVENT_SELECT} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN audit_events e ON e.id = d.event_id WHERE d.id = ?`,
    )
    .bind(deliveryId)
    .first<DeliveryRow>();

async function attemptOn(env: Bindings, settings: WebhookSettings, database: NamedDatabase, row: DeliveryRow): Promise<number | undefined> {
  // Settled by an earlier carriage of this message.
  if (row.outcome !== "PENDING") return undefined;
  const settle = (result: AttemptResult) => record(env, settings, database, row, result);
  if (!row.enabled) return settle({ ok: false, status: null, error: "The subscription is disabled" }).then(() => undefined);
  if (!row.eventFound) return settle({ ok: false, status: null, error: "The event no longer exists (past AUDIT_RETENTION_DAYS)" }).then(() => undefined);
  const secret = await webhookSecrets(env).open(row.secretSealed, row.webhookId);
  const result: AttemptResult =
    secret === undefined
      ? { ok: false, status: null, error: "The signing secret cannot be opened: CONNECTION_SECRETS_KEY no longer holds its key" }
      : await sendSigned(env, row.url, secret, row.id, payloadOf(toAuditEvent(row)));
  return settle(result);
}

/** Writes an attempt's outcome; answers the retry delay while attempts remain. */
async function record(env: Bindings, settings: WebhookSettings, database: NamedDatabase, row: DeliveryRow, result: AttemptResult): Promise<number | undefined> {
  const db = database.d1;
  const now = new Date();
  const attempts = row.attempts + 1;
  const update = (outcome: string, nextAttemptAt: string | null) =>
    db
      .prepare("UPDATE webhook_deliveries SET attempts = ?, last_status = ?, last_error = ?, outcome = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND outcome = 'PENDING'")
      .bind(attempts, result.status, result.error, outcome, nextAttemptAt, now.toISOString(), row.deliveryId);
  if (result.ok) {
    await db.batch([update("DELIVERED", null), db.prepare("UPDATE webhooks SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures > 0").bind(row.webhookId)]);
    return undefined;
  }
  if (attempts < settings.maxAttempts && row.enabled && row.eventFound) {
    const delay = backoffSeconds(attempts, settings.retryBaseSeconds);
    await update("PENDING", new Date(now.getTime() + delay * 1000).toISOString()).run();
    return delay;
  }
  // Failed for good: one more in the subscription's run; the run's last one disables it, as the SYSTEM.
  const trail = new AuditTrail(() => ({ actor: { type: "SYSTEM", id: null, name: "webhook-delivery", authentication: "NONE" }, requestId: `webhook-delivery:${row.deliveryId}`, ip: null, userAgent: null }));
  const reason = `Disabled after ${settings.disableAfterFailures} failed deliveries in a row`;
  trail.recordIf(ROW_CHANGED, {
    accountId: row.webhookAccountId,
    action: "webhook.disable",
    target: { type: "webhook", id: row.webhookId, name: row.url },
    changes: [{ member: "enabled", before: true, after: false }, { member: "disabledReason", before: null, after: reason }],
  });
  const { after, committed } = trail.takeStatements(db);
  const settled = [
    update("FAILED", null),
    db.prepare("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? AND enabled = 1").bind(row.webhookId),
    db
      .prepare(
        "UPDATE webhooks SET enabled = 0, disabled_reason = ?, revision = lower(hex(randomblob(8))), last_modified_date = ? WHERE id = ? AND enabled = 1 AND consecutive_failures >= ?",
      )
      .bind(reason, now.toISOString(), row.webhookId, settings.disableAfterFailures),
  ];
  const results = await db.batch([...settled, ...after]);
  committed(results.slice(settled.length));
  const queue: Queue | undefined = env.WEBHOOK_QUEUE;
  if (queue && trail.toDeliver.length > 0) await enqueue(queue, eventMessages(trail.toDeliver.map((e) => e.id), messageTag(env, database.name)));
  return undefined;
}

/** Events the sweep enqueues per run at most; the next run (a minute later) takes the rest. */
const SWEEP_LIMIT = 1000;
/** A PENDING delivery this long past its due time lost its message (a consumer that died): it is enqueued again. */
const STUCK_AFTER_MS = 15 * 60_000;
/** Where a first sweep starts: events older than this were written before webhooks existed here. */
const FIRST_SWEEP_LOOKBACK_MS = 3_600_000;

/**
 * The Cron Trigger's sweep: enqueues the events past the watermark, older than the grace, that no
 * message carried (an isolate that died between commit and enqueue, events written outside a
 * request), and the PENDING deliveries whose message was lost; then moves the watermark and drops
 * the dispatch marks below it. Every step reads by index (audit_events' key, webhook_dispatched's
 * key, webhook_deliveries_due). Answers how many events and deliveries it enqueued. Every database
 * (DIRECTORY and SHARDS) is swept, one after the other, each past its own watermark.
 */
export async function sweep(env: Bindings, now = Date.now()): Promise<{ events: number; deliveries: number }> {
  const queue: Queue | undefined = env.WEBHOOK_QUEUE;
  const swept = { events: 0, deliveries: 0 };
  if (!queue) return swept;
  for (const database of everyDatabase(env)) {
    const one = await sweepOne(env, queue, database, now);
    swept.events += one.events;
    swept.deliveries += one.deliveries;
  }
  return swept;
}

async function sweepOne(env: Bindings, queue: Queue, database: NamedDatabase, now: number): Promise<{ events: number; deliveries: number }> {
  const db = database.d1;
  const tag = messageTag(env, database.name);
  const cutoff = eventIdFloor(now - webhookSettings(env).sweepGraceSeconds * 1000);
  const stuckBefore = new Date(now - STUCK_AFTER_MS).toISOString();
  const [missed, stuck] = await db.batch([
    db
      .prepare(
        "SELECT e.id FROM audit_events e WHERE e.id >= COALESCE((SELECT swept_to FROM webhook_sweep WHERE id = 1), ?) AND e.id < ? " +
          "AND NOT EXISTS (SELECT 1 FROM webhook_dispatched d WHERE d.event_id = e.id) " +
          // Only events someone listened to when they happened: the others were never meant for a Queue.
          "AND EXISTS (SELECT 1 FROM webhooks w WHERE w.enabled = 1 AND w.account_id IS e.account_id AND w.created_date <= e.time) ORDER BY e.id LIMIT ?",
      )
      .bind(eventIdFloor(now - FIRST_SWEEP_LOOKBACK_MS), cutoff, SWEEP_LIMIT),
    db.prepare("SELECT id FROM webhook_deliveries WHERE outcome = 'PENDING' AND next_attempt_at < ? LIMIT ?").bind(stuckBefore, SWEEP_LIMIT),
  ]);
  const ids = (missed!.results as { id: string }[]).map((r) => r.id);
  const deliveryIds = (stuck!.results as { id: string }[]).map((r) => r.id);
  await enqueue(queue, [...eventMessages(ids, tag), ...deliveryIds.map((id) => deliveryMessage(id, tag))]);
  // Past the last id taken ("0" sorts below every id character), or the cutoff when all were taken.
  const watermark = ids.length === SWEEP_LIMIT ? `${ids.at(-1)}0` : cutoff;
  await db.batch([
    db.prepare("INSERT INTO webhook_sweep (id, swept_to) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET swept_to = ?1 WHERE swept_to < ?1").bind(watermark),
    db.prepare("DELETE FROM webhook_dispatched WHERE event_id < (SELECT swept_to FROM webhook_sweep WHERE id = 1)"),
    // Due again in STUCK_AFTER_MS if this message is lost too.
    db.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND outcome = 'PENDING'").bind(new Date(now).toISOString(), JSON.stringify(deliveryIds)),
  ]);
  return { events: ids.length, deliveries: deliveryIds.length };
}
