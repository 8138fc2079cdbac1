import { createRouter } from "../../lib/create-router";
import * as handlers from "./groups.handlers";
import * as routes from "./groups.routes";

/** /api/groups: the caller's account's groups and the privileges they grant. */
export const groupsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
