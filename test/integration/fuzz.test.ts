import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { QUOTA_TYPES } from "../../src/domain/quota";
import { ERROR_CODES } from "../../src/lib/errors";
import { basic, call, createAccount, createGroup, createUser, DEFAULT_ACCOUNT_ID, PASSWORD, SUPERVISOR, VENDOR_JSON, type TestUser } from "./helpers";

/**
 * No input produces a 500: 200 requests built by a seeded generator (fast-check, so a failure
 * shrinks to a minimal request) with odd methods, paths, queries, headers, credentials and
 * bodies. Every error answer has the documented shape, and where the request reached a
 * documented operation, its status and errorCode are among those the document lists for it.
 */
const SEED = 20261121;
const RUNS = 200;

interface DocOperation {
  method: string;
  template: string;
  regex: RegExp;
  responses: Record<string, { "x-error-codes"?: string[] }>;
}

let operations: DocOperation[];
let fixture: { accountId: string; userId: string; groupId: string; admin: TestUser };

beforeAll(async () => {
  const doc = (await call("GET", "/api/openapi.json", { as: null })).json;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
      responses: op.responses,
    })),
  );
  const account = await createAccount();
  const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  const group = await createGroup(account.id, "Fuzzers", ["ROLE_ADMINISTER_USERS"]);
  fixture = { accountId: account.id, userId: admin.id, groupId: group.id, admin };
});

const oddString = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.string({ unit: "binary", maxLength: 16 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "a:b",
    "line\nbreak",
    "ROLE_ADMIN",
    "ROLE_NOPE",
    "SOURCE",
    "FOO",
    "Users",
    "Administrators",
    "Default",
    "x".repeat(300),
    "🙂",
    "'; DROP TABLE users; --",
    "%00",
    "../..",
    DEFAULT_ACCOUNT_ID,
  ),
);

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(2 ** 53, -1, 1e308, 0.5),
  fc.array(oddString, { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

const MEMBERS = [
  "name",
  "password",
  "accountId",
  "groups",
  "roles",
  "privileges",
  "quotas",
  "attributes",
  "disabled",
  "email",
  "fullName",
  "description",
  "id",
  "replyToAddress",
  "senderDisplayName",
];

const quotaLine = fc.record({ type: fc.oneof(fc.constantFrom(...QUOTA_TYPES), oddString), limit: oddValue }, { requiredKeys: [] });

const body: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({
    base: fc.constantFrom<Record<string, unknown>>(
      { name: "fuzz-account" },
      { name: "fuzz-user", password: PASSWORD, groups: ["Users"] },
      { name: "fuzz-group", privileges: ["ROLE_EDIT_FORMULAS"] },
      { quotas: [{ type: "SOURCE", limit: 1 }] },
    ),
    changes: fc.dictionary(fc.constantFrom(...MEMBERS), oddValue, { maxKeys: 3 }),
    accountId: fc.constantFrom<string | undefined>(undefined, "fixture", DEFAULT_ACCOUNT_ID),
  }).map(({ base, changes, accountId }) => ({ ...base, ...(accountId ? { accountId } : {}), ...changes })) },
  { weight: 1, arbitrary: fc.record({ accountId: fc.constantFrom("fixture", "nope"), quotas: fc.array(quotaLine, { maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((raw) => ({ raw })) },
);

const segment = fc.oneof(
  fc.constantFrom("fixture-account", "fixture-user", "fixture-group", DEFAULT_ACCOUNT_ID, "Default"),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 10 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))),
  fc.constantFrom("%00", "%E0%A4%A", "%", "%2F", "..", ".", "x".repeat(300), "%F0%9F%99%82"),
);

const query = fc.option(
  fc.array(
    fc.tuple(fc.constantFrom("maxResults", "pageToken", "accountId", "x"), fc.oneof(fc.integer().map(String), fc.string({ maxLength: 12 }))),
    { maxLength: 3 },
  ).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`),
  { nil: "" },
);

const ascii = (maxLength: number) => fc.string({ unit: "grapheme-ascii", maxLength });

const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
  path: fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.nat(), fc.array(segment, { minLength: 3, maxLength: 3 }), fc.boolean())
        .map(([i, segs, ownMethod]) => ({ kind: "template" as const, i, segs, ownMethod })),
    },
    { weight: 1, arbitrary: fc.array(segment, { maxLength: 4 }).map((segs) => ({ kind: "random" as const, segs })) },
  ),
  query,
  body: fc.option(body, { nil: undefined }),
  contentType: fc.constantFrom(VENDOR_JSON, VENDOR_JSON, "application/json", "application/json; charset=utf-8", "text/plain", "application/xml", "", "application/json; charset=nope"),
  accept: fc.option(fc.constantFrom("*/*", VENDOR_JSON, "text/html", "application/json;q=0", "application/*", "garbage"), { nil: undefined }),
  auth: fc.oneof(
    { weight: 6, arbitrary: fc.constant({ kind: "supervisor" as const }) },
    { weight: 3, arbitrary: fc.constant({ kind: "admin" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
    { weight: 1, arbitrary: ascii(30).map((value) => ({ kind: "raw" as const, value })) },
    { weight: 1, arbitrary: ascii(40).map((token) => ({ kind: "raw" as const, value: `Bearer ${token}` })) },
    { weight: 1, arbitrary: fc.tuple(ascii(12), ascii(12)).map(([u, p]) => ({ kind: "raw" as const, value: basic(`fuzz-${u}`, p) })) },
  ),
  ifMatch: fc.option(fc.oneof(ascii(20), fc.constant("*")), { nil: undefined }),
  preview: fc.option(fc.constantFrom("true", "TRUE", "no", ""), { nil: undefined }),
  requestId: fc.option(ascii(40), { nil: undefined }),
});

type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function substitute(text: string): string {
  return text
    .replace(/fixture-account/g, fixture.accountId)
    .replace(/fixture-user/g, fixture.userId)
    .replace(/fixture-group/g, fixture.groupId);
}

function build(req: FuzzRequest) {
  let path: string;
  let method: string = req.method;
  if (req.path.kind === "template") {
    const op = operations[req.path.i % operations.length]!;
    if (req.path.ownMethod) method = op.method;
    let n = 0;
    path = op.template.replace(/\{[^}]+\}/g, () => substitute(req.path.segs[n++ % req.path.segs.length]!));
  } else {
    path = `/api/${req.path.segs.map(substitute).join("/")}`;
  }
  path += req.query;
  const headers: Record<string, string> = {};
  if (req.accept !== undefined) headers.Accept = req.accept;
  if (req.ifMatch !== undefined) headers["If-Match"] = req.ifMatch;
  if (req.preview !== undefined) headers["X-Enable-Preview"] = req.preview;
  if (req.requestId !== undefined) headers["X-Request-Id"] = req.requestId;
  const auth = req.auth;
  const as =
    auth.kind === "supervisor" ? SUPERVISOR : auth.kind === "admin" ? { username: fixture.admin.username, password: fixture.admin.password } : null;
  if (auth.kind === "raw") headers.Authorization = auth.value;
  let rawBody: string | undefined;
  if (req.body !== undefined && method !== "GET" && method !== "HEAD") {
    rawBody = typeof req.body === "object" && req.body !== null && "raw" in req.body ? String(req.body.raw) : JSON.stringify(req.body);
    rawBody = rawBody.replace(/"fixture"/g, JSON.stringify(fixture.accountId));
    if (req.contentType) headers["Content-Type"] = req.contentType;
  }
  return { method, path, options: { as, headers, rawBody: rawBody === undefined ? undefined : new TextEncoder().encode(rawBody) } };
}

describe("fuzz", () => {
  it(`${RUNS} generated requests: never a 500, always a well-formed, documented error`, async () => {
    const errorCodes = Object.keys(ERROR_CODES);
    let documentedChecks = 0;
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const { method, path, options } = build(req);
        const res = await call(method, path, options);
        const where = `${method} ${path} -> ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        expect(res.headers.get("X-Request-Id"), where).toBeTruthy();
        if (res.status < 400 || method === "HEAD") return;

        expect(res.headers.get("Content-Type"), where).toBe(VENDOR_JSON);
        if (res.status === 401) {
          expect(res.json, where).toMatchObject({ status: 401, error: "Unauthorized", message: expect.any(String), path: expect.any(String) });
          expect(res.headers.get("WWW-Authenticate"), where).toMatch(/^(Basic|Bearer) /);
        } else {
          expect(res.json, where).toMatchObject({ status: String(res.status), message: expect.any(String), problems: expect.any(Array) });
          expect(errorCodes, where).toContain(res.json.errorCode);
        }

        const pathname = new URL(`http://x${path}`).pathname;
        const op = operations.find((o) => o.method === method && o.regex.test(pathname));
        if (!op) return;
        documentedChecks++;
        const documented = op.responses[String(res.status)];
        expect(documented, `${where}\nnot documented for ${op.method} ${op.template}`).toBeDefined();
        const code = res.status === 401 ? "UNAUTHENTICATED" : res.json.errorCode;
        expect(documented!["x-error-codes"], `${where}\nnot documented for ${op.method} ${op.template}`).toContain(code);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(documentedChecks).toBeGreaterThan(RUNS / 4);
  });
});
