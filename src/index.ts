import { createApp } from "./app";
import { pruneAuditEvents, retentionDays } from "./db/audit-retention";
import { normaliseContextPath } from "./lib/config";
import type { Bindings } from "./lib/types";

// One app per context path, built on first use and kept for the life of the isolate.
const apps = new Map<string, ReturnType<typeof createApp>>();

export default {
  fetch(request, env, ctx) {
    const contextPath = normaliseContextPath(env.CONTEXT_PATH);
    let app = apps.get(contextPath);
    if (!app) apps.set(contextPath, (app = createApp(contextPath)));
    return app.fetch(request, env, ctx);
  },
  /** The Cron Trigger (wrangler.toml [triggers]): prunes audit events past AUDIT_RETENTION_DAYS. */
  async scheduled(_controller, env) {
    const deleted = await pruneAuditEvents(env.DB, retentionDays(env.AUDIT_RETENTION_DAYS));
    console.log(JSON.stringify({ level: "info", message: "audit events pruned", deleted }));
  },
} satisfies ExportedHandler<Bindings>;
