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
 * The key id lets keys rotate: tokens are sealed with the first key and opened with any (domain/sealing.ts).
 */
import { toBase64Url } from "./bytes";
import { Sealer } from "./sealing";

// One of each per isolate: every page of a list seals its tokens with them.
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

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

export class PageTokenCodec {
  readonly #sealer: Sealer;

  /** `secrets`: the current key first, then older keys still accepted. */
  constructor(
    secrets: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    if (secrets.length === 0) throw new Error("PageTokenCodec needs at least one key");
    this.#sealer = new Sealer("page-token", secrets);
  }

  async encode(cursor: PageCursor, binding: PageBinding): Promise<string> {
    const plaintext = utf8.encode(JSON.stringify({ d: cursor.direction === "next" ? "n" : "p", k: cursor.key, t: Math.floor(this.now() / 1000) }));
    return this.#sealer.seal(plaintext, bindingBytes(binding));
  }

  /** The cursor, or undefined for anything that is not a live token of this list issued here. */
  async decode(token: string, binding: PageBinding): Promise<PageCursor | undefined> {
    if (!/^[A-Za-z0-9_-]{40,2048}$/.test(token)) return undefined;
    const plaintext = await this.#sealer.open(token, bindingBytes(binding));
    if (!plaintext) return undefined;
    const { d, k, t } = JSON.parse(fromUtf8.decode(plaintext)) as { d: string; k: string; t: number };
    const age = Math.floor(this.now() / 1000) - t;
    if (age < -60 || age > MAX_TOKEN_AGE_SECONDS) return undefined;
    return { direction: d === "n" ? "next" : "previous", key: k };
  }
}

/** A random key that lives as long as this isolate: for installations without PAGE_TOKEN_KEY. */
export function ephemeralSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

function bindingBytes(binding: PageBinding): Uint8Array {
  const filters = Object.entries(binding.filters ?? {})
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return utf8.encode(JSON.stringify([binding.list, binding.account, filters]));
}
