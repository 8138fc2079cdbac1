import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/domain/digest";

// test/unit/domain/digest.test.ts checks the same in Node; here it is workerd's node:crypto and Buffer.
describe("sha256 in the Workers runtime", () => {
  it("hashes a text's UTF-8 bytes as WebCrypto hashes TextEncoder's, lone surrogates included", async () => {
    for (const text of ["", "abc", "user\u0000pässwörd", "😀", "lone \ud800 and \udfff surrogates"]) {
      const bytes = new TextEncoder().encode(text);
      const expected = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
      expect(sha256Hex(text), JSON.stringify(text)).toBe(expected);
      expect(sha256Hex(bytes)).toBe(expected);
    }
  });
});
