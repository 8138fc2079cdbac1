import { createRouter } from "../../lib/create-router";
import * as handlers from "./data-entities.handlers";
import * as routes from "./data-entities.routes";

/** /api/sources/data-entities: the tables of a connection, seen as what a source is made of. */
export const dataEntitiesRouter = createRouter().openapi(routes.describe, handlers.describe);
