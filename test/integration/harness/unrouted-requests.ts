import fc from "fast-check";
import { basic, DEFAULT_ACCOUNT_ID, SUPERVISOR, VENDOR_JSON } from "../helpers";
import type { Contract } from "./contract";
import type { World } from "./fixtures";
import type { RequestPlan } from "./request-plan";

/**
 * Requests aimed anywhere, not only at documented operations: any method (HEAD, OPTIONS
 * included), documented templates filled with odd segments, random paths under /api/ and
 * beside it, odd queries, headers, credentials and bodies. Whatever answers must be within
 * the contract: the documented answers where an operation is reached, the pipeline's generic
 * ones (401, 404, 405, 406, 413, 415, a preflight 204) elsewhere, never a 5xx.
 */
const ODD_SEGMENTS = ["", " ", "%00", "%2F", "..", ".", "%E0%A4%A", "%", "%F0%9F%99%82", "x".repeat(300), "'; DROP TABLE users; --", "Default", DEFAULT_ACCOUNT_ID, "name", "validate"];

export function unroutedRequestArbitrary(contract: Contract, world: World, realIds: string[]): fc.Arbitrary<RequestPlan> {
  const templates = Object.keys(contract.doc.paths);
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...realIds) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
  );
  const path = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...templates), fc.array(segment, { minLength: 4, maxLength: 4 }), fc.boolean()).map(([template, segs, trailingSlash]) => {
        let n = 0;
        return template.replace(/\{[^}]+\}/g, () => segs[n++ % segs.length]!) + (trailingSlash ? "/" : "");
      }),
    },
    { weight: 1, arbitrary: fc.array(segment, { maxLength: 4 }).map((segs) => `/api/${segs.join("/")}`) },
    { weight: 1, arbitrary: fc.constantFrom("/", "/api", "/api/", "/docs/", "/favicon.ico", "/API/ACCOUNTS", "/api//accounts", "/api/openapi.json/x") },
  );
  const query = fc.dictionary(fc.constantFrom("maxResults", "pageToken", "accountId", "x", ""), fc.oneof(fc.integer().map(String), fc.string({ maxLength: 12 })), { maxKeys: 3 });
  const header = (values: string[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
  const ascii = (maxLength: number) => fc.string({ unit: "grapheme-ascii", maxLength });

  return fc
    .record({
      method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
      path,
      query,
      accept: header(["*/*", VENDOR_JSON, "text/html", "application/json;q=0", "application/*", "garbage", ""]),
      contentType: header([VENDOR_JSON, "application/json", "text/plain", "application/xml", ""]),
      origin: header(["https://console.example.test", "https://evil.example", "null"]),
      preflight: header(["GET", "PUT", "DELETE", "PATCH, X-Custom"]),
      preview: header(["true", "TRUE", "no", ""]),
      ifMatch: fc.option(fc.oneof(ascii(20), fc.constant("*")), { nil: undefined }),
      requestId: fc.option(ascii(40), { nil: undefined }),
      auth: fc.oneof(
        { weight: 4, arbitrary: fc.constant("supervisor") },
        { weight: 3, arbitrary: fc.constant("admin") },
        { weight: 1, arbitrary: fc.constant("none") },
        { weight: 1, arbitrary: ascii(30).map((raw) => `raw:${raw}`) },
        { weight: 1, arbitrary: ascii(40).map((token) => `raw:Bearer ${token}`) },
        { weight: 1, arbitrary: fc.tuple(ascii(12), ascii(12)).map(([u, p]) => `raw:${basic(`fuzz-${u}`, p)}`) },
      ),
      body: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json })), fc.string({ maxLength: 40 }).map((text) => ({ text }))), { nil: undefined }),
      address: fc.integer({ min: 1, max: 1 << 24 }),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.accept !== undefined) headers.Accept = r.accept;
      if (r.origin !== undefined) headers.Origin = r.origin;
      if (r.preflight !== undefined) headers["Access-Control-Request-Method"] = r.preflight;
      if (r.preview !== undefined) headers["X-Enable-Preview"] = r.preview;
      if (r.ifMatch !== undefined) headers["If-Match"] = r.ifMatch;
      if (r.requestId !== undefined) headers["X-Request-Id"] = r.requestId;
      if (r.auth.startsWith("raw:")) {
        headers.Authorization = r.auth.slice(4);
        // Broken credentials from a throwaway address: the suite's own callers stay unthrottled.
        headers["CF-Connecting-IP"] = `10.${(r.address >> 16) & 255}.${(r.address >> 8) & 255}.${r.address & 255}`;
      }
      const hasBody = r.body !== undefined && r.method !== "GET" && r.method !== "HEAD";
      if (hasBody) headers["Content-Type"] = r.contentType ?? "";
      return {
        label: "anywhere",
        method: r.method,
        path: r.path,
        query: r.query,
        headers,
        body: hasBody ? r.body : undefined,
        as: r.auth === "supervisor" ? SUPERVISOR : r.auth === "admin" ? { username: world.admin.username, password: world.admin.password } : null,
      } satisfies RequestPlan;
    });
}
