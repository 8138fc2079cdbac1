import { createRouter } from "../../lib/create-router";
import * as handlers from "./sources.handlers";
import * as routes from "./sources.routes";
import * as migration from "../source-migration/migration.routes";
import * as migrationHandlers from "../source-migration/migration.handlers";

/**
 * /api/sources: data sources, their permissions, security settings and expression syntax, and their
 * export and import (src/routes/source-migration), registered first: /api/sources/export is no source id.
 */
export const sourcesRouter = createRouter()
  .openapi(migration.exportSources, migrationHandlers.exportSources)
  .openapi(migration.importSources, migrationHandlers.importSources)
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
