import { describe, expect, it } from "vitest";
import { isUsablePassword, NO_PASSWORD, hashPassword, verifyPassword } from "../../../src/domain/passwords";
import {
  acceptedSecret,
  digestOf,
  isLive,
  isUuid,
  nowInSeconds,
  pullRefusal,
  pushRefusal,
  randomSecret,
  servesAccount,
  type SecretState,
} from "../../../src/domain/trusted-access";

describe("trusted-access secrets and tokens", () => {
  it("are 256 random bits, base64url without padding", () => {
    const secrets = new Set(Array.from({ length: 200 }, randomSecret));
    expect(secrets.size).toBe(200);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // 43 base64url characters carry 258 bits; the last one holds the 256th bit and four zero bits.
      expect("AEIMQUYcgkosw048").toContain(secret.at(-1));
    }
  });

  it("are stored as their SHA-256, hex", async () => {
    expect(await digestOf("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("count time in seconds, 0 meaning never", () => {
    expect(nowInSeconds(1_700_000_000_999)).toBe(1_700_000_000);
    expect(isLive(0, 1_700_000_000)).toBe(true);
    expect(isLive(1_700_000_001, 1_700_000_000)).toBe(true);
    expect(isLive(1_700_000_000, 1_700_000_000)).toBe(false);
  });
});

describe("which presented secret a client accepts", () => {
  const now = 1_800_000_000;
  const state = async (changes: Partial<SecretState> = {}): Promise<SecretState> => ({
    secretDigest: await digestOf("current"),
    clientSecretExpiresAt: 0,
    previousSecretDigest: null,
    previousSecretExpiresAt: null,
    ...changes,
  });

  it("the current secret until it expires (0: never)", async () => {
    expect(acceptedSecret(await state(), await digestOf("current"), now)).toBe("current");
    expect(acceptedSecret(await state({ clientSecretExpiresAt: now + 1 }), await digestOf("current"), now)).toBe("current");
    expect(acceptedSecret(await state({ clientSecretExpiresAt: now }), await digestOf("current"), now)).toBeUndefined();
    expect(acceptedSecret(await state(), await digestOf("wrong"), now)).toBeUndefined();
  });

  it("the rotated-out secret during its grace period only", async () => {
    const rotated = await state({ previousSecretDigest: await digestOf("old"), previousSecretExpiresAt: now + 60 });
    expect(acceptedSecret(rotated, await digestOf("old"), now)).toBe("previous");
    expect(acceptedSecret(rotated, await digestOf("old"), now + 60)).toBeUndefined();
    expect(acceptedSecret(rotated, await digestOf("current"), now + 3600)).toBe("current");
    // No grace recorded: the old secret is refused at once.
    expect(acceptedSecret(await state({ previousSecretDigest: await digestOf("old") }), await digestOf("old"), now)).toBeUndefined();
  });

  it("an expired current secret is refused even while a previous one still works", async () => {
    const rotated = await state({ clientSecretExpiresAt: now - 1, previousSecretDigest: await digestOf("old"), previousSecretExpiresAt: now + 60 });
    expect(acceptedSecret(rotated, await digestOf("current"), now)).toBeUndefined();
    expect(acceptedSecret(rotated, await digestOf("old"), now)).toBe("previous");
  });
});

describe("the accounts a client serves", () => {
  it("every account when unrestricted, else exactly the listed ones", () => {
    expect(servesAccount(null, "a")).toBe(true);
    expect(servesAccount(["a", "b"], "b")).toBe(true);
    expect(servesAccount(["a"], "c")).toBe(false);
    expect(servesAccount([], "a")).toBe(false);
  });

  it("ids are UUIDs; anything else names nothing", () => {
    expect(isUuid(crypto.randomUUID())).toBe(true);
    expect(isUuid(randomSecret())).toBe(false);
    expect(isUuid("")).toBe(false);
  });
});

describe("users pushed without a password", () => {
  it("have a stored password no input matches, not even the empty string", async () => {
    expect(isUsablePassword(NO_PASSWORD)).toBe(false);
    expect(isUsablePassword(await hashPassword("x", 1000))).toBe(true);
    for (const attempt of ["", "NONE", "not-a-real-password"]) expect(await verifyPassword(attempt, NO_PASSWORD)).toBe(false);
  });
});

describe("why a token request is refused", () => {
  const acme = { id: "acme", disabled: false };
  const closed = { id: "closed", disabled: true };
  const userOf = (accountId: string, accountDisabled = false) => ({ accountId, accountDisabled });

  it("push: the named account must exist, be served and enabled; the user, if any, must be of that account", () => {
    expect(pushRefusal({ servedAccountIds: null, namedAccount: acme, user: null })).toBeUndefined();
    expect(pushRefusal({ servedAccountIds: null, namedAccount: acme, user: userOf("acme") })).toBeUndefined();
    expect(pushRefusal({ servedAccountIds: null, namedAccount: null, user: null })).toBe("no-such-account");
    expect(pushRefusal({ servedAccountIds: ["other"], namedAccount: acme, user: null })).toBe("account-not-served");
    expect(pushRefusal({ servedAccountIds: null, namedAccount: closed, user: null })).toBe("account-disabled");
    expect(pushRefusal({ servedAccountIds: null, namedAccount: acme, user: userOf("elsewhere") })).toBe("user-of-another-account");
  });

  it("a restricted client cannot tell a missing account from one it does not serve", () => {
    expect(pushRefusal({ servedAccountIds: ["acme"], namedAccount: null, user: null })).toBe("account-not-served");
    expect(pullRefusal({ servedAccountIds: ["acme"], namedAccount: null, user: null })).toBe("account-not-served");
  });

  it("pull with an account: the user must be of it", () => {
    expect(pullRefusal({ servedAccountIds: null, namedAccount: acme, user: userOf("acme") })).toBeUndefined();
    expect(pullRefusal({ servedAccountIds: null, namedAccount: acme, user: userOf("elsewhere") })).toBe("no-such-user");
    expect(pullRefusal({ servedAccountIds: null, namedAccount: acme, user: null })).toBe("no-such-user");
    expect(pullRefusal({ servedAccountIds: null, namedAccount: null, user: userOf("acme") })).toBe("no-such-account");
    expect(pullRefusal({ servedAccountIds: null, namedAccount: closed, user: userOf("closed", true) })).toBe("account-disabled");
  });

  it("pull without an account: the user's own, which must be served and enabled; a user outside the served accounts does not exist", () => {
    expect(pullRefusal({ servedAccountIds: null, user: userOf("acme") })).toBeUndefined();
    expect(pullRefusal({ servedAccountIds: ["acme"], user: userOf("acme") })).toBeUndefined();
    expect(pullRefusal({ servedAccountIds: null, user: null })).toBe("no-such-user");
    expect(pullRefusal({ servedAccountIds: ["acme"], user: userOf("elsewhere") })).toBe("no-such-user");
    expect(pullRefusal({ servedAccountIds: null, user: userOf("closed", true) })).toBe("account-disabled");
  });
});
