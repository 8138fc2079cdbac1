/**
 * The webhook Queue's messages (consumed by src/webhooks/consumer.ts): audit event ids to fan out, or
 * one delivery to attempt. Over several databases (docs/sharding.md) a message names the binding of
 * the database holding its events or delivery (`db`); a message without one (on one database, or
 * sent before the service was spread over several) is looked for on every database.
 */
export type WebhookMessage = { events: string[]; db?: string } | { delivery: string; db?: string };

/** Ids per `{events}` message (26 characters each: far inside a message's 128 KB) and messages per sendBatch (the Queue's limit). */
const IDS_PER_MESSAGE = 500;
const MESSAGES_PER_SEND = 100;

/** `{events}` messages for these ids, all on the database `db` (undefined: named by none). */
export function eventMessages(ids: readonly string[], db?: string): WebhookMessage[] {
  const messages: WebhookMessage[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_MESSAGE) messages.push(db === undefined ? { events: ids.slice(i, i + IDS_PER_MESSAGE) } : { events: ids.slice(i, i + IDS_PER_MESSAGE), db });
  return messages;
}

/** `{events}` messages for events that may be on several databases: one group of messages per database. */
export function eventMessagesByDatabase(events: readonly { id: string; db?: string }[]): WebhookMessage[] {
  const byDatabase = new Map<string | undefined, string[]>();
  for (const { id, db } of events) {
    const ids = byDatabase.get(db) ?? [];
    ids.push(id);
    byDatabase.set(db, ids);
  }
  return [...byDatabase].flatMap(([db, ids]) => eventMessages(ids, db));
}

/** A `{delivery}` message (naming its database over several). */
export const deliveryMessage = (delivery: string, db?: string): WebhookMessage => (db === undefined ? { delivery } : { delivery, db });

export async function enqueue(queue: Queue, messages: WebhookMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += MESSAGES_PER_SEND) await queue.sendBatch(messages.slice(i, i + MESSAGES_PER_SEND).map((body) => ({ body })));
}
