import { createRouter } from "../../lib/create-router";
import * as handlers from "./current-user.handlers";
import * as routes from "./current-user.routes";

/** /api/user: the caller itself (the reference product's "current user"). */
export const currentUserRouter = createRouter().openapi(routes.getCurrentUser, handlers.getCurrentUser);
