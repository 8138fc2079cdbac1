import { describe, expect, it } from "vitest";
import {
  hashPassword,
  MAX_PBKDF2_ITERATIONS_PER_CALL,
  needsRehash,
  pbkdf2,
  PASSWORD_ITERATIONS,
  secretsEqual,
  timingSafeEqual,
  verifyPassword,
} from "../../../src/domain/passwords";

describe("password hashing", () => {
  it("stays within the 100,000 PBKDF2 iterations production Workers allow per call", async () => {
    expect(PASSWORD_ITERATIONS).toBeLessThanOrEqual(100_000);
    expect(MAX_PBKDF2_ITERATIONS_PER_CALL).toBe(100_000);
    await expect(pbkdf2("x", new Uint8Array(16), 100_001)).rejects.toThrow(RangeError);
  });

  it("verifies the right password and refuses a wrong one, with salt and parameters stored", async () => {
    const stored = await hashPassword("correct horse", 1000);
    expect(stored).toMatchObject({ algorithm: "PBKDF2-SHA256", iterations: 1000 });
    expect(stored.salt).not.toBe("");
    expect(await verifyPassword("correct horse", stored)).toBe(true);
    expect(await verifyPassword("correct horsf", stored)).toBe(false);
    expect(await verifyPassword("correct horse", { ...stored, algorithm: "MD5" })).toBe(false);
  });

  it("salts: the same password hashes differently each time", async () => {
    const [a, b] = await Promise.all([hashPassword("same", 1000), hashPassword("same", 1000)]);
    expect(a.hash).not.toBe(b.hash);
  });

  it("asks for a rehash when the parameters are weaker than today's", async () => {
    expect(needsRehash(await hashPassword("p", 1000))).toBe(true);
    expect(needsRehash({ algorithm: "PBKDF2-SHA256", iterations: PASSWORD_ITERATIONS, salt: "", hash: "" })).toBe(false);
  });

  it("compares secrets exactly", async () => {
    expect(await secretsEqual("abc", "abc")).toBe(true);
    expect(await secretsEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});
