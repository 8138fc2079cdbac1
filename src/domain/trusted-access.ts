import { toBase64Url } from "./bytes";
import { sha256Hex, timingSafeEqual } from "./passwords";

/**
 * The rules of trusted access that need no storage: how secrets and tokens are made, which
 * presented secret a client's state accepts at a given time, and which accounts a client serves.
 * Times of secrets are seconds since the epoch (RFC 7591's `client_secret_expires_at`, 0 = never).
 */

/** Tokens live at most 30 days; each client says how long its own do. */
export const MAX_TOKEN_VALIDITY_SECONDS = 30 * 24 * 3600;
/** The longest a rotated-out secret keeps working. */
export const MAX_SECRET_GRACE_SECONDS = 30 * 24 * 3600;
/** 9999-12-31T23:59:59Z: later values are taken for milliseconds sent by mistake. */
export const MAX_EXPIRES_AT_SECONDS = 253_402_300_799;
/** The accounts one client may be restricted to, at most. */
export const MAX_CLIENT_ACCOUNTS = 100;
export const TOKEN_ENDPOINT_AUTH_METHOD = "client_secret_basic";

const SECRET_BYTES = 32; // 256 bits, for client secrets and access tokens alike

/** A new client secret or access token: 256 random bits, base64url without padding (43 characters). */
export function randomSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** What is stored of a secret or a token: its SHA-256, hex. */
export const digestOf = (secret: string): Promise<string> => sha256Hex(secret);

export const nowInSeconds = (nowMs = Date.now()) => Math.floor(nowMs / 1000);

/** 0 means never. */
export const isLive = (expiresAt: number, nowSeconds: number) => expiresAt === 0 || expiresAt > nowSeconds;

export interface SecretState {
  secretDigest: string;
  clientSecretExpiresAt: number;
  previousSecretDigest: string | null;
  previousSecretExpiresAt: number | null;
}

/**
 * Which of the client's secrets the presented one is, if it is one that still works: the current
 * secret until its expiry, or the one it replaced during the grace period of a rotation. Digests
 * are compared in constant time.
 */
export function acceptedSecret(state: SecretState, presentedDigest: string, nowSeconds: number): "current" | "previous" | undefined {
  const presented = new TextEncoder().encode(presentedDigest);
  const matches = (digest: string | null) => digest !== null && timingSafeEqual(presented, new TextEncoder().encode(digest));
  const current = matches(state.secretDigest);
  const previous = matches(state.previousSecretDigest);
  if (current && isLive(state.clientSecretExpiresAt, nowSeconds)) return "current";
  if (previous && state.previousSecretExpiresAt !== null && state.previousSecretExpiresAt > nowSeconds) return "previous";
  return undefined;
}

/** Whether a client restricted to `accountIds` (null: unrestricted) may mint tokens in the account. */
export function servesAccount(accountIds: readonly string[] | null, accountId: string): boolean {
  return accountIds === null || accountIds.includes(accountId);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Client ids and token ids are UUIDs: anything else names nothing, and needs no lookup. */
export const isUuid = (value: string) => UUID.test(value);

/**
 * Why a token request is refused, given what the database says. Push names an account (by name)
 * and creates the user if it is missing; pull names a user and, optionally, its account. A client
 * restricted to accounts learns nothing about the others: an account it does not serve is
 * "not served" whether or not it exists, and a user outside them is "no such user".
 */
export type GrantRefusal =
  | "account-not-served"
  | "no-such-account"
  | "account-disabled"
  | "no-such-user"
  | "user-of-another-account";

export interface GrantFacts {
  /** The client's restriction (null: every account). */
  servedAccountIds: readonly string[] | null;
  /** The account the request names: null when no account has that name; undefined when the request names none. */
  namedAccount?: { id: string; disabled: boolean } | null;
  /** The user with the requested name, wherever it is; null when there is none. */
  user: { accountId: string; accountDisabled: boolean } | null;
}

/** The named account's refusal, if any: not served (or, for an unrestricted client, missing), or disabled. */
function namedAccountRefusal(facts: GrantFacts, account: { id: string; disabled: boolean } | null): GrantRefusal | undefined {
  if (!account) return facts.servedAccountIds === null ? "no-such-account" : "account-not-served";
  if (!servesAccount(facts.servedAccountIds, account.id)) return "account-not-served";
  if (account.disabled) return "account-disabled";
  return undefined;
}

export function pushRefusal(facts: GrantFacts & { namedAccount: { id: string; disabled: boolean } | null }): GrantRefusal | undefined {
  const refusal = namedAccountRefusal(facts, facts.namedAccount);
  if (refusal) return refusal;
  // Usernames are unique across accounts: a push never moves or touches another account's user.
  if (facts.user && facts.user.accountId !== facts.namedAccount!.id) return "user-of-another-account";
  return undefined;
}

export function pullRefusal(facts: GrantFacts): GrantRefusal | undefined {
  const account = facts.namedAccount;
  if (account !== undefined) {
    const refusal = namedAccountRefusal(facts, account);
    if (refusal) return refusal;
    return facts.user && facts.user.accountId === account!.id ? undefined : "no-such-user";
  }
  if (!facts.user || !servesAccount(facts.servedAccountIds, facts.user.accountId)) return "no-such-user";
  return facts.user.accountDisabled ? "account-disabled" : undefined;
}
