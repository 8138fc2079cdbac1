import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../domain/principal";
import type { Context } from "hono";
import { ApiError } from "../lib/errors";
import type { AppEnv } from "../lib/types";
import type { Database } from "./client";
import { compiled, type PreparedLike } from "./compiled";
import { placeRequest } from "./shards/routing";

/**
 * The one place that decides which accounts a caller's queries may touch.
 * A user sees its own account only; the supervisor sees every account.
 * Handlers never filter by account themselves: they call `scoped()` so that another
 * account's row is simply not found (404), never forbidden (which would confirm it exists).
 */
export type AccountScope = { kind: "all" } | { kind: "account"; accountId: string };

export function scopeOf(principal: Principal): AccountScope {
  return principal.kind === "supervisor" ? { kind: "all" } : { kind: "account", accountId: principal.accountId };
}

/** A scope as a query states it: a compiled query's names its account by placeholder. */
export type QueryScope = { kind: "all" } | { kind: "account"; accountId: string | Placeholder };

/** Joins the scope's condition to the caller's own conditions. */
export function scoped(accountColumn: SQLiteColumn, scope: QueryScope, ...conditions: (SQL | undefined)[]): SQL | undefined {
  const own = scope.kind === "account" ? eq(accountColumn, scope.accountId) : undefined;
  return and(own, ...conditions);
}

/**
 * A query compiled once per isolate (db/compiled.ts) for each kind of scope, its SQL differing by
 * the account condition: the account's template names its account by the placeholder "accountId"
 * (its value: accountIdOf), the supervisor's has none. A request runs the template of its scope.
 */
export function compiledPerScope<P extends PreparedLike>(build: (db: Database, scope: QueryScope) => { prepare(): P }): (db: Database, scope: AccountScope) => P {
  const templates = {
    account: compiled((db) => build(db, { kind: "account", accountId: sql.placeholder("accountId") })),
    all: compiled((db) => build(db, { kind: "all" })),
  };
  return (db, scope) => templates[scope.kind](db);
}

/** The value of compiledPerScope's "accountId" placeholder (the supervisor's template has none). */
export const accountIdOf = (scope: AccountScope): string | undefined => (scope.kind === "account" ? scope.accountId : undefined);

export function inScope(scope: AccountScope, accountId: string): boolean {
  return scope.kind === "all" || scope.accountId === accountId;
}

/** The built-in account that exists from the first migration and can be neither deleted nor disabled. */
export const DEFAULT_ACCOUNT_ID = "00000000-0000-4000-8000-000000000001";

/**
 * The account a write lands in. A user writes into its own account only (naming another is a
 * 403 that reveals nothing about it); the supervisor names any account, the default one if none.
 */
export function accountForWrite(principal: Principal, requested: string | undefined): string {
  if (principal.kind === "supervisor") return requested ?? DEFAULT_ACCOUNT_ID;
  if (requested !== undefined && requested !== principal.accountId) {
    throw new ApiError("ACCOUNT_FORBIDDEN", "You may not act on another account", {
      problems: [{ name: "body.accountId", message: "Must be your own account", level: "ERROR" }],
    });
  }
  return principal.accountId;
}

/** The account a write lands in (`accountForWrite`), with the request placed on its shard (db/shards/routing.ts). */
export async function placedForWrite(c: Context<AppEnv>, requested: string | undefined): Promise<string> {
  const accountId = accountForWrite(c.get("principal"), requested);
  await placeRequest(c, accountId);
  return accountId;
}

/** The one account a list reads: the caller's own, or for the supervisor the one it names (default account otherwise). */
export function accountForList(principal: Principal, requested: string | undefined): { kind: "account"; accountId: string } {
  if (principal.kind === "supervisor") return { kind: "account", accountId: requested ?? DEFAULT_ACCOUNT_ID };
  return { kind: "account", accountId: principal.accountId };
}

