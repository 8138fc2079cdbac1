/**
 * Delivery settings, from the Worker's vars (wrangler.toml documents each):
 *
 * | var | default | meaning |
 * |---|---|---|
 * | WEBHOOK_MAX_ATTEMPTS | 8 | attempts of one delivery before it is marked FAILED |
 * | WEBHOOK_RETRY_BASE_SECONDS | 30 | first retry delay; each next one doubles (at most 12 h) |
 * | WEBHOOK_DISABLE_AFTER_FAILURES | 5 | FAILED deliveries in a row that disable the subscription |
 * | WEBHOOK_TIMEOUT_MS | 10000 | one attempt, request sent to answer read |
 * | WEBHOOK_SWEEP_GRACE_SECONDS | 60 | age before the sweep takes an event no message carried |
 */
export interface WebhookSettings {
  maxAttempts: number;
  retryBaseSeconds: number;
  disableAfterFailures: number;
  timeoutMs: number;
  sweepGraceSeconds: number;
}

/** Bytes of a subscriber's answer read (and kept in last_error, trimmed) before it is cut off. */
export const MAX_RESPONSE_BYTES = 4096;

export function webhookSettings(env: Readonly<Record<string, unknown>>): WebhookSettings {
  return {
    maxAttempts: whole(env.WEBHOOK_MAX_ATTEMPTS, 8, 1),
    retryBaseSeconds: whole(env.WEBHOOK_RETRY_BASE_SECONDS, 30, 0),
    disableAfterFailures: whole(env.WEBHOOK_DISABLE_AFTER_FAILURES, 5, 1),
    timeoutMs: whole(env.WEBHOOK_TIMEOUT_MS, 10_000, 1),
    sweepGraceSeconds: whole(env.WEBHOOK_SWEEP_GRACE_SECONDS, 60, 0),
  };
}

function whole(value: unknown, fallback: number, min: number): number {
  const n = Number(value);
  return typeof value === "string" && value.trim() !== "" && Number.isInteger(n) && n >= min ? n : fallback;
}
