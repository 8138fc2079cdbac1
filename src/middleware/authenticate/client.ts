import type { Context, MiddlewareHandler } from "hono";
import { parseBasic } from "../../auth/basic";
import { verifyClient, type TrustedClient } from "../../auth/client";
import { clientAddress, clientRetryAfterSeconds, recordFailedClientAuthentication } from "../../auth/login-throttle";
import { nowInSeconds } from "../../domain/trusted-access";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import { tooManyAttempts } from "./index";

const invalidClient = (message: string) =>
  new ApiError("INVALID_CLIENT", message, { headers: { "WWW-Authenticate": 'Basic realm="trusted-access", charset="UTF-8"' } });

/**
 * The token endpoints' authentication (access `trustedClient`): HTTP Basic with a trusted-access
 * client's client_id and client_secret, instead of a user's. Runs before the body is read, like
 * every access rule. Failures are throttled per (address, client_id) (auth/login-throttle.ts).
 * Clients live in the directory (docs/sharding.md): the request's shard is placed afterwards, by the
 * token endpoint, on the account of the user it issues a token for.
 */
export const authenticateClient: MiddlewareHandler<AppEnv> = async (c, next) => {
  const credentials = parseBasic(c.req.header("Authorization") ?? "");
  if (!credentials) throw invalidClient("Authenticate the client with HTTP Basic: its client_id as the username, its client_secret as the password");
  const address = clientAddress(c.req.raw.headers);
  const wait = clientRetryAfterSeconds(address, credentials.username);
  if (wait !== undefined) throw tooManyAttempts(wait);

  // A deleted client or an expired secret is refused at once: the lookup reads the directory's primary.
  c.get("directorySession").requirePrimary();
  const client = await verifyClient(c.get("directory"), credentials, nowInSeconds());
  if (!client) {
    const retryAfter = await recordFailedClientAuthentication(c.env, address, credentials.username);
    if (retryAfter !== undefined) throw tooManyAttempts(retryAfter);
    throw invalidClient("Unknown client, or a wrong or expired client secret");
  }
  c.set("client", client);
  await next();
};

/**
 * The request's client, verified again (a handler whose write found the client changed since the
 * request authenticated): 401 if its secret no longer works or it is gone. Not counted as a failed
 * attempt: the request authenticated once.
 */
export async function reverifyClient(c: Context<AppEnv>): Promise<TrustedClient> {
  const credentials = parseBasic(c.req.header("Authorization") ?? "");
  const client = credentials && (await verifyClient(c.get("directory"), credentials, nowInSeconds()));
  if (!client) throw invalidClient("The client's secret stopped working, or the client was deleted, while the token was issued");
  return client;
}
