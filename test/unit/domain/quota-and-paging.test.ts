import { describe, expect, it } from "vitest";
import { MAX_TOKEN_AGE_SECONDS, PageTokenCodec } from "../../../src/domain/page-token";
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
  const binding = { list: "users", account: "acct-1", filters: { accountId: "acct-1" } };
  const codec = new PageTokenCodec(["the current key"]);

  it("round-trip keys of any text, in both directions, and never show the key", async () => {
    for (const key of ["alice", "Straße.Ort", "名前", "a\"b'c", ""]) {
      for (const direction of ["next", "previous"] as const) {
        const token = await codec.encode({ direction, key }, binding);
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        if (key.length > 3) expect(atob(token.replace(/-/g, "+").replace(/_/g, "/"))).not.toContain(key);
        expect(await codec.decode(token, binding)).toEqual({ direction, key });
      }
    }
  });

  it("are bound to their list, account and filters", async () => {
    const token = await codec.encode({ direction: "next", key: "alice" }, binding);
    expect(await codec.decode(token, { ...binding, list: "groups" })).toBeUndefined();
    expect(await codec.decode(token, { ...binding, account: "acct-2" })).toBeUndefined();
    expect(await codec.decode(token, { ...binding, filters: { accountId: "acct-2" } })).toBeUndefined();
    expect(await codec.decode(token, { ...binding, filters: {} })).toBeUndefined();
    // Filters are compared by value, whatever their order; undefined members do not count.
    expect(await codec.decode(token, { ...binding, filters: { extra: undefined, accountId: "acct-1" } })).toEqual({ direction: "next", key: "alice" });
  });

  it("refuses forged, altered and hand-made tokens", async () => {
    const token = await codec.encode({ direction: "next", key: "alice" }, binding);
    const flipped = token.slice(0, 30) + (token[30] === "A" ? "B" : "A") + token.slice(31);
    const handMade = btoa('{"d":"n","k":"alice"}').replace(/=+$/, "");
    for (const bad of ["", "!!!", "e30", handMade, flipped, token.slice(0, -2), "A".repeat(3000)]) {
      expect(await codec.decode(bad, binding), bad).toBeUndefined();
    }
    expect(await new PageTokenCodec(["another key"]).decode(token, binding)).toBeUndefined();
  });

  it("survive a key rotation while the old key is still listed, and expire after a day", async () => {
    let now = Date.UTC(2026, 10, 24);
    const old = new PageTokenCodec(["old key"], () => now);
    const token = await old.encode({ direction: "previous", key: "bob" }, binding);
    const rotated = new PageTokenCodec(["new key", "old key"], () => now);
    expect(await rotated.decode(token, binding)).toEqual({ direction: "previous", key: "bob" });
    expect(await new PageTokenCodec(["new key"], () => now).decode(token, binding)).toBeUndefined();
    now += (MAX_TOKEN_AGE_SECONDS + 1) * 1000;
    expect(await rotated.decode(token, binding)).toBeUndefined();
  });
});
