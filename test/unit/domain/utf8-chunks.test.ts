import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitUtf8, utf8ByteLength } from "../../../src/domain/utf8-chunks";

const encoded = (text: string) => new TextEncoder().encode(text).length;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

describe("UTF-8 byte length", () => {
  it("counts as TextEncoder encodes: 1 to 4 bytes per character", () => {
    for (const text of ["", "a", "é", "€", "😀", "a€😀é", "\u0000\u007f\u0080\u07ff\u0800\uffff"]) expect(utf8ByteLength(text)).toBe(encoded(text));
  });

  it("counts a lone surrogate as the 3 bytes of U+FFFD it encodes to", () => {
    expect(utf8ByteLength("\ud800")).toBe(3);
    expect(utf8ByteLength("a\udc00b")).toBe(encoded("a\udc00b"));
  });

  it("agrees with TextEncoder on any text (property)", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => utf8ByteLength(text) === encoded(text)));
  });
});

describe("splitUtf8", () => {
  it("cuts between characters, never inside a multi-byte one", () => {
    // 4 bytes each: a limit of 6 bytes takes one emoji per piece.
    expect(splitUtf8("😀😀😀", 6)).toEqual({ chunks: ["😀", "😀", "😀"], bytes: 12 });
    expect(splitUtf8("a€€a", 4)).toEqual({ chunks: ["a€", "€a"], bytes: 8 });
    expect(splitUtf8("ab€", 4)).toEqual({ chunks: ["ab", "€"], bytes: 5 });
    expect(splitUtf8("abcdefgh", 4)).toEqual({ chunks: ["abcd", "efgh"], bytes: 8 });
  });

  it("gives one empty piece for an empty text", () => {
    expect(splitUtf8("", 10)).toEqual({ chunks: [""], bytes: 0 });
  });

  it("refuses a limit under the longest character", () => {
    expect(() => splitUtf8("x", 3)).toThrow(RangeError);
  });

  it("pieces join to the text, each within the limit, full but for the last, on character boundaries (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.integer({ min: 4, max: 40 }), (text, maxBytes) => {
        const { chunks, bytes } = splitUtf8(text, maxBytes);
        expect(chunks.join("")).toBe(text);
        expect(bytes).toBe(encoded(text));
        chunks.forEach((chunk, i) => {
          expect(encoded(chunk)).toBeLessThanOrEqual(maxBytes);
          if (chunk.length > 0) {
            expect(isLowSurrogate(chunk.charCodeAt(0))).toBe(false);
            expect(isHighSurrogate(chunk.charCodeAt(chunk.length - 1))).toBe(false);
          }
          // Greedy: a piece that is not the last could not take the next character.
          const next = chunks[i + 1];
          if (next !== undefined) expect(encoded(chunk + String.fromCodePoint(next.codePointAt(0)!))).toBeGreaterThan(maxBytes);
        });
        // Each piece's bytes are exactly the text's bytes at that place: nothing re-encoded.
        const whole = new TextEncoder().encode(text);
        const joined = new Uint8Array(chunks.reduce((n, c) => n + encoded(c), 0));
        let offset = 0;
        for (const c of chunks) {
          joined.set(new TextEncoder().encode(c), offset);
          offset += encoded(c);
        }
        expect(joined).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });

  it("splits 5 MB of mixed text into pieces of at most 1,000,000 bytes", () => {
    const text = "a€😀é".repeat(5 * 1024 * 1024 / 10);
    const { chunks, bytes } = splitUtf8(text, 1_000_000);
    expect(bytes).toBe(encoded(text));
    expect(chunks.length).toBe(Math.ceil(bytes / 1_000_000));
    for (const chunk of chunks) expect(encoded(chunk)).toBeLessThanOrEqual(1_000_000);
    expect(chunks.join("")).toBe(text);
  });
});
