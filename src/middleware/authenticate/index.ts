import type { MiddlewareHandler } from "hono";
import { parseBasic, verifyBasic } from "../../auth/basic";
import { verifyBearer } from "../../auth/bearer";
import { clientAddress, recordFailedLogin, retryAfterSeconds } from "../../auth/login-throttle";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

const unauthenticated = (message: string, scheme: "Basic" | "Bearer" = "Basic") =>
  new ApiError("UNAUTHENTICATED", message, {
    headers: { "WWW-Authenticate": scheme === "Basic" ? 'Basic realm="api", charset="UTF-8"' : 'Bearer realm="api", error="invalid_token"' },
  });

/**
 * Establishes who is calling: HTTP Basic (a stored user, or the supervisor from secrets) or a
 * trusted-access Bearer token. Every route mounted after this middleware needs one of them.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("Authorization");
  if (!header) throw unauthenticated("Full authentication is required to access this resource");

  if (/^Bearer\s/i.test(header)) {
    const principal = await verifyBearer(header.replace(/^Bearer\s+/i, "").trim(), c.get("db"));
    if (!principal) throw unauthenticated("Invalid or expired bearer token", "Bearer");
    c.set("principal", principal);
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
  });
  if (!outcome.ok) {
    if (outcome.reason === "account-disabled") throw unauthenticated("The user's account is disabled");
    const retryAfter = await recordFailedLogin(c.env, address, credentials.username);
    if (retryAfter !== undefined) throw tooManyAttempts(retryAfter);
    throw unauthenticated("Bad credentials");
  }
  if (outcome.rehash) c.executionCtx.waitUntil(outcome.rehash().catch(() => undefined));
  c.set("principal", outcome.principal);
  return next();
};

function tooManyAttempts(seconds: number) {
  return new ApiError("TOO_MANY_LOGIN_ATTEMPTS", "Too many failed logins from your address; wait before trying again", {
    headers: { "Retry-After": String(seconds) },
  });
}
