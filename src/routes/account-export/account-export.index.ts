import { createRouter } from "../../lib/create-router";
import * as handlers from "./account-export.handlers";
import * as routes from "./account-export.routes";

/** /api/accounts/{accountId}/export: the whole account as one bundle (docs/export-import.md). */
export const accountExportRouter = createRouter().openapi(routes.exportAccount, handlers.exportAccount);
