import { describe, expect, it } from "vitest";
import { sha256, sha256Hex } from "../../../src/domain/digest";

/** WebCrypto's SHA-256 of a text's TextEncoder bytes, hex: what the service used before, and stores. */
async function webCryptoHex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("sha256", () => {
  // Stored digests (tokens, client secrets) and ETags must not change with the implementation.
  const texts = ["", "abc", "user\u0000pässwörd", "😀 emoji", "lone \ud800 surrogate", "x".repeat(100_000)];

  it("hashes a text's UTF-8 bytes as WebCrypto hashes TextEncoder's", async () => {
    for (const text of texts) expect(sha256Hex(text), JSON.stringify(text.slice(0, 20))).toBe(await webCryptoHex(text));
  });

  it("hashes bytes as given, and gives the digest as bytes or as its first hex characters", async () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 254]);
    const hex = await webCryptoHex(bytes);
    expect(sha256Hex(bytes)).toBe(hex);
    expect(sha256Hex(bytes, 16)).toBe(hex.slice(0, 16));
    expect(Buffer.from(sha256(bytes)).toString("hex")).toBe(hex);
    expect(sha256("abc")).toHaveLength(32);
  });
});
