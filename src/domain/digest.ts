import { createHash } from "node:crypto";

/**
 * SHA-256, the one place the service computes it: of a text (its UTF-8 bytes, as TextEncoder gives
 * them) or of bytes. Node's hash (workerd's `nodejs_compat`), which answers at once: for the short
 * texts hashed on every request (credentials, ETags) `crypto.subtle.digest`'s promise, algorithm
 * lookup and copy of the input cost more than the hash itself (docs/performance.md).
 */
export function sha256(data: string | Uint8Array): Uint8Array {
  return createHash("sha256").update(data).digest();
}

/** sha256 as lower-case hex (its first `hexChars` characters when given). */
export function sha256Hex(data: string | Uint8Array, hexChars?: number): string {
  const hex = createHash("sha256").update(data).digest("hex");
  return hexChars === undefined ? hex : hex.slice(0, hexChars);
}
