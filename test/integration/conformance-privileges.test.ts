import { beforeAll, describe, expect, it } from "vitest";
import { dbSnapshot, type CallResult } from "./helpers";
import { createCallers, expectedOutcome, type Caller, type Expected } from "./harness/access";
import { loadContract, type Contract } from "./harness/contract";
import { accessGaps, fixtureGaps } from "./harness/coverage";
import { fillTemplate, type Operation } from "./harness/document";
import { createWorld, FIXTURES, type PathParams, type World } from "./harness/fixtures";
import { send, type RequestPlan } from "./harness/request-plan";
import { errorCodesOfAnswer } from "./harness/response-validation";

/**
 * The privilege matrix, generated: every documented operation, called by every caller level
 * (nobody, no privilege, each privilege alone, an account admin, the supervisor, a user of a
 * disabled account), against the outcome its `x-access` and `x-object-permission` imply.
 * Real fixture objects are in the path, so allowed callers reach the handler and get its real
 * answer; refused callers get 401/403 both with that real request and with dummy ids and an
 * empty body (the rule is checked before validation and lookups), and change nothing.
 */
let contract: Contract;
let world: World;
let callers: Caller[];

beforeAll(async () => {
  contract = await loadContract();
  world = await createWorld("Matrix");
  callers = await createCallers(world);
}, 60_000);

const headersOf = (op: Operation): Record<string, string> => (op.stability === "preview" ? { "X-Enable-Preview": "true" } : {});

function plan(op: Operation, caller: Caller, params: PathParams, body: unknown): RequestPlan {
  return {
    label: `${caller.label} calls ${op.key}`,
    method: op.method,
    path: fillTemplate(op.template, params),
    query: FIXTURES[op.template]?.query?.[op.method]?.(world, params),
    headers: { ...headersOf(op), ...caller.headers?.() },
    body: body === undefined ? undefined : { json: body },
    as: caller.credentials,
  };
}

/** A real object for the operation's path, or undefined (and the reason recorded) when the API would not make one. */
async function fixtureParams(op: Operation, problems: string[]): Promise<PathParams | undefined> {
  try {
    return (await FIXTURES[op.template]?.params?.(world)) ?? {};
  } catch (error) {
    problems.push(`${op.key}: its fixture could not be made: ${(error as Error).message}`);
    return undefined;
  }
}

/** Sends and describes any disagreement with the expected outcome (a contract violation included). */
async function attempt(op: Operation, request: RequestPlan, expected: Expected): Promise<string | undefined> {
  let res: CallResult;
  try {
    res = await send(request);
  } catch (error) {
    return `${request.label}: ${(error as Error).message}`;
  }
  const got = `${res.status} ${res.json?.errorCode ?? ""}`.trim();
  if (expected === "passes") {
    // A documented redirect (GET / to the API reference) is that operation's success.
    const succeeded = (res.status >= 200 && res.status < 300) || (res.status === 302 && op.responses["302"] !== undefined);
    if (!succeeded) return `${request.label}: expected to pass and succeed with the registry's valid request, got ${got}: ${res.text.slice(0, 300)}`;
    return undefined;
  }
  if (res.status !== expected) return `${request.label}: expected ${expected}, got ${got}: ${res.text.slice(0, 200)}`;
  if (expected === 403 && !errorCodesOfAnswer(op, res.status, res.json).includes("FORBIDDEN")) return `${request.label}: expected 403 FORBIDDEN, got ${got} ${res.json?.error ?? ""}`.trim();
  if (expected === 401 && !/^Basic /.test(res.headers.get("WWW-Authenticate") ?? "")) return `${request.label}: a 401 must challenge Basic, got ${res.headers.get("WWW-Authenticate")}`;
  return undefined;
}

describe("privilege matrix, generated from x-access, x-object-permission and the privilege catalogue", () => {
  it("knows every operation (access rule, object permission, fixtures)", () => {
    expect([...accessGaps(contract.operations), ...fixtureGaps(contract.operations)]).toEqual([]);
  });

  it("has every caller level: nobody, no privilege, each privilege alone, admin, supervisor, disabled account", () => {
    expect(callers.map((c) => c.kind)).toEqual(expect.arrayContaining(["anonymous", "noPrivilege", "onePrivilege", "accountAdmin", "supervisor", "disabledAccount"]));
    // Both outcomes occur for every caller level that can be refused: the matrix is not vacuous.
    for (const caller of callers.filter((c) => c.kind !== "anonymous" && c.kind !== "disabledAccount")) {
      const outcomes = new Set(contract.operations.map((op) => expectedOutcome(op, caller)));
      expect([...outcomes].sort(), caller.label).toContain("passes");
    }
  });

  it("refused callers get 401 or 403 (FORBIDDEN), with real objects and with dummy input alike, and change nothing", async () => {
    const mismatches: string[] = [];
    const shared = new Map<Operation, PathParams>();
    for (const op of contract.operations) {
      const params = await fixtureParams(op, mismatches);
      if (params) shared.set(op, params);
    }
    let refusals = 0;
    const before = await dbSnapshot();
    for (const op of contract.operations) {
      const params = shared.get(op);
      if (!params) continue;
      const body = FIXTURES[op.template]?.bodies?.[op.method]?.(world, params);
      const dummy = Object.fromEntries(op.pathParams.map((p) => [p, `dummy-${p}`]));
      const dummied = new Set<Expected>();
      for (const caller of callers) {
        const expected = expectedOutcome(op, caller);
        if (expected === "passes") continue;
        refusals++;
        const problem = await attempt(op, plan(op, caller, params, body), expected);
        if (problem) mismatches.push(problem);
        // Refused by the route's own rule (not by a permission on the object, which needs the object):
        // the same refusal with ids that name nothing and an empty body (once per status and operation).
        if (expectedOutcome({ ...op, objectPermission: undefined }, caller) === "passes" || dummied.has(expected)) continue;
        dummied.add(expected);
        const withDummies = plan(op, caller, dummy, op.requestBody ? {} : undefined);
        withDummies.label += " (dummy ids, empty body)";
        const dummyProblem = await attempt(op, withDummies, expected);
        if (dummyProblem) mismatches.push(dummyProblem);
      }
    }
    expect(mismatches).toEqual([]);
    expect(refusals).toBeGreaterThan(contract.operations.length);
    expect(await dbSnapshot()).toEqual(before);
  }, 120_000);

  it("allowed callers reach the handler: neither 401 nor 403, a 2xx for the registry's valid request on a real object", async () => {
    const mismatches: string[] = [];
    let passes = 0;
    for (const op of contract.operations) {
      const entry = FIXTURES[op.template];
      // Reads share one object; every write gets an object of its own (a DELETE consumes it).
      const readParams = await fixtureParams(op, mismatches);
      if (!readParams) continue;
      for (const caller of callers) {
        if (expectedOutcome(op, caller) !== "passes") continue;
        passes++;
        const params = op.method === "GET" ? readParams : await fixtureParams(op, mismatches);
        if (!params) continue;
        const body = entry?.bodies?.[op.method]?.(world, params);
        const problem = await attempt(op, plan(op, caller, params, body), "passes");
        if (problem) mismatches.push(problem);
      }
    }
    expect(mismatches).toEqual([]);
    expect(passes).toBeGreaterThan(contract.operations.length);
  }, 120_000);
});
