import { describe, expect, it } from "vitest";
import { ConnectionSecrets, secretKeysOf } from "../../../src/domain/connectors/connection-secrets";
import { PageTokenCodec } from "../../../src/domain/page-token";

const place = { accountId: "account-1", connectionId: "sales", key: "password" };

describe("ConnectionSecrets", () => {
  it("seals a value so that only its place opens it, and the sealed text shows nothing of it", async () => {
    const secrets = new ConnectionSecrets(["key one"]);
    const sealed = await secrets.seal("s3cr3t-Passw0rd", place);
    expect(sealed).not.toContain("s3cr3t");
    expect(atob(sealed.replace(/-/g, "+").replace(/_/g, "/"))).not.toContain("s3cr3t");
    expect(await secrets.open(sealed, place)).toBe("s3cr3t-Passw0rd");
    // Copied into another account, connection or key, it does not open.
    expect(await secrets.open(sealed, { ...place, accountId: "account-2" })).toBeUndefined();
    expect(await secrets.open(sealed, { ...place, connectionId: "other" })).toBeUndefined();
    expect(await secrets.open(sealed, { ...place, key: "token" })).toBeUndefined();
  });

  it("seals the same value differently each time (a random IV)", async () => {
    const secrets = new ConnectionSecrets(["key one"]);
    expect(await secrets.seal("same", place)).not.toBe(await secrets.seal("same", place));
  });

  it("rotates: values sealed with an older key still open, and say they are worth sealing again", async () => {
    const old = new ConnectionSecrets(["old key"]);
    const sealed = await old.seal("value", place);
    const rotated = new ConnectionSecrets(["new key", "old key"]);
    expect(await rotated.open(sealed, place)).toBe("value");
    expect(await rotated.sealedWithCurrentKey(sealed)).toBe(false);
    expect(await rotated.sealedWithCurrentKey(await rotated.seal("value", place))).toBe(true);
    expect(await new ConnectionSecrets(["new key"]).open(sealed, place)).toBeUndefined();
  });

  it("refuses altered or hand-made values", async () => {
    const secrets = new ConnectionSecrets(["key one"]);
    const sealed = await secrets.seal("value", place);
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === "A" ? "B" : "A") + sealed.at(-1);
    expect(await secrets.open(flipped, place)).toBeUndefined();
    for (const junk of ["", "abc", "!!!!", "A".repeat(80)]) expect(await secrets.open(junk, place)).toBeUndefined();
  });

  it("has no fallback key: without one it can neither seal nor open", async () => {
    const none = new ConnectionSecrets(secretKeysOf(undefined));
    expect(none.configured).toBe(false);
    await expect(none.seal("value", place)).rejects.toThrow();
    const sealed = await new ConnectionSecrets(["key one"]).seal("value", place);
    expect(await none.open(sealed, place)).toBeUndefined();
  });

  it("reads CONNECTION_SECRETS_KEY as a comma-separated list, the current key first", () => {
    expect(secretKeysOf(" new , old ,, ")).toEqual(["new", "old"]);
    expect(secretKeysOf("")).toEqual([]);
  });

  it("uses keys of its own: a page-token key does not open a connection secret", async () => {
    const codec = new PageTokenCodec(["shared secret"]);
    const token = await codec.encode({ direction: "next", key: "k" }, { list: "l", account: "a" });
    expect(await new ConnectionSecrets(["shared secret"]).open(token, place)).toBeUndefined();
  });
});
