/** The webhook Queue's messages (consumed by src/webhooks/consumer.ts): audit event ids to fan out, or one delivery to attempt. */
export type WebhookMessage = { events: string[] } | { delivery: string };

/** Ids per `{events}` message (26 characters each: far inside a message's 128 KB) and messages per sendBatch (the Queue's limit). */
const IDS_PER_MESSAGE = 500;
const MESSAGES_PER_SEND = 100;

/** `{events}` messages for these ids. */
export function eventMessages(ids: readonly string[]): WebhookMessage[] {
  const messages: WebhookMessage[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_MESSAGE) messages.push({ events: ids.slice(i, i + IDS_PER_MESSAGE) });
  return messages;
}

export async function enqueue(queue: Queue, messages: WebhookMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += MESSAGES_PER_SEND) await queue.sendBatch(messages.slice(i, i + MESSAGES_PER_SEND).map((body) => ({ body })));
}
