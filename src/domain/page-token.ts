/**
 * Page tokens for keyset pagination: opaque, tamper-evident, bound to their list.
 *
 * A token carries the key of the row a page starts after (next) or ends before (previous), so a
 * page costs the same however deep it is. It is sealed with AES-256-GCM under PAGE_TOKEN_KEY:
 *  - opaque: the key (a user's name, say) is encrypted, never shown;
 *  - tamper-evident: any change to a token fails its authentication tag;
 *  - bound: the list, the account and the list's filters are the cipher's additional data, so a
 *    token of one list, account or filter set fails on any other;
 *  - short-lived: a token older than MAX_TOKEN_AGE_SECONDS is refused.
 * Layout (base64url): version (1 byte) | key id (4 bytes) | IV (12 bytes) | ciphertext and tag.
 * The key id lets keys rotate: tokens are sealed with the first key and opened with any.
 */
export interface PageCursor {
  direction: "next" | "previous";
  key: string;
}

/** What a token is valid for; every member must match when it comes back. */
export interface PageBinding {
  list: string;
  account: string;
  filters?: Record<string, string | number | boolean | null | undefined>;
}

export const MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;
const VERSION = 1;
const HEADER_BYTES = 1 + 4 + 12;

interface SealingKey {
  id: Uint8Array;
  key: CryptoKey;
}

export class PageTokenCodec {
  readonly #keys: Promise<SealingKey[]>;

  /** `secrets`: the current key first, then older keys still accepted. */
  constructor(
    secrets: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    if (secrets.length === 0) throw new Error("PageTokenCodec needs at least one key");
    this.#keys = Promise.all(secrets.map(deriveKey));
  }

  async encode(cursor: PageCursor, binding: PageBinding): Promise<string> {
    const [current] = await this.#keys;
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plaintext = new TextEncoder().encode(JSON.stringify({ d: cursor.direction === "next" ? "n" : "p", k: cursor.key, t: Math.floor(this.now() / 1000) }));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: bindingBytes(binding) }, current!.key, plaintext),
    );
    const token = new Uint8Array(HEADER_BYTES + sealed.length);
    token[0] = VERSION;
    token.set(current!.id, 1);
    token.set(iv, 5);
    token.set(sealed, HEADER_BYTES);
    return toBase64Url(token);
  }

  /** The cursor, or undefined for anything that is not a live token of this list issued here. */
  async decode(token: string, binding: PageBinding): Promise<PageCursor | undefined> {
    if (!/^[A-Za-z0-9_-]{40,2048}$/.test(token)) return undefined;
    const bytes = fromBase64Url(token);
    if (!bytes || bytes.length < HEADER_BYTES + 16 || bytes[0] !== VERSION) return undefined;
    const keyId = bytes.subarray(1, 5);
    const sealing = (await this.#keys).find((k) => k.id.every((b, i) => b === keyId[i]));
    if (!sealing) return undefined;
    let plaintext: ArrayBuffer;
    try {
      plaintext = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.subarray(5, HEADER_BYTES), additionalData: bindingBytes(binding) },
        sealing.key,
        bytes.subarray(HEADER_BYTES),
      );
    } catch {
      return undefined;
    }
    const { d, k, t } = JSON.parse(new TextDecoder().decode(plaintext)) as { d: string; k: string; t: number };
    const age = Math.floor(this.now() / 1000) - t;
    if (age < -60 || age > MAX_TOKEN_AGE_SECONDS) return undefined;
    return { direction: d === "n" ? "next" : "previous", key: k };
  }
}

/** A random key that lives as long as this isolate: for installations without PAGE_TOKEN_KEY. */
export function ephemeralSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

async function deriveKey(secret: string): Promise<SealingKey> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("page-token/aes-gcm/v1") },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`page-token/key-id/v1:${secret}`)));
  return { id: digest.slice(0, 4), key };
}

function bindingBytes(binding: PageBinding): Uint8Array {
  const filters = Object.entries(binding.filters ?? {})
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new TextEncoder().encode(JSON.stringify([binding.list, binding.account, filters]));
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}
