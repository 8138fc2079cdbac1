import { beforeAll, describe, expect, it } from "vitest";
import { as, databases, dbSnapshot, shardNameOf, type CallResult } from "./helpers";
import { expectedOutcome, type Caller } from "./harness/access";
import { loadContract, type Contract } from "./harness/contract";
import { isMounted, lastMemberName, referenceMemberPaths } from "./harness/coverage";
import { fillTemplate, type Operation } from "./harness/document";
import { createWorld, FIXTURES, REFERENCE_MEMBERS, type PathParams, type World } from "./harness/fixtures";
import { send, type RequestPlan } from "./harness/request-plan";

/**
 * The tenancy matrix, generated from the document and the fixture registry: an administrator
 * of account A, aiming at account B's real objects,
 *  - through the path of every id-bearing operation A may call: the same 404 NOT_FOUND (same
 *    message, same problems) as an unknown id, never a 2xx;
 *  - through every body member that names another object (accountId, principalId, ...):
 *    400, 403 ACCOUNT_FORBIDDEN or 404, never a 2xx;
 * B's data (all of B's names and descriptions carry B's marker) never appears in an answer,
 * and neither A's nor B's data changes.
 */
let contract: Contract;
let a: World;
let b: World;
let adminOfA: Caller;

beforeAll(async () => {
  contract = await loadContract();
  a = await createWorld("TenantA");
  // Over several databases B lives on the other shard: A's requests must not reach it across shards either.
  b = await createWorld("TenantB", { apartFrom: a });
  adminOfA = { label: "admin of A", kind: "accountAdmin", credentials: as(a.admin), privileges: ["ROLE_ADMIN"] };
}, 60_000);

const headersOf = (op: Operation): Record<string, string> => (op.stability === "preview" ? { "X-Enable-Preview": "true" } : {});

/** An id no account has, valid against every parameter schema (letters, digits, `_`). */
const unknownValue = () => `unknown_${crypto.randomUUID().replace(/-/g, "")}`;

/**
 * The answer's text without what the request itself sent (the `path` member, the path
 * parameters echoed in a message): B's names in the request are not a leak, anything else is.
 */
function answerWithoutEcho(res: CallResult, params: PathParams, pathname: string): string {
  let text = res.text;
  if (res.json && typeof res.json === "object" && res.json.path === pathname) text = JSON.stringify({ ...res.json, path: undefined });
  for (const value of Object.values(params)) text = text.split(value).join("{param}");
  return text;
}

/** What a 404 says, with the ids the request named replaced by a placeholder. */
function messageAndProblems(res: CallResult, params: PathParams): string {
  let text = JSON.stringify({ message: res.json?.message, problems: res.json?.problems });
  for (const value of Object.values(params)) text = text.split(value).join("{param}");
  return text;
}

function plan(op: Operation, params: PathParams, body: unknown): RequestPlan {
  return {
    label: `admin of A: ${op.key}`,
    method: op.method,
    path: fillTemplate(op.template, params),
    query: FIXTURES[op.template]?.query?.[op.method]?.(a, params),
    headers: headersOf(op),
    body: body === undefined ? undefined : { json: body },
    as: adminOfA.credentials,
  };
}

async function attempt(request: RequestPlan): Promise<CallResult | string> {
  try {
    return await send(request);
  } catch (error) {
    return `${request.label}: ${(error as Error).message}`;
  }
}

/** Puts `value` at a member path (`content[].principalId`) of a body, if the body has the member's parent. */
function placeAt(body: unknown, path: string, value: string): unknown | undefined {
  const copy = structuredClone(body) as any;
  let node = copy;
  const segments = path.split(".");
  for (const [i, segment] of segments.entries()) {
    const array = segment.endsWith("[]");
    const key = array ? segment.slice(0, -2) : segment;
    if (node === null || typeof node !== "object") return undefined;
    if (i === segments.length - 1 && !array) {
      node[key] = value;
      return copy;
    }
    node = node[key];
    if (array) {
      if (!Array.isArray(node) || node.length === 0) return undefined;
      node = node[0];
    }
  }
  return undefined;
}

/** An upsert by a client-chosen id (FixtureEntry.upsertsById): B's id names nothing of A's yet. */
const upserts = (op: Operation) => FIXTURES[op.template]?.upsertsById?.includes(op.method) === true;

/** The rows of every table that belong to an account. */
async function rowsOf(accountId: string) {
  const snapshot = await dbSnapshot();
  return Object.fromEntries(Object.entries(snapshot).map(([table, rows]) => [table, rows.filter((row) => (row as { account_id?: string }).account_id === accountId)]));
}

describe("tenancy matrix: an admin of account A against account B's objects", () => {
  it("puts B on another database than A where the project has several", async () => {
    if (databases().length > 1) expect(await shardNameOf(b.account.id)).not.toBe(await shardNameOf(a.account.id));
  });

  it("every id-bearing operation answers B's object exactly like an unknown id: 404 NOT_FOUND, nothing of B, nothing changed", async () => {
    const problems: string[] = [];
    const operations = contract.operations.filter((op) => op.pathParams.length > 0 && expectedOutcome(op, adminOfA) === "passes" && !upserts(op));
    expect(operations.length).toBeGreaterThan(10);
    const targets = new Map<Operation, PathParams>();
    for (const op of operations) {
      try {
        targets.set(op, await FIXTURES[op.template]!.params!(b));
      } catch (error) {
        problems.push(`${op.key}: B's fixture could not be made: ${(error as Error).message}`);
      }
    }
    const before = await dbSnapshot();
    for (const [op, theirs] of targets) {
      const unknown = Object.fromEntries(op.pathParams.map((p) => [p, unknownValue()]));
      const builder = FIXTURES[op.template]?.bodies?.[op.method];
      const other = await attempt(plan(op, theirs, builder?.(a, theirs)));
      const missing = await attempt(plan(op, unknown, builder?.(a, unknown)));
      if (typeof other === "string" || typeof missing === "string") {
        problems.push(...[other, missing].filter((r): r is string => typeof r === "string"));
        continue;
      }
      const where = `${op.key} with B's ${JSON.stringify(theirs)}`;
      if (other.status !== 404 || other.json?.errorCode !== "NOT_FOUND") problems.push(`${where}: expected 404 NOT_FOUND, got ${other.status} ${other.text.slice(0, 200)}`);
      if (missing.status !== 404 || missing.json?.errorCode !== "NOT_FOUND") problems.push(`${op.key} with unknown ids: expected 404 NOT_FOUND, got ${missing.status} ${missing.text.slice(0, 200)}`);
      if (messageAndProblems(other, theirs) !== messageAndProblems(missing, unknown)) {
        problems.push(`${where}: B's object and an unknown id answer differently: ${messageAndProblems(other, theirs)} vs ${messageAndProblems(missing, unknown)}`);
      }
      const pathname = new URL(`http://x${fillTemplate(op.template, theirs)}`).pathname;
      if (answerWithoutEcho(other, theirs, pathname).includes(b.marker)) problems.push(`${where}: the answer shows B's data: ${other.text.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    expect(await dbSnapshot()).toEqual(before);
  }, 120_000);

  it("every body member naming another object refuses B's object: 400, 403 ACCOUNT_FORBIDDEN or 404, nothing of B, nothing changed", async () => {
    const problems: string[] = [];
    const cases: { op: Operation; member: string; params: PathParams; body: unknown }[] = [];
    const pending = new Set<string>();
    for (const op of contract.operations) {
      if (!op.requestBody || expectedOutcome(op, adminOfA) !== "passes") continue;
      const entry = FIXTURES[op.template];
      for (const member of referenceMemberPaths(contract.doc, op.requestBody.schema)) {
        const target = REFERENCE_MEMBERS[lastMemberName(member)];
        if (!target || target.notAReference) continue;
        if (!target.value || !target.collection || !isMounted(contract, target.collection)) {
          pending.add(`${member} (${target.collection ?? "?"} not served yet)`);
          continue;
        }
        try {
          const theirs = await target.value(b);
          const params = (await entry?.params?.(a)) ?? {};
          const valid = entry?.bodies?.[op.method]?.(a, params);
          const body = entry?.references?.[member]?.(a, params, theirs) ?? placeAt(valid, member, theirs);
          if (body === undefined) {
            problems.push(`${op.key}: the registry body has no ${member}: add FIXTURES["${op.template}"].references["${member}"] in harness/fixtures.ts`);
            continue;
          }
          cases.push({ op, member, params, body });
        } catch (error) {
          problems.push(`${op.key} ${member}: fixture could not be made: ${(error as Error).message}`);
        }
      }
    }
    if (pending.size) console.log(`[conformance-tenancy] reference members not checked until their resource is served: ${[...pending].join(", ")}`);
    expect(cases.length).toBeGreaterThan(3);

    const before = await dbSnapshot();
    for (const { op, member, params, body } of cases) {
      const res = await attempt(plan(op, params, body));
      if (typeof res === "string") {
        problems.push(res);
        continue;
      }
      const where = `${op.key} naming B's object in ${member}`;
      const refused = res.status === 400 || res.status === 404 || (res.status === 403 && res.json?.errorCode === "ACCOUNT_FORBIDDEN");
      if (!refused) problems.push(`${where}: expected 400, 403 ACCOUNT_FORBIDDEN or 404, got ${res.status} ${res.text.slice(0, 300)}`);
      const pathname = new URL(`http://x${fillTemplate(op.template, params)}`).pathname;
      if (answerWithoutEcho(res, params, pathname).includes(b.marker)) problems.push(`${where}: the answer shows B's data: ${res.text.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    expect(await dbSnapshot()).toEqual(before);
  }, 120_000);

  it("an upsert by id naming B's id makes A's own new object: 201, nothing of B in it, B's rows untouched", async () => {
    const problems: string[] = [];
    const operations = contract.operations.filter((op) => upserts(op) && expectedOutcome(op, adminOfA) === "passes");
    for (const op of operations) {
      const theirs = await FIXTURES[op.template]!.params!(b);
      const before = await rowsOf(b.account.id);
      const res = await attempt(plan(op, theirs, FIXTURES[op.template]?.bodies?.[op.method]?.(a, theirs)));
      if (typeof res === "string") {
        problems.push(res);
        continue;
      }
      const where = `${op.key} with B's ${JSON.stringify(theirs)}`;
      if (res.status !== 201) problems.push(`${where}: expected 201 (A's own new object), got ${res.status} ${res.text.slice(0, 200)}`);
      if (res.json?.accountId !== undefined && res.json.accountId !== a.account.id) problems.push(`${where}: the object is not A's: ${res.text.slice(0, 200)}`);
      const pathname = new URL(`http://x${fillTemplate(op.template, theirs)}`).pathname;
      if (answerWithoutEcho(res, theirs, pathname).includes(b.marker)) problems.push(`${where}: the answer shows B's data: ${res.text.slice(0, 300)}`);
      expect(await rowsOf(b.account.id), `${where}: B's rows changed`).toEqual(before);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
