import fc from "fast-check";
import type { Credentials } from "../helpers";
import type { Caller } from "./access";
import type { Contract } from "./contract";
import { fillTemplate, fillTemplateRaw, findOperation, type Operation } from "./document";
import type { PathParams } from "./fixtures";
import { BROKEN_AUTHORIZATION, throwawayAddress, type BodyPlan, type RequestPlan } from "./request-plan";
import { intendedPattern } from "./schemas";

/**
 * INVALID requests for one operation: a valid request (real fixture ids, a valid body, an
 * allowed caller) with exactly one thing broken. Every one must be refused with a 4xx and must
 * change nothing. Body mutations are kept only when the document's own schema refuses the
 * result, so "invalid" means invalid by the contract, not by a guess. (Hygiene rules that hold
 * for every body whatever its schema says: no lone surrogates, no control characters in names,
 * no nesting past the pipeline's depth, no body over the size cap.)
 */
export interface InvalidContext {
  contract: Contract;
  op: Operation;
  params: PathParams;
  /** Valid query members (from the fixture registry) for operations that require some; else empty. */
  query: Record<string, string>;
  /** A valid body (from the fixture registry) when the operation takes one. */
  body?: unknown;
  caller: Credentials;
  /** A username that exists, for the wrong-password state. */
  knownUsername: string;
  /** Signed-in callers this operation refuses (no privilege, disabled account, ...). */
  refusedCallers: Caller[];
  headers: Record<string, string>;
}

const WRONG_TYPES: Record<string, unknown[]> = {
  string: [7, true, null, {}, ["x"]],
  number: ["7", true, null, [], {}],
  boolean: ["true", 0, null, {}],
  array: [{}, "x", 7, null],
  object: [[], "x", 7, null, true],
  null: [7, {}, []],
};

const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

type Pointer = (string | number)[];

/** Every member of a JSON value, with its location. */
function members(value: unknown, at: Pointer = []): { at: Pointer; value: unknown }[] {
  const out: { at: Pointer; value: unknown }[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push({ at: [...at, i], value: v }, ...members(v, [...at, i])));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push({ at: [...at, k], value: v }, ...members(v, [...at, k]));
  }
  return out;
}

function withMember(body: unknown, at: Pointer, value: unknown, remove = false): unknown {
  const copy = structuredClone(body) as any;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key];
  const last = at[at.length - 1]!;
  if (remove) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

const memberLabel = (at: Pointer) => `body${at.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("")}`;

let addresses = 1;

const NAME_MEMBER = /^(name|.*Name)$/;
const UNKNOWN_MEMBER = "zzUnknownMember";
const CONTROL_CHARACTERS = ["\u0000", "nul\u0000inside", "bell\u0007", "line\nbreak", "tab\there", "del\u007f", "c1\u0085"];
const LONE_SURROGATES = ["\ud800", "a\udfffb", "\udc00\ud800"];

/** The invalid requests of one kind (body, media type, path, query, authentication). */
export interface InvalidCategory {
  category: string;
  plans: RequestPlan[];
}

/** Each invalid request of the operation, by category, as fixed lists (fast-check picks and shrinks among them). */
export function invalidRequests(ctx: InvalidContext): InvalidCategory[] {
  const { op } = ctx;
  const categories: InvalidCategory[] = [];
  let plans: RequestPlan[] = [];
  let current = "";
  const category = (name: string) => {
    plans = [];
    current = name;
    categories.push({ category: name, plans });
  };
  const path = fillTemplate(op.template, ctx.params);
  const base = (label: string, changes: Partial<RequestPlan> = {}): RequestPlan => ({
    label: `invalid: ${label}`,
    category: current,
    method: op.method,
    path,
    query: ctx.query,
    headers: { ...ctx.headers },
    body: ctx.body === undefined ? undefined : { json: ctx.body },
    as: ctx.caller,
    ...changes,
  });

  category("body");
  if (op.requestBody && ctx.body !== undefined) plans.push(...bodyMutations(ctx, base));

  // Media types: a body that is not JSON, or no Content-Type at all; an Accept that excludes JSON.
  category("media type");
  if (op.requestBody || op.method !== "GET") {
    const body: BodyPlan = { json: ctx.body ?? {} };
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"]) {
      plans.push(base(`Content-Type ${type}`, { body, headers: { ...ctx.headers, "Content-Type": type } }));
    }
    if (op.requestBody) plans.push(base("no Content-Type", { body, headers: { ...ctx.headers, "Content-Type": "" } }));
  }
  if (op.responses["406"]) {
    for (const accept of ["text/html", "application/xml", "image/png", "application/json;q=0", "text/*"]) {
      plans.push(base(`Accept ${accept}`, { headers: { ...ctx.headers, Accept: accept } }));
    }
  }

  category("path");
  // Path parameters that name nothing real and never could: traversal, NUL, encoded slash, 10,000 characters.
  for (const name of op.pathParams) {
    for (const odd of ["..", "%2E%2E", "..%2F..%2Fapi%2Faccounts", "a%2F..%2Fb", "%00", "a%00b", "%2F", "%E0%A4%A", "x".repeat(10_000)]) {
      const params = Object.fromEntries(Object.entries(ctx.params).map(([k, v]) => [k, k === name ? odd : encodeURIComponent(v)]));
      const path = fillTemplateRaw(op.template, params);
      // A dot segment is resolved by the URL parser before the Worker sees the request: when what it
      // resolves to is another documented operation (/api/accounts/../users is GET /api/users), that
      // operation is what was asked for, and its answer is not this one's to judge.
      if (findOperation(ctx.contract.operations, op.method, new URL(path, "http://harness.invalid").pathname) !== undefined) continue;
      plans.push(base(`path {${name}} = ${odd.length > 40 ? `${odd.slice(0, 10)}… (${odd.length} chars)` : odd}`, { path }));
    }
  }

  // Query members outside their documented range, or missing when required (the others keep their valid values).
  category("query");
  for (const param of op.parameters.filter((p) => p.in === "query")) {
    const schema = param.schema as Record<string, any>;
    const values: string[] = [];
    if (schema.type === "integer" || schema.type === "number") {
      values.push("abc", "1.5e400", "");
      if (schema.minimum !== undefined) values.push(String(schema.minimum - 1));
      if (schema.maximum !== undefined) values.push(String(schema.maximum + 1));
      if (schema.type === "integer") values.push("1.5");
    }
    if (schema.type === "string" && schema.maxLength !== undefined) values.push("q".repeat(schema.maxLength + 1));
    if (Array.isArray(schema.enum)) values.push("NOT_ONE_OF_THEM", "");
    const mismatch = "not matching text";
    if (typeof schema.pattern === "string" && !new RegExp(intendedPattern(schema.pattern), "u").test(mismatch)) values.push(mismatch);
    if (param.name === "pageToken") values.push("not-a-token-this-service-issued", "%%%");
    for (const value of values) plans.push(base(`query ${param.name}=${value.length > 40 ? `${value.slice(0, 10)}…` : value}`, { query: { ...ctx.query, [param.name]: value } }));
    if (param.required) {
      const { [param.name]: _left, ...rest } = ctx.query;
      plans.push(base(`query without the required ${param.name}`, { query: rest }));
    }
  }

  // Every broken authentication state, and signed-in callers the operation refuses.
  category("authentication");
  if (op.access !== "public") {
    plans.push(base("no credentials", { as: null }));
    for (const [label, header] of Object.entries(BROKEN_AUTHORIZATION)) {
      plans.push(base(label, { as: null, headers: { ...ctx.headers, Authorization: header(ctx.knownUsername), "CF-Connecting-IP": throwawayAddress(addresses++) } }));
    }
    for (const caller of ctx.refusedCallers) plans.push(base(`caller ${caller.label}`, { as: caller.credentials }));
  }
  return categories.filter((c) => c.plans.length > 0);
}

function bodyMutations(ctx: InvalidContext, base: (label: string, changes?: Partial<RequestPlan>) => RequestPlan): RequestPlan[] {
  const { contract, op } = ctx;
  const schema = contract.schemas.compile(op.requestBody!.schema, "request", `${op.key} request body`);
  const refused = (body: unknown) => !contract.schemas.isValid(schema, body);
  const plans: RequestPlan[] = [];
  const body = ctx.body;

  for (const notAnObject of [[], "a string", 42, null, true, [body]]) {
    if (refused(notAnObject)) plans.push(base(`body is ${JSON.stringify(notAnObject).slice(0, 30)}`, { body: { json: notAnObject } }));
  }
  // A member no schema of the operation knows, at the top level and in every object of the body
  // that the document closes: a 400 naming it (`body.zzUnknownMember`, `body.account.zzUnknownMember`).
  for (const at of [[], ...members(body).filter((m) => m.value !== null && typeof m.value === "object" && !Array.isArray(m.value)).map((m) => m.at)]) {
    const unknown = withMember(body, [...at, UNKNOWN_MEMBER], "surprise");
    const name = memberLabel([...at, UNKNOWN_MEMBER]);
    if (refused(unknown)) plans.push(base(`unknown member ${name}`, { body: { json: unknown }, namesProblems: [name] }));
  }
  for (const member of members(body)) {
    const label = memberLabel(member.at);
    const missing = withMember(body, member.at, undefined, true);
    if (refused(missing)) plans.push(base(`missing required ${label}`, { body: { json: missing } }));
    for (const wrong of WRONG_TYPES[typeOf(member.value)] ?? []) {
      const mutated = withMember(body, member.at, wrong);
      // The same mistake with an unknown member beside it: extra members never make a body acceptable.
      if (refused(mutated)) {
        plans.push(base(`wrong type at ${label}: ${JSON.stringify(wrong)}`, { body: { json: mutated } }));
        if (mutated && typeof mutated === "object" && !Array.isArray(mutated)) {
          plans.push(base(`wrong type at ${label} plus an extra member`, { body: { json: { ...mutated, zzUndocumented: { extra: true } } } }));
        }
      }
    }
    if (typeof member.value === "string") {
      if (refused(withMember(body, member.at, "x".repeat(1_000_000)))) {
        plans.push(base(`1 MB string at ${label}`, { body: { base: body, at: member.at, bulk: { kind: "string", length: 1_000_000 } } }));
      }
      // Past the operation's documented cap (`x-max-body-bytes`), else MAX_BODY_BYTES (1 MiB).
      const cap: number = op.raw["x-max-body-bytes"] ?? 1_048_576;
      plans.push(base(`body over the size cap (string at ${label})`, { body: { base: body, at: member.at, bulk: { kind: "string", length: cap + 50_000 } } }));
      for (const text of LONE_SURROGATES) plans.push(base(`lone surrogate at ${label}: ${JSON.stringify(text)}`, { body: { json: withMember(body, member.at, text) } }));
      const name = member.at[member.at.length - 1];
      if (typeof name === "string" && NAME_MEMBER.test(name)) {
        for (const text of CONTROL_CHARACTERS) plans.push(base(`control character in ${label}: ${JSON.stringify(text)}`, { body: { json: withMember(body, member.at, text) } }));
      }
    }
    plans.push(base(`10,000 levels of nesting at ${label}`, { body: { base: body, at: member.at, bulk: { kind: "nesting", depth: 10_000 } } }));
  }
  plans.push(base("body is 10,000 levels of nesting", { body: { base: body, at: [], bulk: { kind: "nesting", depth: 10_000 } } }));

  const valid = JSON.stringify(body);
  const malformed = [valid.slice(0, Math.max(1, valid.length - 1)), `${valid},`, valid.replace(/"/g, "'"), `{"a":1,}`, "NaN", "{", "", " ", "\u0000", `${valid}${valid}`, "[1, 2", "{\"a\": 01}"];
  for (const text of malformed) plans.push(base(`malformed JSON ${JSON.stringify(text.slice(0, 30))}`, { body: { text } }));
  plans.push(base("invalid UTF-8 bytes", { body: { bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d] } }));
  plans.push(base("overlong UTF-8 encoding", { body: { bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d] } }));
  return plans;
}

/** fast-check picks a category, then one of its requests (so every kind is tried even in a short run). */
export const invalidRequestArbitrary = (categories: InvalidCategory[]): fc.Arbitrary<RequestPlan> =>
  fc.oneof(...categories.map((c) => fc.constantFrom(...c.plans)));
