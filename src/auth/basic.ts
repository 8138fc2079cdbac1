import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { compiled } from "../db/compiled";
import { accounts, users } from "../db/schema";
import { hashPassword, isUsablePassword, needsRehash, secretsEqual, sha256Hex, verifyPassword, type StoredPassword } from "../domain/passwords";
import type { Principal, UserPrincipal } from "../domain/principal";
import { membershipsOf, readMemberships } from "./memberships";
import { credentialCache } from "./cache";
import { fromBase64 } from "../domain/bytes";

export interface BasicCredentials {
  username: string;
  password: string;
}

/** Strict UTF-8 (a malformed sequence throws); made once per isolate, as decode() keeps no state between calls. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Parses `Basic base64(username:password)`; undefined when malformed. */
export function parseBasic(header: string): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(fromBase64(match[1]!));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export type BasicOutcome =
  | { ok: true; principal: Principal; rehash?: () => Promise<unknown> }
  | { ok: false; reason: "bad-credentials" | "account-disabled" };

export interface BasicContext {
  db: Database;
  supervisor: { username?: string; password?: string };
  cacheTtlMs: number;
  /** Called before the user is looked up in D1 (not on a cache hit): the lookup must be fresh. */
  beforeLookup?: () => void | Promise<void>;
}

/**
 * Verifies Basic credentials. A warm cache answers without touching D1; otherwise one query
 * loads the user with its account state and its groups' privileges, then PBKDF2 verifies.
 */
export async function verifyBasic(credentials: BasicCredentials, ctx: BasicContext): Promise<BasicOutcome> {
  const { username, password } = credentials;
  const { supervisor } = ctx;
  if (supervisor.username && supervisor.password && username === supervisor.username) {
    return (await secretsEqual(password, supervisor.password))
      ? { ok: true, principal: { kind: "supervisor", id: "supervisor", name: username } }
      : { ok: false, reason: "bad-credentials" };
  }

  const cacheKey = await sha256Hex(`${username}\u0000${password}`);
  const cached = credentialCache.get(cacheKey);
  if (cached) return { ok: true, principal: cached };
  await ctx.beforeLookup?.();

  const row = await signInUserByName(ctx.db).get({ username });

  // Unknown users, and users without a password (pushed by a trusted client), cost the same
  // derivation as the others, so timing reveals neither which names exist nor which have a password.
  const usable = row !== undefined && isUsablePassword(row);
  const stored: StoredPassword = usable ? row : await dummyPassword();
  const valid = await verifyPassword(password, stored);
  if (!usable || !valid) return { ok: false, reason: "bad-credentials" };
  if (row.accountDisabled) return { ok: false, reason: "account-disabled" };

  const principal: UserPrincipal & { userId: string } = {
    kind: "user",
    id: row.id,
    userId: row.id,
    name: row.name,
    accountId: row.accountId,
    ...readMemberships(row.roles, row.memberships),
    via: "basic",
  };
  credentialCache.set(cacheKey, principal, ctx.cacheTtlMs);
  const rehash = needsRehash(stored)
    ? async () => {
        const fresh = await hashPassword(password);
        await ctx.db
          .update(users)
          .set({ passwordAlgorithm: fresh.algorithm, passwordIterations: fresh.iterations, passwordSalt: fresh.salt, passwordHash: fresh.hash })
          .where(eq(users.id, row.id));
      }
    : undefined;
  return { ok: true, principal, rehash };
}

// Every cold sign-in reads it: compiled once per isolate (db/compiled.ts), not built by Drizzle on each.
const signInUserByName = compiled((db) =>
  db
    .select({
      id: users.id,
      name: users.name,
      accountId: users.accountId,
      roles: users.roles,
      algorithm: users.passwordAlgorithm,
      iterations: users.passwordIterations,
      salt: users.passwordSalt,
      hash: users.passwordHash,
      accountDisabled: accounts.disabled,
      memberships: membershipsOf(),
    })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.name, sql.placeholder("username"))),
);

let dummy: Promise<StoredPassword> | undefined;
function dummyPassword(): Promise<StoredPassword> {
  dummy ??= hashPassword("not-a-real-password");
  return dummy;
}
