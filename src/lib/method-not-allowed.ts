import type { Hono } from "hono";
import { ApiError } from "./errors";

const patterns = new WeakMap<object, { regex: RegExp; method: string }[]>();

/** For a path that some route serves with other methods: a 405 naming them in `Allow`. */
export function methodNotAllowed(app: Hono<any>, method: string, path: string): ApiError | undefined {
  let table = patterns.get(app);
  if (!table) {
    table = app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        method: r.method,
        regex: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+").replace(/\/\*$/, "/.*")}/?$`),
      }));
    patterns.set(app, table);
  }
  const allowed = [...new Set(table.filter((r) => r.regex.test(path)).map((r) => r.method))];
  if (allowed.length === 0 || allowed.includes(method)) return undefined;
  if (allowed.includes("GET")) allowed.push("HEAD");
  return new ApiError("METHOD_NOT_ALLOWED", `${method} is not supported here; use ${allowed.join(", ")}`, {
    headers: { Allow: allowed.join(", ") },
  });
}
