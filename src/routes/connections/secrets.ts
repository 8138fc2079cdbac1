import { ConnectionSecrets, secretKeysOf } from "../../domain/connectors/connection-secrets";
import type { Bindings } from "../../lib/types";

// The env object lives as long as the isolate: derive the keys once, not on every request.
const cache = new WeakMap<Bindings, ConnectionSecrets>();

/**
 * The sealer of secret parameter values, keyed by CONNECTION_SECRETS_KEY (comma-separated: the
 * current key first, then retired ones whose sealed values must still open). Without it nothing
 * is sealed: writes that carry a secret are refused (409 CONNECTION_SECRETS_UNAVAILABLE), never
 * sealed under a key that would die with the isolate.
 */
export function connectionSecrets(env: Bindings): ConnectionSecrets {
  let secrets = cache.get(env);
  if (!secrets) cache.set(env, (secrets = new ConnectionSecrets(secretKeysOf(env.CONNECTION_SECRETS_KEY))));
  return secrets;
}
