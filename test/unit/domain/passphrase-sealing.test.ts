import { describe, expect, it } from "vitest";
import { PassphraseSealer, passphraseRefusal, secretPlace } from "../../../src/domain/transfer/passphrase-sealing";

describe("secrets sealed under an export passphrase", () => {
  const place = secretPlace("Sales DB", "PASSWORD");

  it("opens with the passphrase, at the place it was sealed for", async () => {
    const sealer = await PassphraseSealer.forExport("correct horse battery", "account-a");
    const sealed = await sealer.seal("s3cr3t-ü", place);
    expect(sealed).not.toContain("s3cr3t");
    const importer = await PassphraseSealer.open("correct horse battery", sealer.sealing);
    expect(await importer!.unseal(sealed, place)).toBe("s3cr3t-ü");
  });

  it("does not open with another passphrase, at another place, or altered", async () => {
    const sealer = await PassphraseSealer.forExport("correct horse battery", "account-a");
    const sealed = await sealer.seal("s3cr3t", place);
    const wrong = await PassphraseSealer.open("correct horse battery!", sealer.sealing);
    expect(await wrong!.unseal(sealed, place)).toBeUndefined();
    expect(await sealer.unseal(sealed, secretPlace("Sales DB", "USER_NAME"))).toBeUndefined();
    expect(await sealer.unseal(sealed, secretPlace("Other DB", "PASSWORD"))).toBeUndefined();
    // One character of the ciphertext changed (not the last, whose low bits may be padding).
    const altered = sealed.slice(0, 20) + (sealed[20] === "A" ? "B" : "A") + sealed.slice(21);
    expect(await sealer.unseal(altered, place)).toBeUndefined();
    expect(await sealer.unseal("not base64url!", place)).toBeUndefined();
  });

  it("repeats byte for byte for one account and passphrase, and differs across accounts", async () => {
    const a1 = await PassphraseSealer.forExport("correct horse battery", "account-a");
    const a2 = await PassphraseSealer.forExport("correct horse battery", "account-a");
    const b = await PassphraseSealer.forExport("correct horse battery", "account-b");
    expect(a1.sealing).toEqual(a2.sealing);
    expect(await a1.seal("x", place)).toBe(await a2.seal("x", place));
    expect(b.sealing.salt).not.toBe(a1.sealing.salt);
    expect(await b.seal("x", place)).not.toBe(await a1.seal("x", place));
    // Two different values at one place never share an IV.
    expect((await a1.seal("x", place)).slice(0, 16)).not.toBe((await a1.seal("y", place)).slice(0, 16));
  });

  it("refuses a malformed sealing description and short passphrases", async () => {
    const { sealing } = await PassphraseSealer.forExport("correct horse battery", "account-a");
    expect(await PassphraseSealer.open("correct horse battery", { ...sealing, iterations: 1 })).toBeUndefined();
    expect(await PassphraseSealer.open("correct horse battery", { ...sealing, salt: "AAAA" })).toBeUndefined();
    expect(passphraseRefusal("short")).toMatch(/at least 12/);
    expect(passphraseRefusal("a long enough one")).toBeUndefined();
  });
});
