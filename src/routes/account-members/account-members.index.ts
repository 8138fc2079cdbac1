import { createRouter } from "../../lib/create-router";
import * as handlers from "./account-members.handlers";
import * as routes from "./account-members.routes";

/** /api/accounts/{accountId}/users and /admins: the reference product's account membership and administrators. */
export const accountMembersRouter = createRouter()
  .openapi(routes.listUsers, handlers.listUsers)
  .openapi(routes.putUsers, handlers.putUsers)
  .openapi(routes.listAdmins, handlers.listAdmins)
  .openapi(routes.putAdmins, handlers.putAdmins);
