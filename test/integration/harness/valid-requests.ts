import fc from "fast-check";
import { VENDOR_JSON, type Credentials } from "../helpers";
import { arbitraryFromSchema } from "./arbitrary";
import type { Contract } from "./contract";
import { deref, fillTemplate, type JsonSchema, type Operation } from "./document";
import { FIXTURES, type PathParams, type World } from "./fixtures";
import type { RequestPlan } from "./request-plan";

/**
 * VALID requests for one operation, generated from its schemas: path parameters are a real
 * fixture's most of the time (else generated from their schema), query members and the body
 * are generated from theirs, with members that name other objects (accountId, ...) given a
 * real id of the world most of the time, and sometimes the registry's valid body instead. The
 * caller is one the operation allows. Valid does not mean accepted: the handler may still say
 * 404 or 409; it must never say 5xx or break the contract.
 */
export interface ValidContext {
  contract: Contract;
  op: Operation;
  world: World;
  params: PathParams;
  /** Valid query members from the fixture registry, for operations that require some. */
  query?: Record<string, string>;
  caller: Credentials;
  headers: Record<string, string>;
  /** Real ids of the world for reference members, by member name (`accountId`, `principalId`). */
  referenceValues: Record<string, string>;
}

/** The X-Request-Id values the service takes as they are (src/middleware/request-id). */
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// The reference product's clients send its vendor types (README, media types): each answer must come back in the type asked for.
const ACCEPTS = [
  "*/*",
  VENDOR_JSON,
  "application/json",
  "application/*",
  `text/html, ${VENDOR_JSON};q=0.5`,
  "application/vnd.composer.v3+json",
  "application/vnd.zoomdata.v2+json,application/vnd.zoomdata+json",
];
const CONTENT_TYPES = [VENDOR_JSON, "application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.composer.v3+json", "application/vnd.zoomdata+json; charset=utf-8"];

/** A value one time in six, else undefined. */
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Whether a member's schema takes an array (alone, or beside null). */
function holdsArray(contract: Contract, schema: JsonSchema): boolean {
  const resolved = deref(contract.doc, schema);
  if (typeof resolved !== "object") return false;
  const types = [resolved.type, ...(resolved.anyOf ?? []).map((b: JsonSchema) => (typeof b === "object" ? deref(contract.doc, b) : b)).map((b: any) => b?.type)].flat();
  return types.includes("array");
}

export function validRequestArbitrary(ctx: ValidContext): fc.Arbitrary<RequestPlan> {
  const { contract, op } = ctx;
  const options = {
    doc: contract.doc,
    member: (name: string, schema: JsonSchema) => {
      const real = ctx.referenceValues[name];
      if (real === undefined) return undefined;
      // A member that lists ids (`account_ids`) gets the real id as its one item.
      const value = holdsArray(contract, schema) ? [real] : real;
      return fc.oneof({ weight: 4, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: arbitraryFromSchema(schema, { doc: contract.doc }) });
    },
  };

  // Each parameter on its own: a real source with a generated metric name reaches the "create" branch of a PUT.
  const pathParams = fc.record(
    Object.fromEntries(
      op.parameters
        .filter((p) => p.in === "path")
        .map((p) => [p.name, fc.oneof({ weight: 4, arbitrary: fc.constant(ctx.params[p.name]!) }, { weight: 1, arbitrary: arbitraryFromSchema(p.schema, options).map(String) })]),
    ),
  ) as fc.Arbitrary<PathParams>;

  const queryParams = op.parameters.filter((p) => p.in === "query");
  const generatedQuery = fc.record(
    Object.fromEntries(queryParams.map((p) => [p.name, arbitraryFromSchema(p.schema, options).map(String)])),
    { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) },
  ) as fc.Arbitrary<Record<string, string>>;
  // Generated members are valid one by one but rarely together (a date range may be reversed): the registry's query mostly.
  const query = ctx.query ? fc.oneof({ weight: 3, arbitrary: fc.constant(ctx.query) }, { weight: 1, arbitrary: generatedQuery }) : generatedQuery;

  const builder = FIXTURES[op.template]?.bodies?.[op.method];
  // The registry's body is built last, for the path parameters drawn (a PUT's body names its path's object).
  const body: fc.Arbitrary<{ source: "schema body"; json: unknown } | { source: "registry body" } | undefined> = !op.requestBody
    ? fc.constant(undefined)
    : fc.oneof(
        { weight: 3, arbitrary: arbitraryFromSchema(op.requestBody.schema, options).map((json) => ({ source: "schema body" as const, json })) },
        ...(builder ? [{ weight: 2, arbitrary: fc.constant({ source: "registry body" as const }) }] : []),
      );

  return fc
    .record({
      params: pathParams,
      query,
      body,
      accept: fc.option(fc.constantFrom(...ACCEPTS), { nil: undefined }),
      // A PATCH body may also come as a JSON Merge Patch (RFC 7396).
      contentType: fc.constantFrom(...CONTENT_TYPES, ...(op.method === "PATCH" ? ["application/merge-patch+json"] : [])),
      // A sane id is echoed; anything else is replaced by one the service makes.
      requestId: fc.option(fc.oneof(fc.stringMatching(SANE_REQUEST_ID), fc.string({ unit: "grapheme-ascii", maxLength: 200 })), { nil: undefined }),
      // Mostly none: a stale If-Match is a 412 where the operation documents one, and ignored elsewhere.
      ifMatch: rarely(fc.constantFrom("*", '"stale"', 'W/"weak"', "garbage")),
      // A conditional GET: `*` matches any current representation (304 with its ETag).
      ifNoneMatch: op.method === "GET" ? rarely(fc.constantFrom("*", '"other"', 'W/"other"')) : fc.constant(undefined),
    })
    .map(({ params, query, body, accept, contentType, requestId, ifMatch, ifNoneMatch }) => {
      const headers: Record<string, string> = { ...ctx.headers };
      if (accept !== undefined) headers.Accept = accept;
      if (requestId !== undefined) headers["X-Request-Id"] = requestId;
      if (ifMatch !== undefined) headers["If-Match"] = ifMatch;
      if (ifNoneMatch !== undefined) headers["If-None-Match"] = ifNoneMatch;
      if (body !== undefined) headers["Content-Type"] = contentType;
      const generated = op.pathParams.filter((p) => params[p] !== ctx.params[p]);
      return {
        label: `valid: ${generated.length ? `generated ${generated.join(", ")}` : "fixture ids"}${body ? `, ${body.source}` : ""}`,
        method: op.method,
        path: fillTemplate(op.template, params),
        query,
        headers,
        body: body === undefined ? undefined : { json: "json" in body ? body.json : builder!(ctx.world, params) },
        as: ctx.caller,
      } satisfies RequestPlan;
    });
}
