import { createRouter } from "../../lib/create-router";
import * as acl from "./folders.acl.handlers";
import * as handlers from "./folders.handlers";
import * as items from "./folders.items.handlers";
import * as routes from "./folders.routes";

/** /api/folders: the library folder tree (preview). The fixed paths come before /{id}. */
export const foldersRouter = createRouter()
  .openapi(routes.tree, handlers.tree)
  .openapi(routes.putTreeState, handlers.putTreeState)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.children, handlers.children)
  .openapi(routes.contents, handlers.contents)
  .openapi(routes.path, handlers.path)
  .openapi(routes.getPermissions, acl.getPermissions)
  .openapi(routes.putPermissions, acl.putPermissions)
  .openapi(routes.putItem, items.putItem)
  .openapi(routes.removeItem, items.removeItem);
