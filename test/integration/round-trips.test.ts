import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, shardNameOf, SUPERVISOR, type Credentials } from "./helpers";
import { otherShards, sharded, shardsAsked } from "./every-database";
import { allowedCaller } from "./harness/access";
import type { Operation } from "./harness/document";
import { loadContract, type Contract } from "./harness/contract";
import { createWorld, type PathParams, type World } from "./harness/fixtures";
import { hasFixtures, paramsFor, validRequest } from "./harness/operation-requests";
import { send } from "./harness/request-plan";
import { ROUND_TRIPS, SHARDED_ROUND_TRIPS, type Layout } from "./harness/round-trips";

/**
 * The D1 round trips of every documented operation, against the checked-in table
 * (harness/round-trips.ts): the registry's valid request, by the caller the suites use, on a real
 * object, with that caller's credentials already cached (as in steady traffic). A change that adds
 * a round trip to a route fails here; so does an operation missing from the table. Not timed: the
 * bench (npm run bench, docs/performance.md) measures time.
 *
 * Over several databases (integration-shards) each operation takes the same, plus what
 * SHARDED_ROUND_TRIPS says the directory and the other shards cost it (docs/sharding.md); a user's
 * warm request adds nothing.
 */
let contract: Contract;
let world: World;

beforeAll(async () => {
  contract = await loadContract();
  world = await createWorld("Trips");
}, 60_000);

describe("D1 round trips per operation (X-D1-Round-Trips)", () => {
  it("every documented operation is in the table, and every entry of the table is documented", () => {
    const documented = contract.operations.map((op) => op.key);
    expect(documented.filter((key) => !(key in ROUND_TRIPS)), "operations missing from test/integration/harness/round-trips.ts").toEqual([]);
    expect(Object.keys(ROUND_TRIPS).filter((key) => !documented.includes(key)), "entries of round-trips.ts that no operation has").toEqual([]);
    expect(Object.keys(SHARDED_ROUND_TRIPS).filter((key) => !documented.includes(key)), "entries of SHARDED_ROUND_TRIPS that no operation has").toEqual([]);
  });

  it("every operation makes the round trips the table says", async () => {
    const measured: Record<string, number | string> = {};
    const expected: Record<string, number | string> = {};
    for (const op of contract.operations.filter(hasFixtures)) {
      try {
        const params = await paramsFor(op, world);
        const caller = allowedCaller(op, world);
        await warmUp(op, params, caller);
        // Where the account acted on lives, read before the request (a deletion removes it); a new one's is in the answer.
        const account = accountActedOn(op, params);
        const shardBefore = account ? await shardNameOf(account) : undefined;
        const res = await send(validRequest(op, world, params, caller));
        // A documented redirect (GET / to the reference page) is its operation's success.
        const succeeded = (res.status >= 200 && res.status < 300) || (res.status === 302 && "302" in op.responses);
        if (!succeeded) measured[op.key] = `answered ${res.status}: ${res.text.slice(0, 200)}`;
        else {
          measured[op.key] = Number(res.headers.get("X-D1-Round-Trips"));
          const extra = SHARDED_ROUND_TRIPS[op.key]?.(layout(shardBefore ?? res.json?.shard));
          if (extra !== undefined && ROUND_TRIPS[op.key] !== undefined) expected[op.key] = ROUND_TRIPS[op.key]! + extra;
        }
      } catch (error) {
        measured[op.key] = `failed: ${(error as Error).message.slice(0, 200)}`;
      }
    }
    for (const key of Object.keys(measured)) expected[key] ??= ROUND_TRIPS[key] ?? "missing from the table";
    expect(measured).toEqual(expected);
    expect(Object.keys(measured).length).toBeGreaterThan(50);
  }, 180_000);
});

/** Accounts named by id in the path: `/api/accounts/{id}…`, `/api/accounts/{accountId}/…`. */
const ACCOUNT_IN_PATH = /^\/api\/accounts\/\{(id|accountId)\}/;

/** The account an operation acts on: the one its path names, else the world's; none for the name route and a creation. */
function accountActedOn(op: Operation, params: PathParams): string | undefined {
  const named = ACCOUNT_IN_PATH.exec(op.template)?.[1];
  if (named) return params[named];
  if (op.template === "/api/accounts" || op.template === "/api/accounts/name/{name}") return undefined;
  return world.account.id;
}

/**
 * What steady traffic has already done: a user has signed in, so its credentials are cached (a
 * trusted-access client has no sign-in to warm; its credentials elsewhere would be a failed login),
 * and the supervisor has lately used the account it acts on, so this isolate knows where it lives
 * (over several databases an account not placed lately costs one directory read: shards/round-trips.test.ts).
 */
async function warmUp(op: Operation, params: PathParams, caller: Credentials): Promise<void> {
  if (op.access !== "trustedClient") await call("GET", "/api/user", { as: caller, unchecked: true });
  if (caller !== SUPERVISOR) return;
  const named = ACCOUNT_IN_PATH.exec(op.template)?.[1];
  if (named) await call("GET", `/api/accounts/${params[named]}`, { unchecked: true });
  if (op.template === "/api/accounts/name/{name}") await call("GET", `/api/accounts/name/${encodeURIComponent(params.name!)}`, { unchecked: true });
}

/** The layout of the databases for a request acting on an account of `shard` (undefined: none). */
const layout = (shard: string | undefined): Layout => ({
  asked: shardsAsked(),
  others: otherShards(),
  several: sharded() ? 1 : 0,
  apart: shard !== undefined && shard !== (env.DIRECTORY ?? "DB") ? 1 : 0,
});
