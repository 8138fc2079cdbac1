import type { MiddlewareHandler } from "hono";
import { describeServedBy } from "../../db/session";
import { readConfig } from "../../lib/config";
import { loggablePath } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";
import { formatRequestLine, type RequestLine } from "./format";

/**
 * One log line per request, written once the answer is known: when, method, path, status,
 * duration, request id, who called (account, user or trusted-access client), the D1 round
 * trips it took and, when D1 said, where they were served (primary or replica, and region).
 * LOG_FORMAT chooses the form: "json" (the default, one JSON object per line that Workers Logs
 * indexes field by field), "pretty" (one readable line; `npm start` sets it) or "none" (a line for
 * a 5xx answer only: for a deployment that relies on Workers Logs' own invocation logs, and spares
 * the console call each request otherwise makes, docs/request-log.md).
 *
 * Only what is listed above is logged, never headers, bodies or the query string, so neither an
 * Authorization header nor a password, secret, token or page token can reach the log; a bearer
 * token named in a revocation's path is replaced by `{token}` (loggablePath).
 *
 * Cheap by design: no await of its own, one console call, and the formatter is chosen once per
 * isolate with the rest of the config.
 */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const start = Date.now();
  await next();
  const format = readConfig(c.env).logFormat;
  if (format === "none" && c.res.status < 500) return;
  const principal = c.get("principal");
  const line: RequestLine = {
    time: start,
    method: c.req.method,
    path: loggablePath(c.req.path),
    status: c.res.status,
    durationMs: Date.now() - start,
    requestId: c.get("requestId"),
    accountId: principal?.kind === "user" ? principal.accountId : undefined,
    userId: principal?.id,
    clientId: c.get("client")?.clientId,
    d1RoundTrips: c.get("roundTrips")?.count ?? 0,
  };
  const servedBy = c.get("d1ServedBy");
  if (servedBy?.length) line.d1ServedBy = describeServedBy(servedBy);
  const text = formatRequestLine(line, format);
  if (line.status >= 500) console.error(text);
  else console.log(text);
};
