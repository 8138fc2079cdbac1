import { OpenAPIHono } from "@hono/zod-openapi";
import { createRouter } from "./lib/create-router";
import { ApiError, handleError } from "./lib/errors";
import { readConfig } from "./lib/config";
import { methodNotAllowed } from "./lib/method-not-allowed";
import type { AppEnv } from "./lib/types";
import { authenticate } from "./middleware/authenticate";
import { database } from "./middleware/database";
import { locate } from "./db/shards/locate";
import { mediaType } from "./middleware/media-type";
import { conditionalGet } from "./middleware/conditional-get";
import { corsPolicy } from "./middleware/cors";
import { drainUnreadBody } from "./middleware/request-body";
import { securityHeaders } from "./middleware/security-headers";
import { marksOfOperation } from "./middleware/stability";
import { loadAllMounts, type Mount } from "./routes";
import { requestId } from "./middleware/request-id";
import { requestLog } from "./middleware/request-log";
import { createMetaRouter } from "./routes/meta/meta.index";

/**
 * The request pipeline, in order: the request log (one line once the answer is known); request
 * id; stability marks of answers given before a route's
 * own middleware; draining of unread request bodies; config; security headers; CORS (answers
 * preflights before authentication); conditional GET (ETag, 304); media types (the answer's type
 * negotiated, 406, 415); the database handle; the public routes (health, OpenAPI document, docs)
 * and the sub-apps that authenticate their own callers; authentication; then the resource
 * sub-apps, whose routes each check their stability mark and access rule, read the JSON body (size
 * cap, strict UTF-8, no lone surrogates, nesting), validate, then run the handler. Errors anywhere
 * become the bodies of lib/errors.ts (onError).
 *
 * `options.sharded`: the deployment has several databases (docs/sharding.md); the supervisor's
 * requests are then placed on a shard (db/shards/locate.ts), between authentication and the routes.
 * `mounts` are the sub-apps this app serves (src/routes/index.ts): all of them, or in the Worker
 * one group's, loaded on its first request (src/index.ts).
 */
export function buildApp(contextPath: string, mounts: readonly Mount[], options: { sharded?: boolean } = {}) {
  const app = new OpenAPIHono<AppEnv>();
  app.onError(handleError);
  app.use("*", requestLog);
  app.use("*", requestId);
  app.use("*", marksOfOperation(app));
  app.use("*", drainUnreadBody);
  app.use("*", async (c, next) => {
    c.set("config", readConfig(c.env));
    await next();
  });
  app.use("*", securityHeaders);
  app.use("*", corsPolicy);
  // Conditional GET outside media types: a list page's ETag digests the media type it was sent in.
  app.use("*", conditionalGet);
  app.use(`${contextPath}/api/*`, mediaType);
  app.use("*", database);

  const api = createRouter();
  api.route("/", createMetaRouter());
  for (const m of mounts) if (m.beforeAuthentication) api.route(m.path, m.router);
  api.use("/api/*", authenticate);
  // Over several databases, the supervisor's request on the shard of the account it acts on (a user's: by authentication).
  if (options.sharded) api.use("/api/*", locate);
  for (const m of mounts) if (!m.beforeAuthentication) api.route(m.path, m.router);

  app.route(contextPath || "/", api);
  // "/composer/" as well as "/composer": the documented GET / redirect (meta.routes.ts) matches only the latter.
  if (contextPath) app.get(`${contextPath}/`, (c) => c.redirect(`${contextPath}/docs`, 302));
  app.notFound((c) => {
    throw methodNotAllowed(app, c.req.method, new URL(c.req.url).pathname) ?? new ApiError("ROUTE_NOT_FOUND", "No endpoint has this path");
  });
  return app;
}

/** The whole API: every route (the OpenAPI document lists them all; tests and scripts use it). */
export async function createApp(contextPath = "") {
  // For either configuration (the locator passes a request on one database by).
  return buildApp(contextPath, await loadAllMounts(), { sharded: true });
}

export type App = ReturnType<typeof buildApp>;
export type { AppType } from "./routes";
