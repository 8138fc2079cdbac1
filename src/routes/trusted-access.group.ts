// The sub-apps of the /api/trusted-access group (src/routes/index.ts), which always load together:
// one module for the group (see ./accounts.group.ts).
export { trustedAccessClientsRouter } from "./trusted-access/clients.index";
export { tokenEndpointsRouter, tokenRevocationRouter } from "./trusted-access/tokens.index";
