import { createRouter } from "../../lib/create-router";
import * as handlers from "./connection-types.handlers";
import * as routes from "./connection-types.routes";

/** /api/connection/types: the kinds of connection the installation offers (the supervisor's), and which accounts may use each. */
export const connectionTypesRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.getAccounts, handlers.getAccounts)
  .openapi(routes.putAccounts, handlers.putAccounts);
