// The sub-apps of the /api/accounts group (src/routes/index.ts), which always load together: one
// module for the group, so that the deploy build (scripts/build.mjs) makes it one module too, and
// no chunks and imports for what its parts share (docs/performance.md).
export { accountsRouter } from "./accounts/accounts.index";
export { accountMembersRouter } from "./account-members/account-members.index";
export { accountExportRouter } from "./account-export/account-export.index";
export { accountImportRouter } from "./account-import/account-import.index";
