import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../lib/types";

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when it is a sane token, or makes one; echoes it on every response. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header("X-Request-Id");
  const id = given && ACCEPTABLE_ID.test(given) ? given : crypto.randomUUID();
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
};
