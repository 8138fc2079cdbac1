import { createRouter } from "../../lib/create-router";
import * as handlers from "./users.handlers";
import * as routes from "./users.routes";

/** /api/users: the account's users, their groups and extra roles. */
export const usersRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
