import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rawMemberText } from "../../../src/domain/raw-json";

describe("rawMemberText: a member's value exactly as written", () => {
  it("answers the value's source text, spacing and number spellings included", () => {
    const text = '{"name":"x","data":{ "big": 12345678901234567890, "one": 1.0, "e": 1E+2, "neg": -0 } ,"z":1}';
    expect(rawMemberText(text, "data")).toBe('{ "big": 12345678901234567890, "one": 1.0, "e": 1E+2, "neg": -0 }');
    expect(rawMemberText(text, "name")).toBe('"x"');
    expect(rawMemberText(text, "z")).toBe("1");
  });

  it("answers undefined for an absent member and for an empty object", () => {
    expect(rawMemberText('{"name":"x"}', "data")).toBeUndefined();
    expect(rawMemberText("{}", "data")).toBeUndefined();
    expect(rawMemberText(" \n{ \t}\r\n", "data")).toBeUndefined();
  });

  it("takes the last of repeated members, as JSON.parse does", () => {
    const text = '{"data":{"first":1},"name":"x","data":{"second":2}}';
    expect(rawMemberText(text, "data")).toBe('{"second":2}');
    expect(JSON.parse(text).data).toEqual({ second: 2 });
  });

  it("compares member names unescaped", () => {
    expect(rawMemberText('{"d\\u0061ta":[1]}', "data")).toBe("[1]");
    expect(rawMemberText('{"da\\"ta":[1]}', "data")).toBeUndefined();
    expect(rawMemberText('{"da\\"ta":[1]}', 'da"ta')).toBe("[1]");
  });

  it("ignores the name where it is not a top-level member: nested, or inside strings", () => {
    const text = '{"outer":{"data":1},"s":"\\"data\\":2","list":[{"data":3}],"data":4}';
    expect(rawMemberText(text, "data")).toBe("4");
    expect(rawMemberText('{"outer":{"data":1}}', "data")).toBeUndefined();
  });

  it("skips strings holding brackets, escaped quotes and backslashes", () => {
    const text = '{"a":"}]{[\\\\","b":"\\\\\\"}","data":{"k":"\\\\"},"c":[]}';
    expect(rawMemberText(text, "data")).toBe('{"k":"\\\\"}');
    expect(JSON.parse(text).data).toEqual({ k: "\\" });
  });

  it("keeps every character of multi-byte and escaped text", () => {
    const text = '{"data":{"ümlaut":"€ 😀 \\ud83d\\ude00 \\u00e9"}}';
    expect(rawMemberText(text, "data")).toBe('{"ümlaut":"€ 😀 \\ud83d\\ude00 \\u00e9"}');
  });

  it("reads scalars up to their delimiter", () => {
    expect(rawMemberText('{"data":true}', "data")).toBe("true");
    expect(rawMemberText('{"data":null ,"x":1}', "data")).toBe("null");
    expect(rawMemberText('{"data":-1.5e-7\n}', "data")).toBe("-1.5e-7");
  });

  it("refuses text that is not an object", () => {
    expect(() => rawMemberText("[1,2]", "data")).toThrow(SyntaxError);
    expect(() => rawMemberText('"data"', "data")).toThrow(SyntaxError);
  });

  it("finds any value at any position among any members, byte for byte (property)", () => {
    const whitespace = fc.stringMatching(/^[ \t\r\n]{0,3}$/);
    const indent = fc.constantFrom(undefined, 0, 1, 2, "\t");
    const member = fc.record({ name: fc.string({ unit: "binary", maxLength: 6 }), value: fc.jsonValue({ maxDepth: 3 }), indent, before: whitespace, after: whitespace });
    fc.assert(
      fc.property(fc.array(member, { maxLength: 5 }), fc.jsonValue({ maxDepth: 4 }), indent, fc.nat(), whitespace, (others, data, dataIndent, position, outer) => {
        const written = (name: string, value: unknown, space: string | number | undefined, before = "", after = "") =>
          `${before}${JSON.stringify(name)}${after}:${before}${JSON.stringify(value, null, space)}${after}`;
        const members = others.filter((m) => m.name !== "data").map((m) => written(m.name, m.value, m.indent, m.before, m.after));
        const dataText = JSON.stringify(data, null, dataIndent);
        members.splice(position % (members.length + 1), 0, written("data", data, dataIndent));
        const text = `${outer}{${members.join(",")}}${outer}`;
        expect(rawMemberText(text, "data")).toBe(dataText);
        expect(JSON.parse(rawMemberText(text, "data")!)).toEqual(JSON.parse(text).data);
      }),
      { numRuns: 500 },
    );
  });

  it("scans a 5 MB text in one pass", () => {
    const row = '{"id":12345678901234567890,"label":"a \\"quoted\\" {value}","list":[1.0,2.50,[]]}';
    const data = `[${Array.from({ length: 5_000_000 / row.length }, () => row).join(",")}]`;
    const text = `{"name":"big","data":${data},"description":"after"}`;
    expect(rawMemberText(text, "data")).toBe(data);
    expect(rawMemberText(text, "description")).toBe('"after"');
  });
});
