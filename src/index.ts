import type { App } from "./app";
import { normaliseContextPath } from "./lib/config";
import type { Bindings } from "./lib/types";
import { routeGroupOf, type RouteGroup } from "./routes";
import { WEBHOOK_SWEEP_CRON } from "./webhooks/cron";

/**
 * One app per context path and route group, built on the first request under the group's prefix
 * and kept for the life of the isolate: an isolate starts without the Zod schemas and routes of
 * every resource (src/routes/index.ts). A path of no group (health, the OpenAPI document, which is
 * built at build time, the reference page, an unknown path) is served by an app with the public
 * routes only. The app itself (middleware, Hono, Zod, Drizzle) is imported on the
 * first request too: this module and what it imports statically are all an isolate runs at start-up
 * (scripts/build.mjs splits the deploy build at these dynamic imports).
 */
const apps = new Map<string, App | Promise<App>>();

export default {
  fetch(request, env, ctx) {
    // Bench only (npm run bench sets EXPOSE_D1_STATEMENTS): the D1 statements a request made, by its request id.
    if (env.EXPOSE_D1_STATEMENTS === "true" && pathOf(request.url).startsWith(BENCH_STATEMENTS_PATH)) return benchStatements(request.url);
    const contextPath = normaliseContextPath(env.CONTEXT_PATH);
    const path = pathOf(request.url).slice(contextPath.length);
    const group = routeGroupOf(path);
    // Several databases (docs/sharding.md): the app also places the supervisor's requests on a shard.
    const sharded = env.SHARDS !== undefined && env.SHARDS !== env.DIRECTORY;
    const key = `${contextPath} ${group?.prefix ?? ""}${sharded ? " sharded" : ""}`;
    const app = apps.get(key);
    if (app && !(app instanceof Promise)) return app.fetch(request, env, ctx);
    return (app ?? load(key, contextPath, group, sharded)).then((loaded) => loaded.fetch(request, env, ctx));
  },
  /** The webhook Queue's consumer (src/webhooks/consumer.ts), loaded on the first batch. */
  async queue(batch, env) {
    const { consumeWebhookBatch } = await import("./webhooks/consumer");
    await consumeWebhookBatch(batch as MessageBatch<never>, env);
  },
  /**
   * The Cron Triggers (wrangler.toml [triggers]): every minute, the webhook sweep (events no message
   * carried); at 17 past each hour, the prune of audit events past AUDIT_RETENTION_DAYS. Both run
   * over every database DIRECTORY and SHARDS name (docs/sharding.md).
   */
  async scheduled(controller, env) {
    if (controller.cron === WEBHOOK_SWEEP_CRON) {
      const { sweep } = await import("./webhooks/consumer");
      const swept = await sweep(env);
      if (swept.events + swept.deliveries > 0) console.log(JSON.stringify({ level: "info", message: "webhook sweep", ...swept }));
      return;
    }
    // Every database DIRECTORY and SHARDS name, each once (docs/sharding.md).
    const { pruneEveryDatabase, retentionDays } = await import("./db/audit-retention");
    const byDatabase = await pruneEveryDatabase(env, retentionDays(env.AUDIT_RETENTION_DAYS));
    const deleted = Object.values(byDatabase).reduce((sum, n) => sum + n, 0);
    console.log(JSON.stringify({ level: "info", message: "audit events pruned", deleted, ...(Object.keys(byDatabase).length > 1 && { byDatabase }) }));
  },
} satisfies ExportedHandler<Bindings>;

const BENCH_STATEMENTS_PATH = "/__bench/d1-statements/";

async function benchStatements(url: string): Promise<Response> {
  const { recordedStatements } = await import("./db/round-trips");
  const trips = recordedStatements(decodeURIComponent(pathOf(url).slice(BENCH_STATEMENTS_PATH.length)));
  return trips ? Response.json(trips) : new Response("no such request id", { status: 404 });
}

function load(key: string, contextPath: string, group: RouteGroup | undefined, sharded: boolean): Promise<App> {
  const loading = (async () => {
    const mounts = group?.load() ?? [];
    const { buildApp } = await import("./app");
    return buildApp(contextPath, await mounts, { sharded });
  })();
  apps.set(key, loading);
  loading.then(
    (app) => apps.set(key, app),
    () => apps.delete(key),
  );
  return loading;
}

/** The path of a request URL, without parsing the whole URL. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end < 0 ? undefined : end);
}
