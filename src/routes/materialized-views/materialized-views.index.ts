import { createRouter } from "../../lib/create-router";
import * as handlers from "./materialized-views.handlers";
import * as routes from "./materialized-views.routes";

/** /api/materialized-views: materialized views (deprecated since 23.1). */
export const materializedViewsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.replace, handlers.replace)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
