import { describe, expect, it } from "vitest";
import { findJsonFlaw, mayHaveJsonFlaw } from "../../../src/domain/json-hygiene";

describe("findJsonFlaw", () => {
  it("names the first lone surrogate in document order, in a value or a member name", () => {
    expect(findJsonFlaw({ a: "ok", b: [1, { c: "x\ud800y" }] }, 64)).toEqual({ kind: "LONE_SURROGATE", path: ["b", 1, "c"] });
    expect(findJsonFlaw({ a: { ["k\udc00"]: 1 } }, 64)).toEqual({ kind: "LONE_SURROGATE", path: ["a", "k\udc00"] });
    expect(findJsonFlaw(["\ud83d\ude00", "fine"], 64)).toBeUndefined();
  });

  it("names the first container past the depth limit", () => {
    expect(findJsonFlaw({ a: [[[]]] }, 3)).toEqual({ kind: "TOO_DEEP", path: ["a", 0, 0] });
    expect(findJsonFlaw({ a: [[]] }, 3)).toBeUndefined();
  });
});

describe("mayHaveJsonFlaw: the text alone says when the walk can be spared", () => {
  const flawOfText = (text: string, maxDepth: number) => findJsonFlaw(JSON.parse(text), maxDepth);

  it("spares a text with no surrogate escape and no more openings than the depth limit", () => {
    expect(mayHaveJsonFlaw('{"a":[1,{"b":"\\u00e9\\ud83d\\ude00 é"}]}', 3)).toBe(true);
    expect(mayHaveJsonFlaw('{"a":[1,{"b":"\\u00e9 é"}]}', 3)).toBe(false);
    expect(mayHaveJsonFlaw('{"a":[1,{"b":"\\u00e9 é"}]}', 2)).toBe(true);
  });

  it("never spares a text whose value has a flaw", () => {
    const texts = [
      '{"a":"\\ud800"}',
      '{"\\uDC00":1}',
      '[[[[1]]]]',
      '{"a":{"b":{"c":{}}}}',
      '{"s":"[[[[{{{{"}',
      '["\\\\ud800"]',
      '{"a":"\\uD83D\\uDE00","b":[[[]]]}',
      '{"plain":"text","n":[1,2,3]}',
    ];
    for (const text of texts) {
      for (const maxDepth of [1, 2, 3, 4, 64]) {
        if (flawOfText(text, maxDepth)) expect(mayHaveJsonFlaw(text, maxDepth), `${text} at ${maxDepth}`).toBe(true);
      }
    }
    expect(mayHaveJsonFlaw('{"plain":"text","n":[1,2,3]}', 64)).toBe(false);
  });

  it("never spares a flawed value among many random ones (JSON.stringify escapes lone surrogates)", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pieces = ["a", "é", "\\ud83d\\ude00", "\\ud800", "\\udfff", "[", "{", "\\\\"];
    const string = () => Array.from({ length: Math.floor(random() * 4) }, () => JSON.parse(`"${pieces[Math.floor(random() * pieces.length)]}"`)).join("");
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 6 || pick < 0.3) return string();
      if (pick < 0.4) return Math.floor(random() * 100);
      if (pick < 0.7) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [string(), value(depth + 1)]));
    };
    let flawed = 0;
    for (let i = 0; i < 2000; i++) {
      const text = JSON.stringify(value(0));
      for (const maxDepth of [2, 4, 64]) {
        if (!findJsonFlaw(JSON.parse(text), maxDepth)) continue;
        flawed++;
        expect(mayHaveJsonFlaw(text, maxDepth), `${text} at ${maxDepth}`).toBe(true);
      }
    }
    expect(flawed).toBeGreaterThan(100);
  });
});
