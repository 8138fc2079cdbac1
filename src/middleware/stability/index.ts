import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/**
 * - experimental: responses carry `X-API-Stability: experimental`;
 * - preview: experimental, and the request must carry `X-Enable-Preview: true` (any case);
 * - deprecated: responses carry `Deprecation: true`.
 * Headers are set before `next()` too, so that error responses built later carry them.
 */
export type Stability = "experimental" | "preview" | "deprecated";

export function stability(mark: Stability | undefined): MiddlewareHandler<AppEnv> {
  const headers: [string, string][] =
    mark === "experimental" || mark === "preview"
      ? [["X-API-Stability", "experimental"]]
      : mark === "deprecated"
        ? [["Deprecation", "true"]]
        : [];
  return async (c, next) => {
    for (const [name, value] of headers) c.header(name, value);
    if (mark === "preview" && c.req.header("X-Enable-Preview")?.trim().toLowerCase() !== "true") {
      throw new ApiError("PREVIEW_NOT_ENABLED", "This preview endpoint needs the header X-Enable-Preview: true");
    }
    await next();
    for (const [name, value] of headers) c.res.headers.set(name, value);
  };
}
