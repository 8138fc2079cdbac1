import { createRouter } from "../../lib/create-router";
import * as handlers from "./connections.handlers";
import * as routes from "./connections.routes";

/** /api/connections: an account's connections to data stores, their validation, and their stores' schemas, tables and rows. */
export const connectionsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.validate, handlers.validate)
  .openapi(routes.test, handlers.test)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.upsert, handlers.upsert)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.schemas, handlers.schemas)
  .openapi(routes.describe, handlers.describe)
  .openapi(routes.preview, handlers.preview);
