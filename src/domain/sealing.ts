/**
 * Sealing: AES-256-GCM under keys derived (HKDF-SHA-256) from configured secrets, with key ids so
 * that keys can rotate. Page tokens and the secret parameters of connections are sealed this way.
 *
 * Layout (base64url): version (1 byte) | key id (4 bytes) | IV (12 bytes) | ciphertext and tag.
 * The key id is the first bytes of a SHA-256 of the secret (and the purpose), so a sealed value
 * says which key opens it. Values are sealed with the first secret and opened with any of them.
 * `additionalData` binds a sealed value to its context: opened anywhere else, it fails.
 */
import { fromBase64, toBase64Url } from "./bytes";
const VERSION = 1;
const HEADER_BYTES = 1 + 4 + 12;
const TAG_BYTES = 16;

interface SealingKey {
  id: Uint8Array;
  key: CryptoKey;
}

export class Sealer {
  readonly #keys: Promise<SealingKey[]>;

  /**
   * `purpose` separates the keys of different uses of one secret ("page-token", "connection-secret").
   * `secrets`: the current one first, then older ones still accepted; none means nothing can be sealed or opened.
   */
  constructor(purpose: string, secrets: readonly string[]) {
    this.#keys = Promise.all(secrets.map((secret) => deriveKey(purpose, secret)));
  }

  async seal(plaintext: Uint8Array, additionalData: Uint8Array): Promise<string> {
    const [current] = await this.#keys;
    if (!current) throw new Error("Sealer has no key");
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, current.key, plaintext));
    const token = new Uint8Array(HEADER_BYTES + sealed.length);
    token[0] = VERSION;
    token.set(current.id, 1);
    token.set(iv, 5);
    token.set(sealed, HEADER_BYTES);
    return toBase64Url(token);
  }

  /** The plaintext, or undefined for anything not sealed here with this additional data (altered, another key, another context). */
  async open(token: string, additionalData: Uint8Array): Promise<Uint8Array | undefined> {
    const bytes = fromBase64Url(token);
    if (!bytes || bytes.length < HEADER_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
    const sealing = await this.#keyOf(bytes);
    if (!sealing) return undefined;
    try {
      const plaintext = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.subarray(5, HEADER_BYTES), additionalData },
        sealing.key,
        bytes.subarray(HEADER_BYTES),
      );
      return new Uint8Array(plaintext);
    } catch {
      return undefined;
    }
  }

  /** Whether the token was sealed with the current (first) key: older ones are worth sealing again. */
  async sealedWithCurrentKey(token: string): Promise<boolean> {
    const bytes = fromBase64Url(token);
    const [current] = await this.#keys;
    return !!bytes && !!current && bytes.length >= HEADER_BYTES && sameBytes(bytes.subarray(1, 5), current.id);
  }

  async #keyOf(bytes: Uint8Array): Promise<SealingKey | undefined> {
    const keyId = bytes.subarray(1, 5);
    return (await this.#keys).find((k) => sameBytes(k.id, keyId));
  }
}

async function deriveKey(purpose: string, secret: string): Promise<SealingKey> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(`${purpose}/aes-gcm/v1`) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${purpose}/key-id/v1:${secret}`)));
  return { id: digest.slice(0, 4), key };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    return fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
}
