import { createRouter } from "../../lib/create-router";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

/** /api/webhooks: subscriptions to changes (docs/webhooks.md). */
export const webhooksRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.rotateSecret, handlers.rotateSecret)
  .openapi(routes.deliveries, handlers.deliveries)
  .openapi(routes.retryDelivery, handlers.retryDelivery)
  .openapi(routes.ping, handlers.ping);
