/**
 * Password hashing with PBKDF2-SHA-256 through WebCrypto. The algorithm, iteration count
 * and salt are stored beside the hash so that stored hashes can be upgraded later.
 */
import { fromBase64, toBase64, toHex } from "./bytes";

/** Production Workers refuse PBKDF2 above 100,000 iterations per call; the local runtime does not. */
export const MAX_PBKDF2_ITERATIONS_PER_CALL = 100_000;
export const PASSWORD_ALGORITHM = "PBKDF2-SHA256";
export const PASSWORD_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
// One encoder per isolate: every request's sign-in hashes its credentials with it.
const utf8 = new TextEncoder();

export interface StoredPassword {
  algorithm: string;
  iterations: number;
  salt: string; // base64
  hash: string; // base64
}

export async function hashPassword(password: string, iterations = PASSWORD_ITERATIONS): Promise<StoredPassword> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await pbkdf2(password, salt, iterations);
  return { algorithm: PASSWORD_ALGORITHM, iterations, salt: toBase64(salt), hash: toBase64(hash) };
}

export async function verifyPassword(password: string, stored: StoredPassword): Promise<boolean> {
  if (stored.algorithm !== PASSWORD_ALGORITHM) return false;
  const actual = await pbkdf2(password, fromBase64(stored.salt), stored.iterations);
  return timingSafeEqual(actual, fromBase64(stored.hash));
}

/**
 * What a user created by a trusted-access push stores instead of a password: no password matches
 * it, so the user signs in only with bearer tokens until an administrator sets a password.
 */
export const NO_PASSWORD: StoredPassword = { algorithm: "NONE", iterations: 1, salt: "", hash: "" };

/** Whether a stored password can ever match (a pushed user's NO_PASSWORD cannot). */
export const isUsablePassword = (stored: StoredPassword) => stored.algorithm === PASSWORD_ALGORITHM;

/** True when a hash was made with weaker parameters than today's and should be recomputed. */
export function needsRehash(stored: StoredPassword): boolean {
  return stored.algorithm !== PASSWORD_ALGORITHM || stored.iterations < PASSWORD_ITERATIONS;
}

export async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS_PER_CALL) {
    throw new RangeError(`PBKDF2 iterations must be between 1 and ${MAX_PBKDF2_ITERATIONS_PER_CALL}`);
  }
  const key = await crypto.subtle.importKey("raw", utf8.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", utf8.encode(text));
  return toHex(new Uint8Array(digest));
}

const knownDigests = new Map<string, Promise<Uint8Array>>();

/**
 * Compares a sent secret with a configured one in constant time, by comparing their digests.
 * The configured secret's digest is computed once per isolate, not on every request.
 */
export async function secretsEqual(sent: string, configured: string): Promise<boolean> {
  let expected = knownDigests.get(configured);
  if (!expected) {
    if (knownDigests.size > 8) knownDigests.clear();
    knownDigests.set(configured, (expected = sha256Bytes(configured)));
  }
  const [da, db] = await Promise.all([sha256Bytes(sent), expected]);
  return timingSafeEqual(da, db);
}

async function sha256Bytes(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", utf8.encode(text)));
}

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

