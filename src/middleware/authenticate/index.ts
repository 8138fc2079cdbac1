import type { Context, MiddlewareHandler } from "hono";
import { parseBasic, verifyBasic } from "../../auth/basic";
import { bearerDigest, cachedBearer, verifyBearer } from "../../auth/bearer";
import { AuditTrail } from "../../db/audit-trail";
import { settleCheck } from "../../db/round-trips";
import { placeByToken, placeByUserName, placeRequest, shardBinding } from "../../db/shards/routing";
import { requestOf } from "../../lib/audit";
import { clientAddress, recordFailedLogin, retryAfterSeconds } from "../../auth/login-throttle";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

const unauthenticated = (message: string) =>
  new ApiError("UNAUTHENTICATED", message, { headers: { "WWW-Authenticate": 'Basic realm="api", charset="UTF-8"' } });

const invalidToken = () =>
  new ApiError("INVALID_TOKEN", "Invalid, expired or revoked bearer token", {
    headers: { "WWW-Authenticate": 'Bearer realm="api", error="invalid_token"' },
  });

/**
 * Establishes who is calling: HTTP Basic (a stored user, or the supervisor from secrets) or a
 * trusted-access Bearer token. Every route mounted after this middleware needs one of them.
 * A bearer token is verified against D1 on every request, so a revoked token is refused by the
 * next request in every isolate: in a round trip of its own the first time this isolate sees it,
 * then riding on the request's first round trip (auth/bearer.ts, db/round-trips.ts).
 *
 * Whatever asks D1 who is calling asks the primary: the request's D1 session starts there
 * (db/session.ts), so a revocation, deletion, disabled account or changed password committed
 * anywhere is seen even where the nearest replica lags. Only that first round trip is the
 * primary's; the rest of the request may read a replica that has caught up with it.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("Authorization");
  if (!header) throw unauthenticated("Full authentication is required to access this resource");

  if (/^Bearer\s/i.test(header)) {
    const digest = await bearerDigest(header.replace(/^Bearer\s+/i, "").trim());
    if (!digest) throw invalidToken();
    const cached = cachedBearer(digest, invalidToken);
    requirePrimary(c);
    if (cached) {
      // Known here: the token's check rides on the request's first D1 round trip (on its shard: placed first).
      c.set("principal", cached.principal);
      if (c.get("shardRoute")) await placeRequest(c, cached.principal.accountId);
      c.get("roundTrips").rideAlong(cached.check);
      await next();
      // If no D1 call carried it, it is asked now, before anything is answered.
      await settleCheck(c.get("d1Session"), c.get("roundTrips"));
      return;
    }
    if (c.get("shardRoute")) await placeByToken(c, digest);
    const principal = await verifyBearer(digest, c.get("db"), c.get("config").credentialCacheTtlMs);
    if (!principal) throw invalidToken();
    c.set("principal", principal);
    if (c.get("shardRoute")) await placeRequest(c, principal.accountId);
    return next();
  }

  const credentials = parseBasic(header);
  if (!credentials) throw unauthenticated("Malformed Authorization header");

  const address = clientAddress(c.req.raw.headers);
  const wait = retryAfterSeconds(address, credentials.username);
  if (wait !== undefined) throw tooManyAttempts(wait);

  const outcome = await verifyBasic(credentials, {
    db: c.get("db"),
    supervisor: { username: c.env.SUPERVISOR_USERNAME, password: c.env.SUPERVISOR_PASSWORD },
    cacheTtlMs: c.get("config").credentialCacheTtlMs,
    beforeLookup: async () => {
      requirePrimary(c);
      if (c.get("shardRoute")) await placeByUserName(c, credentials.username);
    },
  });
  if (!outcome.ok) {
    if (outcome.reason === "account-disabled") throw unauthenticated("The user's account is disabled");
    const retryAfter = await recordFailedLogin(c.env, address, credentials.username);
    if (retryAfter !== undefined) {
      // The first 429 of a throttle window (later ones are refused above, before any write): one event, on its own.
      await AuditTrail.writeAlone(shardBinding(c.env, c.get("config").shards.directory), [{ accountId: null, action: "login.lock-out", target: { type: "user", id: null, name: credentials.username } }], {
        actor: { type: "USER", id: null, name: credentials.username, authentication: "BASIC" },
        ...requestOf(c),
      });
      c.get("roundTrips").count++;
      throw tooManyAttempts(retryAfter);
    }
    throw unauthenticated("Bad credentials");
  }
  if (outcome.rehash) c.executionCtx.waitUntil(outcome.rehash().catch(() => undefined));
  c.set("principal", outcome.principal);
  // Over several databases only (shardRoute): on one, the request's one session is its shard's already.
  if (c.get("shardRoute") && outcome.principal.kind === "user") await placeRequest(c, outcome.principal.accountId);
  return next();
};

export function tooManyAttempts(seconds: number) {
  return new ApiError("TOO_MANY_LOGIN_ATTEMPTS", "Too many failed logins from your address; wait before trying again", {
    headers: { "Retry-After": String(seconds) },
  });
}

/** Whatever asks who is calling asks the primary: the directory's session and the shard's (one session on one database). */
function requirePrimary(c: Context<AppEnv>): void {
  c.get("d1Session").requirePrimary();
  if (c.get("directorySession") !== c.get("d1Session")) c.get("directorySession").requirePrimary();
}
