import { createRouter } from "../../lib/create-router";
import * as handlers from "./tokens.handlers";
import * as routes from "./tokens.routes";

/**
 * /api/trusted-access/{push,pull}/tokens: mounted BEFORE user authentication, since a trusted
 * client authenticates with its own credentials (each route's `trustedClient` access rule).
 */
export const tokenEndpointsRouter = createRouter().openapi(routes.push, handlers.push).openapi(routes.pull, handlers.pull);

/** /api/trusted-access/tokens: revocation by the supervisor, after user authentication. */
export const tokenRevocationRouter = createRouter().openapi(routes.revoke, handlers.revoke);
