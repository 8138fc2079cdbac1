import { describe, expect, it } from "vitest";
import { fromBase64, fromBinaryString, toBase64, toBase64Url, toHex } from "../../../src/domain/bytes";

describe("bytes as text", () => {
  it("writes every byte value as two lower-case hex digits, in order", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hex = toHex(all);
    expect(hex).toHaveLength(512);
    for (let b = 0; b < 256; b++) expect(hex.slice(2 * b, 2 * b + 2)).toBe(b.toString(16).padStart(2, "0"));
  });

  it("writes only the first bytes when a length is given", () => {
    expect(toHex(new Uint8Array([0x0f, 0xa0, 0xff]), 2)).toBe("0fa0");
    expect(toHex(new Uint8Array([]))).toBe("");
  });

  it("reads base64 back to the bytes it encodes, and refuses what is not base64", () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
    const text = btoa(String.fromCharCode(...bytes));
    expect([...fromBase64(text)]).toEqual([...bytes]);
    expect([...fromBinaryString("\u0000\u00ffA")]).toEqual([0, 255, 65]);
    expect(() => fromBase64("not base64!")).toThrow();
    expect(toBase64(bytes)).toBe(text);
    expect(toBase64Url(new Uint8Array([0xfb, 0xff, 0xfe]))).toBe("-__-");
    expect(toBase64Url(new Uint8Array([0xff]))).toBe("_w");
  });
});
