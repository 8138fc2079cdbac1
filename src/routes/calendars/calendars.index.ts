import { createRouter } from "../../lib/create-router";
import * as handlers from "./calendars.handlers";
import * as routes from "./calendars.routes";

/** /api/calendars (experimental): the account's calendars, and the periods of any of them or of the built-in one. */
export const calendarsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.periods, handlers.periods)
  .openapi(routes.periodsAt, handlers.periodsAtDate);
