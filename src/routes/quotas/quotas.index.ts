import { createRouter } from "../../lib/create-router";
import * as handlers from "./quotas.handlers";
import * as routes from "./quotas.routes";

/** /api/quota: per-account limits, with consumption computed from live objects. */
export const quotasRouter = createRouter()
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.upsert, handlers.upsert)
  .openapi(routes.refresh, handlers.refresh)
  .openapi(routes.remove, handlers.remove);
