import { createRouter } from "../../lib/create-router";
import * as handlers from "./account-import.handlers";
import * as routes from "./account-import.routes";

/** /api/accounts/{accountId}/import: a bundle planned (dry run) or applied atomically (docs/export-import.md). */
export const accountImportRouter = createRouter().openapi(routes.importAccount, handlers.importAccount);
