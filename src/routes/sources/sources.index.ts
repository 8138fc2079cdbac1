import { createRouter } from "../../lib/create-router";
import * as handlers from "./sources.handlers";
import * as routes from "./sources.routes";

/** /api/sources: data sources, their permissions, security settings and expression syntax. */
export const sourcesRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.replace, handlers.replace)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.getPermissions, handlers.getPermissions)
  .openapi(routes.putPermissions, handlers.putPermissions)
  .openapi(routes.getSecurity, handlers.getSecurity)
  .openapi(routes.putSecurity, handlers.putSecurity)
  .openapi(routes.expressionSyntax, handlers.expressionSyntax);
