import { createRouter } from "../../lib/create-router";
import * as handlers from "./accounts.handlers";
import * as moveHandlers from "./move.handlers";
import * as routes from "./accounts.routes";

/** /api/accounts: tenants. Supervisor only. */
export const accountsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getByName, handlers.getByName)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.move, moveHandlers.move);
