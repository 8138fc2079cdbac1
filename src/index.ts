import { createApp } from "./app";
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
} satisfies ExportedHandler<Bindings>;
