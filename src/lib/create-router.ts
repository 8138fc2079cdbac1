import { OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import { validationError } from "./errors";
import type { AppEnv } from "./types";

/** Every sub-app is made here, so that every invalid path, query or body becomes one 400 with Problems. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
}

export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
