/**
 * The secret parameter values of connections (passwords, tokens, secret headers), sealed at rest
 * with AES-256-GCM (domain/sealing.ts) under CONNECTION_SECRETS_KEY. The additional data is the
 * value's place (account, connection, parameter key), so a sealed value copied into another row
 * or another parameter does not open.
 *
 * Unlike page tokens there is no random fallback key: stored secrets would be lost with the
 * isolate that made it. Without CONNECTION_SECRETS_KEY nothing is sealed, and the routes refuse
 * to store a secret (see `configured`).
 */
import { Sealer } from "../sealing";

// One of each per isolate: a connection's write seals and opens each of its secret parameters.
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export interface SecretPlace {
  accountId: string;
  connectionId: string;
  key: string;
}

export class ConnectionSecrets {
  readonly #sealer: Sealer;
  /** False without any key: secrets can be neither stored nor read back. */
  readonly configured: boolean;

  /** `keys`: the current key first, then older keys whose sealed values still open. */
  constructor(keys: readonly string[]) {
    this.configured = keys.length > 0;
    this.#sealer = new Sealer("connection-secret", keys);
  }

  async seal(value: string, place: SecretPlace): Promise<string> {
    if (!this.configured) throw new Error("ConnectionSecrets has no key");
    return this.#sealer.seal(utf8.encode(value), placeBytes(place));
  }

  /** The value, or undefined when no configured key opens it here (a retired key, or another place). */
  async open(sealed: string, place: SecretPlace): Promise<string | undefined> {
    const plaintext = await this.#sealer.open(sealed, placeBytes(place));
    return plaintext && fromUtf8.decode(plaintext);
  }

  /** Values sealed with an older key are sealed again with the current one when their connection is written. */
  sealedWithCurrentKey(sealed: string): Promise<boolean> {
    return this.#sealer.sealedWithCurrentKey(sealed);
  }
}

/** CONNECTION_SECRETS_KEY: comma-separated, the current key first. */
export function secretKeysOf(setting: string | undefined): string[] {
  return (setting ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
}

function placeBytes({ accountId, connectionId, key }: SecretPlace): Uint8Array {
  return utf8.encode(JSON.stringify(["connection-secret", accountId, connectionId, key]));
}
