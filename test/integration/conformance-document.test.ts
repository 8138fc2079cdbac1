import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { arbitraryFromSchema } from "./harness/arbitrary";
import { loadContract, type Contract } from "./harness/contract";
import { accessGaps, fixtureGaps, referenceGaps } from "./harness/coverage";
import type { JsonSchema } from "./harness/document";
import { FIXTURES, type World } from "./harness/fixtures";
import { mapSchema, PATTERN_WITH_FLAGS } from "./harness/schemas";

/**
 * The conformance harness's own preconditions, read from the served document: every documented
 * operation is known to the fixture registry and the privilege matrix, every schema is one the
 * harness can validate against and generate from. A route mounted without its fixture entry
 * fails here, naming what to add.
 */
let contract: Contract;

beforeAll(async () => {
  contract = await loadContract();
});

/** A world that makes nothing: enough for body builders, which only need names and ids. */
const paperWorld: World = {
  marker: "PaperMark",
  account: { id: "00000000-0000-4000-8000-00000000abcd", name: "Paper" },
  admin: { id: "paper-admin", username: "paper-admin", password: "paper password", accountId: "paper" },
  client: { username: "00000000-0000-4000-8000-0000000c11e7", password: "paper client secret" },
  name: (prefix) => `${prefix}_PaperMark_${Math.random().toString(36).slice(2, 8)}`,
  shared: () => Promise.reject(new Error("a body builder must not make objects")),
};

const paperParams = (params: string[]) => Object.fromEntries(params.map((p) => [p, `${p}_paper`]));

describe("every documented operation is covered by the conformance harness", () => {
  it("has a fixture for its path parameters and a valid body builder for its body", () => {
    expect(fixtureGaps(contract.operations)).toEqual([]);
  });

  it("has an access rule and object permission the privilege matrix knows", () => {
    expect(accessGaps(contract.operations)).toEqual([]);
  });

  it("names other objects in its body only through members the tenancy matrix knows", () => {
    expect(referenceGaps(contract)).toEqual([]);
  });

  it("the registry describes no template the document does not serve (stale entries go)", () => {
    const templates = new Set(Object.keys(contract.doc.paths));
    expect(Object.keys(FIXTURES).filter((t) => !templates.has(t))).toEqual([]);
  });

  it("every registry body is valid against the operation's documented request schema", () => {
    const invalid: string[] = [];
    for (const op of contract.operations) {
      const builder = FIXTURES[op.template]?.bodies?.[op.method];
      if (!op.requestBody || !builder) continue;
      const body = builder(paperWorld, paperParams(op.pathParams));
      const schema = contract.schemas.compile(op.requestBody.schema, "request", `${op.key} request body`);
      for (const error of contract.schemas.errors(schema, body)) invalid.push(`${op.key}: ${error}`);
    }
    expect(invalid).toEqual([]);
  });
});

describe("every schema of the document is one the harness can use", () => {
  it("every pattern is a plain ECMA-262 regular expression (no `/flags` tail from a regex literal)", () => {
    const broken = new Set<string>();
    const visit = (where: string) => (node: { [k: string]: any }) => {
      if (typeof node.pattern === "string") {
        if (PATTERN_WITH_FLAGS.test(node.pattern)) broken.add(`${where}: "${node.pattern}" ends in a regex literal's flags, so as ECMA-262 it matches nothing`);
        try {
          new RegExp(node.pattern, "u");
        } catch (error) {
          broken.add(`${where}: "${node.pattern}" is not a valid regular expression (${(error as Error).message})`);
        }
      }
      return node;
    };
    for (const [name, schema] of Object.entries(contract.doc.components.schemas)) mapSchema(schema, visit(`#/components/schemas/${name}`));
    for (const op of contract.operations) for (const p of op.parameters) mapSchema(p.schema, visit(`${op.key} parameter ${p.name}`));
    expect([...broken].sort()).toEqual([]);
  });

  it("generates values valid against every request body and parameter schema (20 per schema)", () => {
    const failures: string[] = [];
    const check = (where: string, schema: JsonSchema) => {
      const compiled = contract.schemas.compile(schema, "request", where);
      try {
        for (const value of fc.sample(arbitraryFromSchema(schema, { doc: contract.doc }), { numRuns: 20, seed: 7 })) {
          const errors = contract.schemas.errors(compiled, value);
          if (errors.length) failures.push(`${where}: generated ${JSON.stringify(value).slice(0, 200)}: ${errors[0]}`);
        }
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    };
    for (const op of contract.operations) {
      if (op.requestBody) check(`${op.key} request body`, op.requestBody.schema);
      for (const p of op.parameters) check(`${op.key} parameter ${p.name}`, p.schema);
    }
    expect(failures).toEqual([]);
    // The work grows with the number of routes: over 5 s on a loaded machine.
  }, 30_000);

  it("every documented response schema compiles", () => {
    const failures: string[] = [];
    for (const op of contract.operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          try {
            contract.schemas.compile(media.schema ?? {}, "response", `${op.key} ${status} ${type}`);
          } catch (error) {
            failures.push(`${op.key} ${status} ${type}: ${(error as Error).message}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
