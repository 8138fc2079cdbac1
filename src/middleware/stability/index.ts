import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/**
 * - experimental: responses carry `X-API-Stability: experimental`;
 * - preview: experimental, and the request must carry `X-Enable-Preview: true` (any case);
 * - deprecated: responses carry `Deprecation: true` and `Sunset` (the date the operation goes away).
 * Headers are set before `next()` too, so that error responses built later carry them.
 */
export type Stability = "experimental" | "preview" | "deprecated";

/**
 * When deprecated operations stop working (RFC 8594): one date for all of them, the end of 2027,
 * a year past the release that marks materialized views deprecated here. As an HTTP-date:
 * "Fri, 31 Dec 2027 23:59:59 GMT".
 */
export const SUNSET = new Date("2027-12-31T23:59:59Z").toUTCString();

function headersOf(mark: Stability | undefined): [string, string][] {
  return mark === "experimental" || mark === "preview"
    ? [["X-API-Stability", "experimental"]]
    : mark === "deprecated"
      ? [
          ["Deprecation", "true"],
          ["Sunset", SUNSET],
        ]
      : [];
}

export function stability(mark: Stability | undefined): MiddlewareHandler<AppEnv> {
  const headers = headersOf(mark);
  return async (c, next) => {
    for (const [name, value] of headers) c.header(name, value);
    if (mark === "preview" && c.req.header("X-Enable-Preview")?.trim().toLowerCase() !== "true") {
      throw new ApiError("PREVIEW_NOT_ENABLED", "This preview endpoint needs the header X-Enable-Preview: true");
    }
    await next();
    for (const [name, value] of headers) c.res.headers.set(name, value);
  };
}

/** What marksOfOperation reads of an app: its registered routes (their OpenAPI paths and marks). */
interface RouteRegistry {
  openAPIRegistry: { definitions: readonly { type: string; route?: { method: string; path: string; "x-stability"?: Stability } }[] };
}

/**
 * Refusals given before a route's own middleware runs (401, 406, 415, 429, ...) still belong to an
 * operation: they carry its marks too. The operation is found among the app's registered routes
 * (read on first use, once per app), templates with fewer parameters first so that `/validate`
 * wins over `/{name}`.
 */
export function marksOfOperation(app: RouteRegistry): MiddlewareHandler<AppEnv> {
  let table: { method: string; regex: RegExp; headers: [string, string][] }[] | undefined;
  return async (c, next) => {
    await next();
    // A success was answered by its route, whose own stability middleware marked it: only refusals need the lookup.
    if (c.res.status < 400 || c.res.headers.has("X-API-Stability") || c.res.headers.has("Deprecation")) return;
    table ??= operationMarks(app);
    if (table.length === 0) return;
    const method = c.req.method === "HEAD" ? "get" : c.req.method.toLowerCase();
    const path = c.req.path;
    const operation = table.find((o) => o.method === method && o.regex.test(path));
    for (const [name, value] of operation?.headers ?? []) c.res.headers.set(name, value);
  };
}

function operationMarks(app: RouteRegistry) {
  return app.openAPIRegistry.definitions
    .flatMap((definition) => (definition.type === "route" && definition.route?.["x-stability"] ? [definition.route] : []))
    .map((route) => ({
      method: route.method,
      parameters: (route.path.match(/\{[^}]+\}/g) ?? []).length,
      regex: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}/?$`),
      headers: headersOf(route["x-stability"]),
    }))
    .sort((a, b) => a.parameters - b.parameters);
}
