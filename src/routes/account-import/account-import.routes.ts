import type { BodyCap } from "../../middleware/request-body";
import { defineRoute, EXPORT_PASSPHRASE_PARAMETER, jsonBody, jsonContent } from "../../lib/openapi";
import { AccountIdParamSchema } from "../account-members/account-members.schemas";
import { AccountBundleSchema } from "../account-export/account-export.schemas";
import { ImportPlanSchema, ImportQuerySchema } from "./account-import.schemas";

/** A bundle carries an account's datasets, several of them: a cap of its own, MAX_IMPORT_BYTES (documented with the default vars, for clients and the fuzz). */
const bodyCap: BodyCap = (config) => config.maxImportBytes;

export const importAccount = defineRoute({
  method: "post",
  path: "/{accountId}/import",
  tags: ["Accounts"],
  summary: "Import a bundle (what the export answers) into the account: a plan with dryRun=true, else that plan applied atomically",
  description:
    "The bundle is matched against the account by type and name (a folder by path): each object is CAN_BE_CREATED, CAN_BE_UPDATED (with the " +
    "members that change), UNCHANGED or CONFLICT; with prune=true, what the account holds and the bundle lacks is CAN_BE_DELETED. Without dryRun " +
    "the plan is applied in one D1 batch (every object or none) and answered with CREATED, UPDATED, DELETED; a plan with a CONFLICT is refused " +
    "with 409 naming each and the whole plan. Users are never created; secrets are kept from the account's own connections, or given sealed " +
    "under X-Export-Passphrase. See docs/export-import.md.",
  access: { kind: "accountAdmin" },
  bodyCap,
  "x-max-body-bytes": 16_777_216,
  errors: ["NOT_FOUND", "IMPORT_CONFLICT", "CONCURRENT_UPDATE", "INVALID_PASSPHRASE", "CONNECTION_SECRETS_UNAVAILABLE"],
  parameters: [EXPORT_PASSPHRASE_PARAMETER],
  request: {
    params: AccountIdParamSchema,
    query: ImportQuerySchema,
    body: jsonBody(AccountBundleSchema, "A bundle, as GET /api/accounts/{accountId}/export answers it"),
  },
  responses: { 200: jsonContent(ImportPlanSchema, "The plan (dry run) or the plan as applied") },
});
