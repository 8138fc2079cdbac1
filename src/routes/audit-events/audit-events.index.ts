import { createRouter } from "../../lib/create-router";
import * as handlers from "./audit-events.handlers";
import * as routes from "./audit-events.routes";

/** /api/audit-events: the audit trail (docs/audit.md). */
export const auditEventsRouter = createRouter().openapi(routes.list, handlers.list).openapi(routes.getOne, handlers.getOne);
