import { createRouter } from "../../lib/create-router";
import * as handlers from "./metrics.handlers";
import * as routes from "./metrics.routes";

/** /api/sources/{sourceId}/custom-metrics: a source's custom metrics (E1 and the rest of the set). */
export const customMetricsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.validate, handlers.validate)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.put, handlers.put)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
