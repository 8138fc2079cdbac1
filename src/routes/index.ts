import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Schema } from "hono";
import type { MergeSchemaPath } from "hono/types";
import type { AppEnv } from "../lib/types";

/**
 * The route table: every resource sub-app, the path it is mounted at, and the group it loads with.
 * A group is loaded on the first request under its prefix (src/index.ts), so that an isolate
 * starts without building the Zod schemas and routes of resources it has not been asked for yet:
 * esbuild runs the top level of a module that is only imported dynamically when the import runs,
 * not at start-up. Within a group, sub-apps are mounted in the order listed, which is the order
 * their routes are matched in. A group of several sub-apps loads them through one module of its
 * own (`accounts.group.ts`, ...): the deploy build makes one module of each dynamic import, and
 * modules that always load together cost less as one (docs/performance.md).
 */
export interface Mount<P extends string = string, S extends Schema = any> {
  path: P;
  router: OpenAPIHono<AppEnv, S, any>;
  /** Mounted before user authentication: its routes authenticate their callers themselves. */
  beforeAuthentication?: boolean;
}

function mount<P extends string, S extends Schema>(path: P, router: OpenAPIHono<AppEnv, S, any>, beforeAuthentication = false): Mount<P, S> {
  return { path, router, beforeAuthentication };
}

export interface RouteGroup<M extends Mount[] = Mount[]> {
  /** The first path segments (after the context path) of every route of the group. */
  prefix: string;
  load: () => Promise<M>;
}

const group = <M extends Mount[]>(prefix: string, load: () => Promise<M>): RouteGroup<M> => ({ prefix, load });

export const ROUTE_GROUPS = [
  group("/api/accounts", async () => {
    const accounts = await import("./accounts.group");
    return [mount("/api/accounts", accounts.accountsRouter), mount("/api/accounts", accounts.accountMembersRouter), mount("/api/accounts", accounts.accountExportRouter),
      mount("/api/accounts", accounts.accountImportRouter),
    ];
  }),
  group("/api/users", async () => [mount("/api/users", (await import("./users/users.index")).usersRouter)]),
  group("/api/user", async () => [mount("/api/user", (await import("./current-user/current-user.index")).currentUserRouter)]),
  group("/api/groups", async () => [mount("/api/groups", (await import("./groups/groups.index")).groupsRouter)]),
  group("/api/quota", async () => [mount("/api/quota", (await import("./quotas/quotas.index")).quotasRouter)]),
  group("/api/sources", async () => {
    const sources = await import("./sources.group");
    return [
      mount("/api/sources", sources.sourcesRouter),
      mount("/api/sources/:sourceId/fields", sources.fieldsRouter),
      mount("/api/sources/:sourceId/custom-metrics", sources.customMetricsRouter),
      mount("/api/sources/data-entities", sources.dataEntitiesRouter),
    ];
  }),
  group("/api/dashboards", async () => [mount("/api/dashboards", (await import("./dashboards/dashboards.index")).dashboardsRouter)]),
  group("/api/json-datasets", async () => [mount("/api/json-datasets", (await import("./json-datasets/json-datasets.index")).jsonDatasetsRouter)]),
  group("/api/calendars", async () => [mount("/api/calendars", (await import("./calendars/calendars.index")).calendarsRouter)]),
  group("/api/folders", async () => [mount("/api/folders", (await import("./folders/folders.index")).foldersRouter)]),
  group("/api/trusted-access", async () => {
    const trustedAccess = await import("./trusted-access.group");
    return [
      // The token endpoints authenticate trusted-access clients, not users.
      mount("/api/trusted-access", trustedAccess.tokenEndpointsRouter, true),
      mount("/api/trusted-access/clients", trustedAccess.trustedAccessClientsRouter),
      mount("/api/trusted-access/tokens", trustedAccess.tokenRevocationRouter),
    ];
  }),
  group("/api/connection", async () => [mount("/api/connection/types", (await import("./connection-types/connection-types.index")).connectionTypesRouter)]),
  group("/api/connections", async () => [mount("/api/connections", (await import("./connections/connections.index")).connectionsRouter)]),
  group("/api/materialized-views", async () => [
    mount("/api/materialized-views", (await import("./materialized-views/materialized-views.index")).materializedViewsRouter),
  ]),
  group("/api/audit-events", async () => [mount("/api/audit-events", (await import("./audit-events/audit-events.index")).auditEventsRouter)]),
  group("/api/webhooks", async () => [mount("/api/webhooks", (await import("./webhooks/webhooks.index")).webhooksRouter)]),
];

/** The group whose prefix starts `path` (segment by segment: /api/user is not /api/users), if any. */
export function routeGroupOf(path: string): RouteGroup | undefined {
  return ROUTE_GROUPS.find((g) => path.startsWith(g.prefix) && (path.length === g.prefix.length || path[g.prefix.length] === "/"));
}

/** Every sub-app, in the table's order. */
export async function loadAllMounts(): Promise<Mount[]> {
  return (await Promise.all(ROUTE_GROUPS.map((g) => g.load()))).flat();
}

type MountsOf<G> = G extends RouteGroup<infer M> ? M[number] : never;
type SchemaOf<M> = M extends Mount<infer P, infer S> ? MergeSchemaPath<S, P> : never;

/** The API's routes as a type: what `hono/client` needs to type a client (src/client.ts). */
export type AppType = OpenAPIHono<AppEnv, SchemaOf<MountsOf<(typeof ROUTE_GROUPS)[number]>>, "/">;
