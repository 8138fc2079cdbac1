import { createRouter } from "../../lib/create-router";
import * as handlers from "./clients.handlers";
import * as routes from "./clients.routes";

/** /api/trusted-access/clients: the supervisor's trusted-access clients. */
export const trustedAccessClientsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.rotateSecret, handlers.rotateSecret);
