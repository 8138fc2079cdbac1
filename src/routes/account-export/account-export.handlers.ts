import { scopeOf } from "../../db/scope";
import { canonicalJson } from "../../domain/transfer/account-bundle";
import { notFound } from "../../lib/errors";
import { VENDOR_JSON } from "../../lib/openapi";
import type { AppRouteHandler } from "../../lib/create-router";
import { passphraseOf, sealSecrets } from "../source-migration/sealed-secrets";
import { bundleOf, readAccountState } from "./account-state";
import type * as routes from "./account-export.routes";

/**
 * GET /api/accounts/{accountId}/export (docs/export-import.md): every read in one batch (one
 * round trip), every id turned into the name or path of what it names, serialized once as
 * canonical JSON so that an unchanged account gives the same bytes (and so the same ETag).
 */
export const exportAccount: AppRouteHandler<typeof routes.exportAccount> = async (c) => {
  const { accountId } = c.req.valid("param");
  const state = await readAccountState(c.get("db"), scopeOf(c.get("principal")), accountId);
  if (!state) throw notFound("Account");
  const { bundle, raw } = bundleOf(state);
  // With a passphrase, each secret's stored value travels sealed under it (as the source export's do).
  const passphrase = passphraseOf(c);
  if (passphrase !== undefined) {
    const sealed = await sealSecrets(c, passphrase, accountId, bundle.connections, state.connectionRows);
    Object.assign(bundle, { connections: sealed.connections, secretsSealing: sealed.secretsSealing });
  }
  return c.body(canonicalJson(bundle, raw), 200, { "Content-Type": c.get("mediaType") ?? VENDOR_JSON }) as never;
};
