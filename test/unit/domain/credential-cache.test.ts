import { describe, expect, it } from "vitest";
import { CredentialCache } from "../../../src/domain/credential-cache";

const entry = (userId: string, accountId = "a1", groupIds: string[] = []) => ({ userId, accountId, groupIds });

describe("credential cache", () => {
  it("expires entries after their TTL", () => {
    let now = 1000;
    const cache = new CredentialCache(10, () => now);
    cache.set("k", entry("u1"), 500);
    expect(cache.get("k")).toEqual(entry("u1"));
    now = 1499;
    expect(cache.get("k")).toBeDefined();
    now = 1500;
    expect(cache.get("k")).toBeUndefined();
  });

  it("invalidates by user and by account", () => {
    const cache = new CredentialCache();
    cache.set("a", entry("u1", "acc1"), 60_000);
    cache.set("b", entry("u2", "acc1"), 60_000);
    cache.set("c", entry("u3", "acc2"), 60_000);
    cache.invalidateUser("u1");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeDefined();
    cache.invalidateAccount("acc1");
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("c")).toBeDefined();
  });

  it("invalidates the members of one group, and nobody else", () => {
    const cache = new CredentialCache();
    cache.set("a", entry("u1", "acc1", ["g1", "g2"]), 60_000);
    cache.set("b", entry("u2", "acc1", ["g2"]), 60_000);
    cache.set("c", entry("u3", "acc1", []), 60_000);
    cache.invalidateGroup("g1");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
  });

  it("stays bounded, evicting the oldest entry, and caches nothing with a zero TTL", () => {
    const cache = new CredentialCache(2);
    cache.set("a", entry("u1"), 60_000);
    cache.set("b", entry("u2"), 60_000);
    cache.set("c", entry("u3"), 60_000);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    cache.set("d", entry("u4"), 0);
    expect(cache.get("d")).toBeUndefined();
  });
});
