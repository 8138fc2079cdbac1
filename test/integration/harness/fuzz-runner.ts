import { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import { as, createUser, dbSnapshot, SUPERVISOR } from "../helpers";
import { allowedCaller, disabledAccountAdmin, expectedOutcome, type Caller } from "./access";
import type { Contract } from "./contract";
import { lastMemberName, isMounted, referenceMemberPaths } from "./coverage";
import type { Operation } from "./document";
import { FIXTURES, REFERENCE_MEMBERS, type World } from "./fixtures";
import { invalidRequestArbitrary, invalidRequests } from "./invalid-requests";
import { planUrl, send, type RequestPlan } from "./request-plan";
import { errorCodesOfAnswer } from "./response-validation";
import { SANE_REQUEST_ID, validRequestArbitrary } from "./valid-requests";

/**
 * Runs the schema-driven fuzz of one operation: generated VALID requests (never a 5xx, always
 * within the contract), then generated INVALID ones (always a 4xx within the contract, and
 * together they change nothing in the database). `npm test` runs a bounded number per operation
 * with a fixed seed; `npm run fuzz` passes FUZZ_RUNS and a random FUZZ_SEED into the workers.
 */
export const FIXED_SEED = 20261124;

export interface FuzzSettings {
  runs: number;
  seed: number;
}

export function fuzzSettings(): FuzzSettings {
  const vars = env as unknown as Record<string, string | undefined>;
  const runs = Number(vars.FUZZ_RUNS);
  const seed = vars.FUZZ_SEED ? Number(vars.FUZZ_SEED) : Number.NaN;
  return { runs: Number.isInteger(runs) && runs > 0 ? runs : 50, seed: Number.isInteger(seed) ? seed : FIXED_SEED };
}

/** Each operation gets its own stream of the seed, so adding a route does not reshuffle the others. */
export function operationSeed(seed: number, op: Operation): number {
  let hash = seed | 0;
  for (const ch of op.key) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return hash;
}

/** The operations of one of `count` fuzz files (by position in the sorted route table). */
export function partition(operations: readonly Operation[], index: number, count: number): Operation[] {
  return operations.filter((_op, i) => i % count === index);
}

export interface FuzzStats {
  requests: number;
  operations: number;
  failures: string[];
  accepted: number;
  refused: number;
}

export const newStats = (): FuzzStats => ({ requests: 0, operations: 0, failures: [], accepted: 0, refused: 0 });

export function summaryLine(name: string, settings: FuzzSettings, stats: FuzzStats): string {
  return (
    `[${name}] seed ${settings.seed}, ${settings.runs} valid + ${settings.runs} invalid runs per operation: ` +
    `requests sent ${stats.requests} (2xx ${stats.accepted}, 4xx ${stats.refused}), operations covered ${stats.operations}, failures ${stats.failures.length}` +
    (stats.failures.length ? ` (${stats.failures.join("; ")})` : "")
  );
}

/** The world a fuzz file works in, and the signed-in callers its invalid requests try (each where the operation refuses it). */
export interface FuzzCast {
  world: World;
  callers: Caller[];
}

export async function createCast(world: World): Promise<FuzzCast> {
  const noPrivilege = await createUser(world.account.id, { name: world.name("noPrivilege") });
  return {
    world,
    callers: [
      { label: "noPrivilege", kind: "noPrivilege", credentials: as(noPrivilege), privileges: [] },
      { label: "accountAdmin", kind: "accountAdmin", credentials: as(world.admin), privileges: ["ROLE_ADMIN"] },
      { label: "supervisor", kind: "supervisor", credentials: SUPERVISOR, privileges: [] },
      await disabledAccountAdmin(world),
    ],
  };
}

async function referenceValues(contract: Contract, op: Operation, world: World): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  if (!op.requestBody) return values;
  for (const path of referenceMemberPaths(contract.doc, op.requestBody.schema)) {
    const name = lastMemberName(path);
    const target = REFERENCE_MEMBERS[name];
    if (target?.value && target.collection && isMounted(contract, target.collection)) values[name] = await target.value(world);
  }
  return values;
}

export async function fuzzOperation(contract: Contract, op: Operation, cast: FuzzCast, settings: FuzzSettings, stats: FuzzStats): Promise<void> {
  const { world } = cast;
  const entry = FIXTURES[op.template];
  if (op.pathParams.length && !entry?.params) throw new Error(`${op.key}: no fixture for its path parameters (see conformance-document.test.ts)`);
  if (op.requestBody && !entry?.bodies?.[op.method]) throw new Error(`${op.key}: no valid body builder (see conformance-document.test.ts)`);
  const headers: Record<string, string> = op.stability === "preview" ? { "X-Enable-Preview": "true" } : {};
  const caller = allowedCaller(op, world);
  const seed = operationSeed(settings.seed, op);
  stats.operations++;

  const record = (plan: RequestPlan, status: number) => {
    stats.requests++;
    if (status < 300) stats.accepted++;
    else if (status >= 400) stats.refused++;
    return `${plan.label}: ${plan.method} ${planUrl(plan).slice(0, 200)} -> ${status}`;
  };

  try {
    // INVALID first, on objects of their own: every one refused, and the batch changes nothing.
    const invalidParams = entry?.params ? await entry.params(world) : {};
    const categories = invalidRequests({
      contract,
      op,
      params: invalidParams,
      query: entry?.query?.[op.method]?.(world, invalidParams) ?? {},
      body: entry?.bodies?.[op.method]?.(world, invalidParams),
      caller,
      // The allowed caller's own name (a client_id on the token endpoints), for the wrong-password state.
      knownUsername: caller && "username" in caller ? caller.username : world.admin.username,
      refusedCallers: cast.callers.filter((c) => expectedOutcome(op, c) !== "passes"),
      headers,
    });
    if (categories.length > 0) {
      const before = await dbSnapshot();
      await fc.assert(
        fc.asyncProperty(invalidRequestArbitrary(categories), async (plan) => {
          const res = await send(plan);
          const where = record(plan, res.status);
          expect(res.status, `${where} must be refused (4xx)\n${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
          expect(res.status, where).toBeLessThan(500);
          // An unknown member is a 400 that names it (in `problems`, or in an OAuth body's description).
          for (const name of plan.namesProblems ?? []) {
            expect(res.status, `${where}: an unknown member must be a 400\n${res.text.slice(0, 300)}`).toBe(400);
            const named = Array.isArray(res.json?.problems) ? res.json.problems.some((p: { name: string }) => p.name === name) : res.text.includes(name);
            expect(named, `${where}: the answer does not name ${name}\n${res.text.slice(0, 300)}`).toBe(true);
          }
          // The caller is allowed: only broken credentials may be the reason for a 401 or a 403 FORBIDDEN.
          if (plan.category !== "authentication") {
            const forbidden = errorCodesOfAnswer(op, res.status, res.json).includes("FORBIDDEN");
            expect(res.status === 401 || forbidden, `${where}: an allowed caller refused for its credentials\n${res.text.slice(0, 300)}`).toBe(false);
          }
        }),
        { seed, numRuns: settings.runs },
      );
      expect(await dbSnapshot(), `${op.key}: a batch of invalid requests changed the database`).toEqual(before);
    }

    // VALID: never a 5xx, always within the contract (checked by `call`), the request id echoed.
    const params = entry?.params ? await entry.params(world) : {};
    const query = entry?.query?.[op.method]?.(world, params);
    const valid = validRequestArbitrary({ contract, op, world, params, query, caller, headers, referenceValues: await referenceValues(contract, op, world) });
    await fc.assert(
      fc.asyncProperty(valid, async (plan) => {
        const res = await send(plan);
        const where = record(plan, res.status);
        expect(res.status, where).toBeLessThan(500);
        const sent = plan.headers?.["X-Request-Id"];
        if (sent !== undefined && SANE_REQUEST_ID.test(sent)) expect(res.headers.get("X-Request-Id"), `${where}: X-Request-Id not echoed`).toBe(sent);
      }),
      { seed: seed + 1, numRuns: settings.runs },
    );
  } catch (error) {
    stats.failures.push(op.key);
    throw error;
  }
}
