import { OpenAPIHono } from "@hono/zod-openapi";
import { createRouter } from "./lib/create-router";
import { ApiError, handleError } from "./lib/errors";
import { readConfig } from "./lib/config";
import { methodNotAllowed } from "./lib/method-not-allowed";
import type { AppEnv } from "./lib/types";
import { authenticate } from "./middleware/authenticate";
import { database } from "./middleware/database";
import { mediaType } from "./middleware/media-type";
import { conditionalGet } from "./middleware/conditional-get";
import { corsPolicy } from "./middleware/cors";
import { drainUnreadBody } from "./middleware/request-body";
import { securityHeaders } from "./middleware/security-headers";
import { marksOfOperation } from "./middleware/stability";
import { buildDocument } from "./routes/meta/openapi-document";
import { requestId } from "./middleware/request-id";
import { accountsRouter } from "./routes/accounts/accounts.index";
import { auditEventsRouter } from "./routes/audit-events/audit-events.index";
import { calendarsRouter } from "./routes/calendars/calendars.index";
import { groupsRouter } from "./routes/groups/groups.index";
import { jsonDatasetsRouter } from "./routes/json-datasets/json-datasets.index";
import { customMetricsRouter } from "./routes/custom-metrics/metrics.index";
import { dashboardsRouter } from "./routes/dashboards/dashboards.index";
import { foldersRouter } from "./routes/folders/folders.index";
import { createMetaRouter } from "./routes/meta/meta.index";
import { quotasRouter } from "./routes/quotas/quotas.index";
import { fieldsRouter } from "./routes/source-fields/fields.index";
import { sourcesRouter } from "./routes/sources/sources.index";
import { trustedAccessClientsRouter } from "./routes/trusted-access/clients.index";
import { tokenEndpointsRouter, tokenRevocationRouter } from "./routes/trusted-access/tokens.index";
import { usersRouter } from "./routes/users/users.index";
import { currentUserRouter } from "./routes/current-user/current-user.index";
import { connectionTypesRouter } from "./routes/connection-types/connection-types.index";
import { connectionsRouter } from "./routes/connections/connections.index";
import { dataEntitiesRouter } from "./routes/data-entities/data-entities.index";
import { materializedViewsRouter } from "./routes/materialized-views/materialized-views.index";

/**
 * The request pipeline, in order: request id; draining of unread request bodies; config; security
 * headers; CORS (answers preflights before authentication); conditional GET (ETag, 304); media
 * types (the answer's type negotiated, 406, 415); the database handle; the public routes (health,
 * OpenAPI document, docs); authentication; then the resource sub-apps, whose routes each check
 * their stability mark and access rule, read the JSON body (size cap, strict UTF-8, no lone
 * surrogates, nesting), validate, then run the handler. Errors anywhere become the bodies of
 * lib/errors.ts (onError).
 */
export function createApp(contextPath = "") {
  const app = new OpenAPIHono<AppEnv>();
  app.onError(handleError);
  app.use("*", requestId);
  app.use("*", marksOfOperation(() => buildDocument(app) as never));
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
  api.route("/", createMetaRouter(() => app));
  // Before user authentication: the token endpoints authenticate trusted-access clients instead.
  api.route("/api/trusted-access", tokenEndpointsRouter);
  api.use("/api/*", authenticate);
  api.route("/", resourceRoutes());

  app.route(contextPath || "/", api);
  app.notFound((c) => {
    throw methodNotAllowed(app, c.req.method, new URL(c.req.url).pathname) ?? new ApiError("ROUTE_NOT_FOUND", "No endpoint has this path");
  });
  return app;
}

/**
 * The resource sub-apps, each at its path, in one chain so that their routes are in the type
 * (AppType, for the typed client of src/client.ts). Mounted after authentication.
 */
function resourceRoutes() {
  return createRouter()
    .route("/api/accounts", accountsRouter)
    .route("/api/users", usersRouter)
    .route("/api/user", currentUserRouter)
    .route("/api/groups", groupsRouter)
    .route("/api/quota", quotasRouter)
    .route("/api/sources", sourcesRouter)
    .route("/api/sources/:sourceId/fields", fieldsRouter)
    .route("/api/sources/:sourceId/custom-metrics", customMetricsRouter)
    .route("/api/dashboards", dashboardsRouter)
    .route("/api/json-datasets", jsonDatasetsRouter)
    .route("/api/calendars", calendarsRouter)
    .route("/api/folders", foldersRouter)
    .route("/api/trusted-access/clients", trustedAccessClientsRouter)
    .route("/api/trusted-access/tokens", tokenRevocationRouter)
    .route("/api/connection/types", connectionTypesRouter)
    .route("/api/connections", connectionsRouter)
    .route("/api/sources/data-entities", dataEntitiesRouter)
    .route("/api/materialized-views", materializedViewsRouter)
    .route("/api/audit-events", auditEventsRouter);
}

/** The API's routes as a type: what `hono/client` needs to type a client (src/client.ts). */
export type AppType = ReturnType<typeof resourceRoutes>;
