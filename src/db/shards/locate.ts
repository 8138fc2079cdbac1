import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../../lib/types";
import { DEFAULT_ACCOUNT_ID } from "../scope";
import { tokenKey } from "../access-tokens";
import { askEveryShard, placeRequest } from "./routing";

/**
 * Places a supervisor's request on the shard of the account it acts on, when the directory and the
 * shards are several databases (a user's request is placed by authentication, on its own account).
 * The supervisor names the account in the path (`/api/accounts/{id}/…`, `/api/quota/{accountId}`),
 * or names an object whose account only its shard knows (`/api/users/{id}`): each shard is asked
 * at once which account holds it (one round trip of latency, one counted per shard; ids survive
 * moves, so they cannot name a shard), or in `?accountId=`; otherwise the default account, which a
 * handler reading `accountId` from the body may replace (db/scope.ts) before its first statement.
 */
export const locate: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("shardRoute") && c.get("principal")?.kind === "supervisor") await locateSupervisorRequest(c);
  return next();
};

/** Paths whose first segment after the prefix is an account's id. */
const ACCOUNT_PATHS = [/^\/api\/accounts\/(?!name\/)([^/]+)/, /^\/api\/quota\/(?:refresh\/)?([^/]+)$/];

/** The column and value a path's segment names a row by: its `id`, unless the table says otherwise. */
type KeyOf = (segment: string) => Promise<{ column: string; value: string }>;

/** Paths whose segment names an object of an account-owned table (the words that are routes, not ids, excluded). */
const OBJECT_PATHS: [RegExp, string, KeyOf?][] = [
  [/^\/api\/users\/([^/]+)/, "users"],
  [/^\/api\/groups\/([^/]+)/, "groups"],
  [/^\/api\/sources\/(?!export$|import$|data-entities\/)([^/]+)/, "sources"],
  [/^\/api\/json-datasets\/([^/]+)/, "json_datasets"],
  [/^\/api\/calendars\/([^/]+)/, "calendars"],
  [/^\/api\/folders\/(?!tree$|tree-state$)([^/]+)/, "folders"],
  [/^\/api\/connections\/(?!validate$)([^/]+)/, "connections"],
  [/^\/api\/materialized-views\/([^/]+)/, "materialized_views"],
  [/^\/api\/audit-events\/([^/]+)/, "audit_events"],
  [/^\/api\/webhooks\/([^/]+)/, "webhooks"],
  // A token is named by its token_id, or by the token itself (found by its digest).
  [/^\/api\/trusted-access\/tokens\/([^/]+)/, "access_tokens", tokenKey],
];

/** Paths whose handler places the request itself, from the directory's answer: `GET /api/accounts/name/{name}` (placeByAccountName). */
const PLACED_BY_HANDLER = /^\/api\/accounts\/name\//;

async function locateSupervisorRequest(c: Context<AppEnv>): Promise<void> {
  const path = pathWithinApi(c);
  if (PLACED_BY_HANDLER.test(path)) return;
  for (const pattern of ACCOUNT_PATHS) {
    const id = pattern.exec(path)?.[1];
    if (id) return placeRequest(c, decode(id));
  }
  for (const [pattern, table, keyOf] of OBJECT_PATHS) {
    const id = pattern.exec(path)?.[1];
    if (!id) continue;
    const key = keyOf ? await keyOf(decode(id)) : { column: "id", value: decode(id) };
    return placeRequest(c, (await accountHolding(c, table, key.column, key.value)) ?? DEFAULT_ACCOUNT_ID);
  }
  return placeRequest(c, c.req.query("accountId") || DEFAULT_ACCOUNT_ID);
}

/** Asks every shard at once which account holds the row of `table` whose `column` is `value`; undefined when none does. */
const accountHolding = (c: Context<AppEnv>, table: string, column: string, value: string) =>
  askEveryShard(c, `SELECT account_id FROM ${table} WHERE ${column} = ? AND account_id IS NOT NULL`, value);

function pathWithinApi(c: Context<AppEnv>): string {
  const contextPath = c.get("config").contextPath;
  const path = c.req.path;
  return contextPath && path.startsWith(contextPath) ? path.slice(contextPath.length) : path;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
