import { describe, expect, it } from "vitest";
import { decodePageToken, encodePageToken } from "../../../src/domain/page-token";
import { allows, duplicateTypes, remaining } from "../../../src/domain/quota";

describe("quota arithmetic", () => {
  it("allows up to the limit, and everything without one", () => {
    expect(allows(3, 2, 1)).toBe(true);
    expect(allows(3, 3, 1)).toBe(false);
    expect(allows(0, 0, 1)).toBe(false);
    expect(allows(undefined, 1e9, 1)).toBe(true);
    expect(allows(1000, 900, 101)).toBe(false); // FILE_SIZE counts bytes
    expect(remaining(5, 7)).toBe(0);
  });

  it("finds repeated quota types", () => {
    expect(duplicateTypes(["SOURCE", "CONNECTION", "SOURCE"])).toEqual(["SOURCE"]);
    expect(duplicateTypes(["SOURCE"])).toEqual([]);
  });
});

describe("page tokens", () => {
  it("round-trip keys of any text, in both directions", () => {
    for (const key of ["alice", "Straße.Ort", "名前", "a\"b'c", ""]) {
      for (const direction of ["next", "previous"] as const) {
        const token = encodePageToken({ direction, key });
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodePageToken(token)).toEqual({ direction, key });
      }
    }
  });

  it("refuses anything this service did not issue", () => {
    for (const bad of ["", "!!!", "e30", btoa('{"d":"x","k":"a"}'), btoa('{"d":"n","k":1}'), "A".repeat(3000)]) {
      expect(decodePageToken(bad)).toBeUndefined();
    }
  });
});
