/**
 * Failed Basic logins per username go through the Workers Rate Limiting binding. Once a
 * username is over the limit this isolate refuses it (429) until the period has passed,
 * without asking the binding or paying a PBKDF2 derivation again.
 */
export const LOGIN_THROTTLE_PERIOD_SECONDS = 60;
const lockedUntil = new Map<string, number>();

export function retryAfterSeconds(username: string, now = Date.now()): number | undefined {
  const until = lockedUntil.get(username);
  if (until === undefined) return undefined;
  if (until <= now) {
    lockedUntil.delete(username);
    return undefined;
  }
  return Math.ceil((until - now) / 1000);
}

/** Records a failed login; returns the seconds to wait when the username is now over the limit. */
export async function recordFailedLogin(limiter: RateLimit | undefined, username: string): Promise<number | undefined> {
  if (!limiter) return undefined;
  const { success } = await limiter.limit({ key: `login:${username}` });
  if (success) return undefined;
  if (lockedUntil.size > 10_000) lockedUntil.clear();
  lockedUntil.set(username, Date.now() + LOGIN_THROTTLE_PERIOD_SECONDS * 1000);
  return LOGIN_THROTTLE_PERIOD_SECONDS;
}
