import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "./contract";
import { createWorld, FIXTURES } from "./fixtures";
import { createCast, fuzzOperation, fuzzSettings, newStats, partition, summaryLine, type FuzzCast } from "./fuzz-runner";
import { planUrl, send } from "./request-plan";
import { unroutedRequestArbitrary } from "./unrouted-requests";

/** How many conformance-fuzz-N.test.ts files share the operations (Vitest runs them in parallel). */
export const FUZZ_FILES = 2;

/**
 * Declares one fuzz file: one test per operation of its share of the route table, read from the
 * document when the file is collected, so a newly mounted route gets its test without an edit.
 * The first file also sends requests anywhere (any method, odd paths), outside the operations.
 */
export async function defineFuzzFile(index: number): Promise<void> {
  const contract = await loadContract();
  const operations = partition(contract.operations, index, FUZZ_FILES);
  const settings = fuzzSettings();
  const stats = newStats();
  const name = `conformance-fuzz ${index + 1}/${FUZZ_FILES}`;
  // Generous: `npm run fuzz` sends thousands of requests per operation.
  const timeout = Math.max(60_000, settings.runs * 2 * 40);
  let cast: FuzzCast;

  describe(`${name}: generated valid and invalid requests, from the OpenAPI document`, () => {
    beforeAll(async () => {
      cast = await createCast(await createWorld("Fuzz"));
    }, 60_000);
    afterAll(() => console.log(summaryLine(name, settings, stats)));

    for (const op of operations) it(op.key, () => fuzzOperation(contract, op, cast, settings, stats), timeout);

    if (index === 0) {
      it("requests anywhere (any method, odd paths and headers): never a 5xx, always within the contract", async () => {
        const { world } = cast;
        const source = await FIXTURES["/api/sources/{sourceId}"]!.params!(world);
        const realIds = [world.account.id, world.admin.id, source.sourceId!, "carrier", "Volume"];
        try {
          await fc.assert(
            fc.asyncProperty(unroutedRequestArbitrary(contract, world, realIds), async (plan) => {
              const res = await send(plan);
              stats.requests++;
              expect(res.status, `${plan.method} ${planUrl(plan)}`).toBeLessThan(500);
            }),
            { seed: settings.seed, numRuns: settings.runs * 4 },
          );
        } catch (error) {
          stats.failures.push("requests anywhere");
          throw error;
        }
      }, timeout * 2);
    }
  });
}
