import { createRouter } from "../../lib/create-router";
import * as handlers from "./fields.handlers";
import * as routes from "./fields.routes";

/** /api/sources/{sourceId}/fields: a source's native, derived and hierarchy fields. */
export const fieldsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.validate, handlers.validate)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.put, handlers.put)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
