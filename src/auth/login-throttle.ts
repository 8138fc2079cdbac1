/**
 * Failed Basic logins are throttled per client address, never per username alone: a stranger who
 * guesses wrong passwords for a name locks only its own address out of that name, and the right
 * password from any other address still signs in.
 *
 *  - per (address, username): LOGIN_RATE_LIMITER, 10 failures per 60 s;
 *  - per address, across usernames (password spraying): LOGIN_ADDRESS_RATE_LIMITER, 30 failures per 60 s.
 *
 * Failed trusted-access client authentications (token endpoints) count per (address, client_id)
 * in LOGIN_RATE_LIMITER under keys of their own, and not per address: client secrets are 256
 * random bits, so spraying them is futile, and a misconfigured integration must not lock the
 * people behind the same address out of signing in.
 *
 * The address is `CF-Connecting-IP`, which Cloudflare sets on every request and clients cannot
 * forge; IPv6 addresses count by their /64, the block one subscriber usually holds. Once a key is
 * over its limit, this isolate refuses it (429) until the period has passed, without asking the
 * binding or paying a PBKDF2 derivation again.
 */
export const LOGIN_THROTTLE_PERIOD_SECONDS = 60;

export interface LoginLimiters {
  LOGIN_RATE_LIMITER?: RateLimit;
  LOGIN_ADDRESS_RATE_LIMITER?: RateLimit;
}

const lockedUntil = new Map<string, number>();
const MAX_LOCKS = 10_000;

/** The throttling identity of the caller: its address, IPv6 narrowed to the /64 it belongs to. */
export function clientAddress(headers: Headers): string {
  const raw = headers.get("CF-Connecting-IP")?.trim();
  if (!raw) return "unknown";
  if (!raw.includes(":")) return raw;
  // An IPv4-mapped IPv6 address is that IPv4 client.
  const mapped = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(raw);
  if (mapped) return mapped[1]!;
  return `${ipv6Prefix64(raw)}::/64`;
}

function ipv6Prefix64(address: string): string {
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":");
}

const pairKey = (address: string, username: string) => `login:${address}:${username}`;
const addressKey = (address: string) => `login-address:${address}`;
const clientKey = (address: string, clientId: string) => `client:${address}:${clientId}`;

/** Seconds this address must still wait before trying this username again, or undefined. */
export function retryAfterSeconds(address: string, username: string, now = Date.now()): number | undefined {
  const waits = [pairKey(address, username), addressKey(address)].map((key) => remaining(key, now)).filter((s) => s !== undefined);
  return waits.length ? Math.max(...waits) : undefined;
}

function remaining(key: string, now: number): number | undefined {
  const until = lockedUntil.get(key);
  if (until === undefined) return undefined;
  if (until <= now) {
    lockedUntil.delete(key);
    return undefined;
  }
  return Math.ceil((until - now) / 1000);
}

/** Seconds this address must still wait before authenticating as this trusted-access client again, or undefined. */
export function clientRetryAfterSeconds(address: string, clientId: string, now = Date.now()): number | undefined {
  return remaining(clientKey(address, clientId), now);
}

/** Records a failed login; returns the seconds to wait when the address is now over a limit. */
export function recordFailedLogin(limiters: LoginLimiters, address: string, username: string): Promise<number | undefined> {
  return recordFailure([
    [limiters.LOGIN_RATE_LIMITER, pairKey(address, username)],
    [limiters.LOGIN_ADDRESS_RATE_LIMITER, addressKey(address)],
  ]);
}

/** Records a failed client authentication; returns the seconds to wait when (address, client) is now over the limit. */
export function recordFailedClientAuthentication(limiters: LoginLimiters, address: string, clientId: string): Promise<number | undefined> {
  return recordFailure([[limiters.LOGIN_RATE_LIMITER, clientKey(address, clientId)]]);
}

async function recordFailure(checks: [RateLimit | undefined, string][]): Promise<number | undefined> {
  const outcomes = await Promise.all(checks.map(async ([limiter, key]) => (limiter ? { key, ...(await limiter.limit({ key })) } : undefined)));
  const over = outcomes.filter((o) => o && !o.success);
  if (over.length === 0) return undefined;
  if (lockedUntil.size >= MAX_LOCKS) lockedUntil.clear();
  for (const o of over) lockedUntil.set(o!.key, Date.now() + LOGIN_THROTTLE_PERIOD_SECONDS * 1000);
  return LOGIN_THROTTLE_PERIOD_SECONDS;
}
