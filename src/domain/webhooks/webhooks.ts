/**
 * Webhooks' pure rules (docs/webhooks.md): which events a subscription takes, how a delivery is
 * signed (Standard Webhooks), when a failed one is tried again, and which URLs may receive.
 */
import { AUDIT_ACTIONS } from "../audit/event";
import { checkHost, type HostPolicy } from "../connectors/host-policy";
import { fromBase64, toBase64 } from "../bytes";

/**
 * `*`, an exact action (`custom-metric.update`), or a prefix ending in `.*` that some action
 * starts with (`source.*`); undefined when valid, else why not.
 */
/**
 * Subscriptions an account may hold (and the supervisor, for changes outside any account). Each
 * event is matched against every enabled one by the consumer, and a list answers them all, so the
 * number is bounded; as an account's materialized views are.
 */
export const MAX_WEBHOOKS_PER_ACCOUNT = 100;

export function patternProblem(pattern: string): string | undefined {
  if (pattern === "*") return undefined;
  if (pattern.endsWith(".*")) {
    const prefix = pattern.slice(0, -1);
    return AUDIT_ACTIONS.some((a) => a.startsWith(prefix)) ? undefined : `No action starts with "${prefix}"`;
  }
  return (AUDIT_ACTIONS as readonly string[]).includes(pattern) ? undefined : "Not an audit action (e.g. source.update), a prefix such as source.*, or *";
}

export function matchesAny(patterns: readonly string[], action: string): boolean {
  return patterns.some((p) => p === "*" || p === action || (p.endsWith(".*") && action.startsWith(p.slice(0, -1))));
}

/** The delay before attempt `attempt + 1` after `attempt` failed ones: base, 2×base, 4×base, ..., at most `capSeconds`. */
export function backoffSeconds(failedAttempts: number, baseSeconds: number, capSeconds = 43_200): number {
  return Math.min(capSeconds, baseSeconds * 2 ** Math.max(0, failedAttempts - 1));
}

const SECRET_PREFIX = "whsec_";

/** A signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * The `webhook-signature` of a delivery: `v1,` and the base64 HMAC-SHA256, under the secret's
 * bytes, of `<webhook-id>.<webhook-timestamp>.<body>` (Standard Webhooks, symmetric scheme).
 */
export async function signatureOf(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const keyBytes = fromBase64(raw);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  return `v1,${toBase64(mac)}`;
}

/**
 * Why `raw` may not receive deliveries, or undefined. Its host passes the connectors' host policy
 * (CONNECTOR_ALLOWED_HOSTS); plain http only to a host that policy lists itself (a local receiver);
 * no credentials in the URL (they would show in every answer).
 */
export function urlProblem(raw: string, policy: HostPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Not an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Must be an https URL";
  if (url.username || url.password) return "Must not carry a user name or password";
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const verdict = checkHost(policy, url.hostname, port);
  if (!verdict.allowed) return verdict.reason;
  // Listed explicitly: allowed by an entry of its own, not by "any public host".
  if (url.protocol === "http:" && !checkHost({ allowsPublicHosts: false, entries: policy.entries }, url.hostname, port).allowed) {
    return "Must be an https URL (plain http only to a host CONNECTOR_ALLOWED_HOSTS lists)";
  }
  return undefined;
}

/** What a subscriber receives: the Standard Webhooks envelope around the audit event as the API shows it. */
export function payloadOf(event: { id: string; action: string; time: string }): string {
  return JSON.stringify({ type: event.action, timestamp: event.time, data: event });
}
