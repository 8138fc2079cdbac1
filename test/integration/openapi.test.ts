import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { buildDocument } from "../../src/routes/meta/openapi-document";
import { PRIVILEGES } from "../../src/domain/privileges";
import { ERROR_CODES } from "../../src/lib/errors";
import { JSON_MEDIA_TYPES, MERGE_PATCH_JSON } from "../../src/lib/media-types";

/** The media types a request body is documented in: the JSON types, and for a PATCH also JSON Merge Patch. */
const bodyTypesOf = (method: string) => [...JSON_MEDIA_TYPES, ...(method.toLowerCase() === "patch" ? [MERGE_PATCH_JSON] : [])].sort();
import { call, VENDOR_JSON } from "./helpers";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const ACCESS_KINDS = ["public", "authenticated", "accountMember", "supervisor", "accountAdmin", "trustedClient", ...PRIVILEGES];

interface Operation {
  method: string;
  path: string;
  op: any;
}

let doc: any;
let operations: Operation[];

beforeAll(async () => {
  const res = await call("GET", "/api/openapi.json", { as: null });
  expect(res.status).toBe(200);
  doc = res.json;
  operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op })),
  );
});

/** Resolves a local JSON pointer such as `#/components/schemas/Account`. */
function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: any = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, found));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1.x, served as the JSON it declares", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(typeof doc.paths).toBe("object");
    expect(operations.length).toBeGreaterThan(10);
    const res = await call("GET", "/api/openapi.json", { as: null });
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(Object.keys(doc.paths["/api/openapi.json"].get.responses["200"].content).sort()).toEqual([...JSON_MEDIA_TYPES].sort());
  });

  it("is the document the Zod schemas give, built at build time and served from the static assets, at every context path", async () => {
    // A stale assets/openapi/openapi.json (a schema changed since the last build) fails here.
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildDocument(await createApp("")))));
    const behind = await call("GET", "/composer/api/openapi.json", { as: null, contextPath: "/composer" });
    expect(behind.status).toBe(200);
    expect(behind.json).toEqual(JSON.parse(JSON.stringify(buildDocument(await createApp("/composer")))));
    // The asset's own path belongs to the Worker (wrangler.toml run_worker_first), which knows no such route.
    expect((await call("GET", "/openapi/openapi.json", { as: null })).status).toBe(404);
  });

  it("lists exactly the (method, path) pairs the app serves", async () => {
    const served = new Set(
      (await createApp())
        .routes.filter((r) => r.method !== "ALL")
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")}`),
    );
    const documented = new Set(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`));
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it("every $ref resolves", () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#\/components\//);
      expect(resolve(doc, ref), ref).toBeDefined();
    }
  });

  it("every path parameter is declared, and every declared one is in the path", () => {
    for (const { method, path, op } of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .map((p: any) => (p.$ref ? resolve(doc, p.$ref) : p) as { in: string; name: string; required?: boolean })
        .filter((p: { in: string }) => p.in === "path");
      expect(declared.map((p: { name: string }) => p.name).sort(), `${method} ${path}`).toEqual(inPath);
      for (const p of declared) expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
    }
  });

  it("every operation names security schemes that the components define", () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(["basicAuth", "bearerAuth", "trustedAccessAuth"]);
    expect(schemes.basicAuth).toMatchObject({ type: "http", scheme: "basic" });
    expect(schemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const requirement of doc.security) for (const name of Object.keys(requirement)) expect(schemes[name], name).toBeDefined();
    for (const { method, path, op } of operations) {
      const security = op.security ?? doc.security;
      for (const requirement of security) for (const name of Object.keys(requirement)) expect(schemes[name], `${method} ${path}`).toBeDefined();
      if (op["x-access"] === "public") expect(op.security, `${method} ${path}`).toEqual([]);
      else expect(security.length, `${method} ${path}`).toBeGreaterThan(0);
    }
  });

  it("every operation declares its access rule, a known one", () => {
    for (const { method, path, op } of operations) expect(ACCESS_KINDS, `${method} ${path}`).toContain(op["x-access"]);
  });

  it("stability marks are known, and deprecated operations say so", () => {
    for (const { method, path, op } of operations) {
      const mark = op["x-stability"];
      if (mark !== undefined) expect(["experimental", "preview", "deprecated"], `${method} ${path}`).toContain(mark);
      expect(op.deprecated === true, `${method} ${path}`).toBe(mark === "deprecated");
      if (mark === "preview") expect(op.responses["400"]["x-error-codes"]).toContain("PREVIEW_NOT_ENABLED");
    }
  });

  it("every error response lists its errorCodes, each a known one of that status", () => {
    const known = doc.components.schemas.ErrorMessage.properties.errorCode.enum as string[];
    expect([...known].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const { method, path, op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (/^[23]\d\d$/.test(status)) continue;
        const where = `${method} ${path} ${status}`;
        const codes = response["x-error-codes"];
        expect(Array.isArray(codes) && codes.length > 0, where).toBe(true);
        for (const code of codes) {
          expect(known, where).toContain(code);
          const expected = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
          expect(code === "DUPLICATED" ? [400, 409] : [expected], where).toContain(Number(status));
        }
        const schema = response.content?.[VENDOR_JSON]?.schema?.$ref;
        // Under /api/trusted-access/ errors are OAuth bodies, and each response maps its errorCodes to their OAuth codes.
        if (path.startsWith("/api/trusted-access/")) {
          expect(schema, where).toBe("#/components/schemas/TrustedAccessError");
          const oauthCodes = doc.components.schemas.TrustedAccessError.properties.error.enum as string[];
          expect(Object.keys(response["x-oauth-errors"] ?? {}).sort(), where).toEqual([...codes].sort());
          for (const oauth of Object.values(response["x-oauth-errors"])) expect(oauthCodes, where).toContain(oauth);
        } else expect(schema, where).toBe(status === "401" ? "#/components/schemas/ServletErrorMessage" : "#/components/schemas/ErrorMessage");
      }
    }
  });

  it("every protected operation lists 401, and 403 unless any signed-in caller may call it", () => {
    for (const { method, path, op } of operations) {
      const access = op["x-access"];
      if (access === "public") continue;
      const where = `${method} ${path}`;
      // Trusted clients authenticate with their own credentials, and are then allowed.
      if (access === "trustedClient") {
        expect(op.responses["401"]?.["x-error-codes"], where).toContain("INVALID_CLIENT");
        expect(op.security, where).toEqual([{ trustedAccessAuth: [] }]);
        continue;
      }
      expect(op.responses["401"]?.["x-error-codes"], where).toEqual(expect.arrayContaining(["UNAUTHENTICATED", "INVALID_TOKEN"]));
      if (access !== "authenticated") expect(op.responses["403"]?.["x-error-codes"], where).toContain("FORBIDDEN");
    }
  });

  it("every operation with a body documents 400, 413 and 415, and at least one success response", () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      // A redirect (GET / to the reference page) is its operation's success.
      expect(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s) || s === "302"), where).toBe(true);
      if (!op.requestBody) continue;
      expect(Object.keys(op.requestBody.content).sort(), where).toEqual(bodyTypesOf(method));
      expect(op.responses["400"]["x-error-codes"], where).toEqual(expect.arrayContaining(["VALIDATION_FAILED", "MALFORMED_JSON"]));
      expect(op.responses["413"]["x-error-codes"], where).toContain("PAYLOAD_TOO_LARGE");
      expect(op.responses["415"]["x-error-codes"], where).toContain("UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("every JSON body, request or response, is documented under each spoken media type with one schema", () => {
    let bodies = 0;
    for (const { method, path, op } of operations) {
      const contents = [["request", op.requestBody?.content], ...Object.entries(op.responses).map(([status, r]: [string, any]) => [status, r.content])];
      for (let [where, content] of contents as [string, Record<string, { schema: unknown }> | undefined][]) {
        if (!content || path === "/docs") continue;
        bodies++;
        // The audit trail's NDJSON export is a stream of JSON lines, not a JSON body (checked by the response validator).
        if (method === "get" && path === "/api/audit-events" && where === "200") {
          expect(content["application/x-ndjson"], "the audit trail's NDJSON export").toBeDefined();
          content = Object.fromEntries(Object.entries(content).filter(([type]) => type !== "application/x-ndjson"));
        }
        expect(Object.keys(content).sort(), `${method} ${path} ${where}`).toEqual(where === "request" ? bodyTypesOf(method) : [...JSON_MEDIA_TYPES].sort());
        const schemas = new Set(Object.values(content).map((c) => JSON.stringify(c.schema)));
        expect(schemas.size, `${method} ${path} ${where}`).toBe(1);
      }
    }
    expect(bodies).toBeGreaterThan(100);
  });

  it("parameter-free GET operations answer the supervisor with a media type their 2xx response declares", async () => {
    const gets = operations.filter((o) => o.method === "get" && !o.path.includes("{") && ["public", "supervisor", "ROLE_ADMINISTER_USERS", "ROLE_ADMINISTER_GROUPS"].includes(o.op["x-access"]));
    expect(gets.length).toBeGreaterThan(3);
    for (const { path, op } of gets) {
      const res = await call("GET", path);
      if (op.responses["302"]) {
        expect(res.status, path).toBe(302);
        expect(res.headers.get("Location"), path).toBeTruthy();
        continue;
      }
      expect(res.status, path).toBe(200);
      const essence = res.headers.get("Content-Type")!.split(";")[0]!.trim();
      expect(Object.keys(op.responses["200"].content), path).toContain(essence);
    }
  });
});
