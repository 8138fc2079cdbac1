/**
 * Webhook signing secrets, sealed at rest as connection secrets are (AES-256-GCM, domain/sealing.ts)
 * under CONNECTION_SECRETS_KEY, with their own purpose; the additional data is the subscription's
 * id, so a sealed secret copied to another row does not open.
 */
import { secretKeysOf } from "../connectors/connection-secrets";
import { Sealer } from "../sealing";

export class WebhookSecrets {
  readonly #sealer: Sealer;
  readonly configured: boolean;

  constructor(keys: readonly string[]) {
    this.configured = keys.length > 0;
    this.#sealer = new Sealer("webhook-secret", keys);
  }

  seal(secret: string, webhookId: string): Promise<string> {
    return this.#sealer.seal(new TextEncoder().encode(secret), place(webhookId));
  }

  async open(sealed: string, webhookId: string): Promise<string | undefined> {
    const plaintext = await this.#sealer.open(sealed, place(webhookId));
    return plaintext && new TextDecoder().decode(plaintext);
  }
}

const place = (webhookId: string) => new TextEncoder().encode(JSON.stringify(["webhook-secret", webhookId]));

// The env object lives as long as the isolate: derive the keys once.
const cache = new WeakMap<object, WebhookSecrets>();

export function webhookSecrets(env: { CONNECTION_SECRETS_KEY?: string }): WebhookSecrets {
  let secrets = cache.get(env);
  if (!secrets) cache.set(env, (secrets = new WebhookSecrets(secretKeysOf(env.CONNECTION_SECRETS_KEY))));
  return secrets;
}
