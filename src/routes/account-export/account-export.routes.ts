import { defineRoute, EXPORT_PASSPHRASE_PARAMETER, jsonContent } from "../../lib/openapi";
import { AccountIdParamSchema } from "../account-members/account-members.schemas";
import { AccountBundleSchema } from "./account-export.schemas";

export const exportAccount = defineRoute({
  method: "get",
  path: "/{accountId}/export",
  tags: ["Accounts"],
  summary: "Export everything the account defines as one JSON bundle, by name (the supervisor, or an administrator of the account)",
  description:
    "Groups, users (named, never their passwords), quota, connections (secret parameters never in clear), calendars, sources with their fields, " +
    "custom metrics, security and permissions, JSON datasets with their data, folders with their ACLs and items, materialized views. References are " +
    "names or paths, never ids; with X-Export-Passphrase, secret parameters travel sealed under it. The same account exported twice with no change in between gives identical bytes (and ETag). One round trip. " +
    "See docs/export-import.md.",
  access: { kind: "accountAdmin" },
  errors: ["NOT_FOUND", "INVALID_PASSPHRASE", "CONNECTION_SECRETS_UNAVAILABLE"],
  parameters: [EXPORT_PASSPHRASE_PARAMETER],
  request: { params: AccountIdParamSchema },
  responses: { 200: jsonContent(AccountBundleSchema, "The account's bundle") },
});
