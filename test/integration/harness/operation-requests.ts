import type { Credentials } from "../helpers";
import { allowedCaller } from "./access";
import { fixtureGaps } from "./coverage";
import { fillTemplate, type Operation } from "./document";
import { FIXTURES, type PathParams, type World } from "./fixtures";
import type { RequestPlan } from "./request-plan";

/**
 * The registry's valid request of an operation, by the caller the suites use for it, on a real
 * object: what the round-trip test (round-trips.test.ts) and the bench (npm run bench, which
 * bundles this harness for Node) send. Nothing here names a route.
 */

/** Whether the registry can make a valid request of the operation (its fixtures are complete). */
export const hasFixtures = (op: Operation) => fixtureGaps([op]).length === 0;

/** Every suite sends the preview header to preview operations. */
export const headersOf = (op: Operation): Record<string, string> => (op.stability === "preview" ? { "X-Enable-Preview": "true" } : {});

/** A real object for the operation's path (a new one on every call when the registry makes one). */
export async function paramsFor(op: Operation, world: World): Promise<PathParams> {
  return (await FIXTURES[op.template]?.params?.(world)) ?? {};
}

/** The operation's valid request on `params`: a fresh body (fresh names) on every call. */
export function validRequest(op: Operation, world: World, params: PathParams, caller: Credentials = allowedCaller(op, world)): RequestPlan {
  const entry = FIXTURES[op.template];
  const body = entry?.bodies?.[op.method]?.(world, params);
  return {
    label: `${op.key} (registry's valid request)`,
    method: op.method,
    path: fillTemplate(op.template, params),
    query: entry?.query?.[op.method]?.(world, params),
    headers: headersOf(op),
    body: body === undefined ? undefined : { json: body },
    as: caller,
  };
}
