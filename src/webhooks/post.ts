import { DeadlineExceeded, fetchWithin } from "../connectors/deadline";
import { connectorEnvironment } from "../connectors/environment";
import { signatureOf, urlProblem } from "../domain/webhooks/webhooks";
import { MAX_RESPONSE_BYTES, webhookSettings } from "../domain/webhooks/settings";
import type { Bindings } from "../lib/types";

export interface AttemptResult {
  ok: boolean;
  /** The answer's HTTP status; null when none came. */
  status: number | null;
  /** Why it failed (never the subscriber's body), null on success. */
  error: string | null;
}

/**
 * A delivery or a ping: the host policy is asked again first (it may have changed since the URL
 * was accepted), then postSigned with the deployment's time-out.
 */
export async function sendSigned(env: Bindings, url: string, secret: string, id: string, body: string): Promise<AttemptResult> {
  const refused = urlProblem(url, connectorEnvironment(env).hostPolicy);
  if (refused) return { ok: false, status: null, error: `The URL is refused now: ${refused}` };
  return postSigned(url, secret, id, body, webhookSettings(env).timeoutMs);
}

/**
 * One signed POST of `body` to `url` (Standard Webhooks headers). Success is a 2xx; a redirect is
 * not followed (it could lead past the host policy) and counts as a failure. The answer must come
 * within `timeoutMs`; at most MAX_RESPONSE_BYTES of its body are read, then the rest is dropped.
 */
export async function postSigned(url: string, secret: string, id: string, body: string, timeoutMs: number): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "analytics-metadata-webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureOf(secret, id, timestamp, body),
  };
  try {
    // The time-out covers the answer's body too: a subscriber that trickles it is cut off.
    const status = await fetchWithin(url, { method: "POST", headers, body, redirect: "manual" }, timeoutMs, async (response) => {
      await drain(response.body);
      return response.status;
    });
    const ok = status >= 200 && status < 300;
    return { ok, status, error: ok ? null : `HTTP ${status}` };
  } catch (err) {
    return { ok: false, status: null, error: err instanceof DeadlineExceeded ? `No answer within ${timeoutMs} ms` : "Could not connect (refused, unknown host, or blocked)" };
  }
}

/** Reads at most MAX_RESPONSE_BYTES of an answer and drops the rest, so a huge or endless body costs nothing. */
async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  for (let read = 0; read <= MAX_RESPONSE_BYTES; ) {
    const { value, done } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel().catch(() => {});
}
