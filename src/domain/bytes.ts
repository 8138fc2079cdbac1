/** Bytes as text and back, done once here: loops over a table, not spreads and per-byte callbacks (every request hashes credentials). */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lower-case hex of `bytes` (its first `length` bytes when given). */
export function toHex(bytes: Uint8Array, length = bytes.length): string {
  let hex = "";
  for (let i = 0; i < length; i++) hex += HEX[bytes[i]!];
  return hex;
}

/** Standard base64 of `bytes`, padded. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary);
}

/** URL-safe base64 of `bytes`, without padding (RFC 4648 section 5). */
export const toBase64Url = (bytes: Uint8Array): string => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** The bytes of a binary string (what `atob` answers: one character per byte). */
export function fromBinaryString(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** The bytes of standard base64 text; throws on text that is not base64 (as `atob` does). */
export const fromBase64 = (text: string): Uint8Array => fromBinaryString(atob(text));
