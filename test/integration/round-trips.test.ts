import { beforeAll, describe, expect, it } from "vitest";
import { call } from "./helpers";
import { allowedCaller } from "./harness/access";
import { loadContract, type Contract } from "./harness/contract";
import { createWorld, type World } from "./harness/fixtures";
import { hasFixtures, paramsFor, validRequest } from "./harness/operation-requests";
import { send } from "./harness/request-plan";
import { ROUND_TRIPS } from "./harness/round-trips";

/**
 * The D1 round trips of every documented operation, against the checked-in table
 * (harness/round-trips.ts): the registry's valid request, by the caller the suites use, on a real
 * object, with that caller's credentials already cached (as in steady traffic). A change that adds
 * a round trip to a route fails here; so does an operation missing from the table. Not timed: the
 * bench (npm run bench, docs/performance.md) measures time.
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
  });

  it("every operation makes the round trips the table says", async () => {
    const measured: Record<string, number | string> = {};
    for (const op of contract.operations.filter(hasFixtures)) {
      try {
        const params = await paramsFor(op, world);
        const caller = allowedCaller(op, world);
        // A user signs in first, so its credentials are cached as in steady traffic (a trusted-access
        // client has no sign-in to warm; its credentials elsewhere would be a failed login).
        if (op.access !== "trustedClient") await call("GET", "/api/user", { as: caller, unchecked: true });
        const res = await send(validRequest(op, world, params, caller));
        // A documented redirect (GET / to the reference page) is its operation's success.
        const succeeded = (res.status >= 200 && res.status < 300) || (res.status === 302 && "302" in op.responses);
        if (!succeeded) measured[op.key] = `answered ${res.status}: ${res.text.slice(0, 200)}`;
        else measured[op.key] = Number(res.headers.get("X-D1-Round-Trips"));
      } catch (error) {
        measured[op.key] = `failed: ${(error as Error).message.slice(0, 200)}`;
      }
    }
    const expected = Object.fromEntries(Object.keys(measured).map((key) => [key, ROUND_TRIPS[key] ?? "missing from the table"]));
    expect(measured).toEqual(expected);
    expect(Object.keys(measured).length).toBeGreaterThan(50);
  }, 180_000);
});
