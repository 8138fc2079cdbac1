import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { normaliseContextPath } from "../../src/lib/config";
import { representationDigest, textDigest } from "../../src/middleware/conditional-get";
import { buildRequest, call, createAccount, dbSnapshot, expectError, expectUnauthenticated, unique, VENDOR_JSON, type CallOptions } from "./helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request id", () => {
  it("is generated when the caller sends none, and echoed in error bodies", async () => {
    const ok = await call("GET", "/api/health", { as: null });
    expect(ok.headers.get("X-Request-Id")).toMatch(UUID);
    const other = await call("GET", "/api/health", { as: null });
    expect(other.headers.get("X-Request-Id")).not.toBe(ok.headers.get("X-Request-Id"));

    const notFound = await call("GET", "/api/nowhere");
    expect(notFound.headers.get("X-Request-Id")).toMatch(UUID);
    expect(notFound.json.requestId).toBe(notFound.headers.get("X-Request-Id"));
    const unauthenticated = await call("GET", "/api/accounts", { as: null });
    expect(unauthenticated.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("takes the caller's id when it is a sane token", async () => {
    const res = await call("GET", "/api/nowhere", { headers: { "X-Request-Id": "trace-42.abc:def_1" } });
    expect(res.headers.get("X-Request-Id")).toBe("trace-42.abc:def_1");
    expect(res.json.requestId).toBe("trace-42.abc:def_1");
  });

  it.each(["has spaces in it", "x".repeat(129), "quote\"d", "semi;colon"])("replaces an unsafe id (%s)", async (given) => {
    const res = await call("GET", "/api/health", { as: null, headers: { "X-Request-Id": given } });
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });
});

describe("media types", () => {
  const COMPOSER = "application/vnd.composer.v3+json";
  const ZOOMDATA = "application/vnd.zoomdata+json";
  const typeOf = (res: { headers: Headers }) => res.headers.get("Content-Type");

  it("answers JSON as the vendor media type when nothing asks for another", async () => {
    const res = await call("GET", "/api/accounts");
    expect(typeOf(res)).toBe(VENDOR_JSON);
    expect(res.headers.get("Vary")).toMatch(/Accept, Content-Type/);
  });

  it.each([VENDOR_JSON, "application/json", COMPOSER, ZOOMDATA, "application/json; charset=utf-8", `${VENDOR_JSON};charset=UTF-8`, `${COMPOSER}; charset=utf-8`, `${ZOOMDATA}; version=1`])(
    "accepts a body sent as %s, and answers in its type when there is no Accept",
    async (type) => {
      const res = await call("POST", "/api/accounts", { body: { name: unique("media") }, headers: { "Content-Type": type } });
      expect(res.status).toBe(201);
      expect(typeOf(res)).toBe(type.split(";")[0]);
    },
  );

  it.each([
    [COMPOSER, COMPOSER],
    [ZOOMDATA, ZOOMDATA],
    ["application/json", "application/json"],
    ["application/vnd.zoomdata.v2+json,application/vnd.zoomdata+json", ZOOMDATA],
    [`application/json, ${COMPOSER}`, "application/json"],
    [`application/json;q=0.5, ${COMPOSER}`, COMPOSER],
    [`${COMPOSER};q=0.2, application/*;q=0.9`, VENDOR_JSON],
    ["application/json;q=0, */*", VENDOR_JSON],
    ["text/html, */*;q=0.1", VENDOR_JSON],
    [`${ZOOMDATA}; charset=utf-8`, ZOOMDATA],
  ])("negotiates Accept: %s → %s", async (accept, expected) => {
    const res = await call("GET", "/api/accounts", { headers: { Accept: accept } });
    expect(res.status).toBe(200);
    expect(typeOf(res)).toBe(expected);
  });

  it("a wildcard Accept answers in the request's own type", async () => {
    const res = await call("GET", "/api/accounts", { headers: { Accept: "*/*", "Content-Type": COMPOSER } });
    expect(typeOf(res)).toBe(COMPOSER);
  });

  it("error bodies follow the same negotiation", async () => {
    const missing = await call("GET", "/api/accounts/no-such-account", { headers: { Accept: ZOOMDATA } });
    expectError(missing, 404, "NOT_FOUND", [], ZOOMDATA);
    const anonymous = await call("GET", "/api/accounts", { as: null, headers: { "Content-Type": COMPOSER } });
    expect(anonymous.status).toBe(401);
    expect(typeOf(anonymous)).toBe(COMPOSER);
    // A 406 cannot be in a type the client accepts: it is written in the request's own type if it is one of ours.
    expectError(await call("GET", "/api/accounts", { headers: { Accept: "text/html", "Content-Type": ZOOMDATA } }), 406, "NOT_ACCEPTABLE", [], ZOOMDATA);
    expectError(await call("POST", "/api/accounts", { rawBody: "{}", headers: { Accept: COMPOSER, "Content-Type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE", [], COMPOSER);
  });

  it("an answer without a revision is tagged with the digest of the very bytes and media type sent", async () => {
    // JSON answers are digested from the text the handler wrote (not read back from the body): the tag must still name the bytes received.
    for (const path of ["/api/accounts", "/api/health", "/api/groups"]) {
      const res = await call("GET", path, { headers: { Accept: COMPOSER } });
      expect(res.status).toBe(200);
      const bytes = new TextEncoder().encode(res.text);
      expect(res.headers.get("ETag")).toBe(`"${await representationDigest(bytes, res.headers.get("Content-Type")!)}"`);
    }
  });

  it("a text's digest, made in the isolate's reused buffer, is the digest of its bytes, however the digests interleave", async () => {
    // ASCII, beyond ASCII (more bytes than characters: the buffer's first guess is short), larger
    // than the buffer grows to, and small after large (the buffer's old bytes beyond must not count).
    const texts = ["{}", `{"name":"${"é✓😀".repeat(3000)}"}`, `[${"1,".repeat(700_000)}1]`, "x".repeat(50_000), '{"a":1}'];
    const digests = texts.map((text) => textDigest(text, "application/json"));
    for (const [i, text] of texts.entries()) expect(await digests[i]).toBe(await representationDigest(new TextEncoder().encode(text), "application/json"));
  });

  it("an answer made once per isolate (health, the reference page) is tagged as any other, per media type, and answers 304 to its tag", async () => {
    const tags = new Set<string>();
    for (const [path, accept] of [["/api/health", COMPOSER], ["/api/health", "application/json"], ["/api/health", COMPOSER], ["/docs", "text/html"]] as const) {
      const res = await call("GET", path, { as: null, headers: { Accept: accept } });
      expect(res.status).toBe(200);
      const etag = res.headers.get("ETag")!;
      expect(etag).toBe(`"${await representationDigest(new TextEncoder().encode(res.text), res.headers.get("Content-Type")!)}"`);
      tags.add(etag);
      expect((await call("GET", path, { as: null, headers: { Accept: accept, "If-None-Match": etag } })).status).toBe(304);
    }
    expect(tags.size).toBe(3);
  });

  it("a list page's ETag differs by media type", async () => {
    const vendor = await call("GET", "/api/accounts");
    const composer = await call("GET", "/api/accounts", { headers: { Accept: COMPOSER } });
    expect(vendor.headers.get("ETag")).not.toBe(composer.headers.get("ETag"));
    const again = await call("GET", "/api/accounts", { headers: { Accept: COMPOSER, "If-None-Match": composer.headers.get("ETag")! } });
    expect(again.status).toBe(304);
  });

  it.each(["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "application/vnd.zoomdata.v2+json"])(
    "refuses a body sent as %s (415) and changes nothing",
    async (type) => {
      const before = await dbSnapshot();
      const res = await call("POST", "/api/accounts", { rawBody: JSON.stringify({ name: unique("media") }), headers: { "Content-Type": type } });
      expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
      expect(await dbSnapshot()).toEqual(before);
    },
  );

  it("refuses a body without Content-Type (415)", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/accounts", { rawBody: new TextEncoder().encode(JSON.stringify({ name: unique("untyped") })) });
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await dbSnapshot()).toEqual(before);
  });

  it.each([COMPOSER, ZOOMDATA, "text/plain", "application/xml"])("never refuses a request without a body for its Content-Type %s", async (type) => {
    const account = await createAccount();
    expect((await call("GET", `/api/accounts/${account.id}`, { headers: { "Content-Type": type } })).status).toBe(200);
    // A write that needs a body and has none is told so (400), whatever its Content-Type says.
    const answeredIn = type === COMPOSER || type === ZOOMDATA ? type : VENDOR_JSON;
    expectError(await call("PUT", `/api/accounts/${account.id}`, { headers: { "Content-Type": type } }), 400, "MALFORMED_JSON", ["body"], answeredIn);
    expect((await call("DELETE", `/api/accounts/${account.id}`, { headers: { "Content-Type": type } })).status).toBe(204);
  });

  it("never refuses a GET for a body it does not read", async () => {
    // A GET whose headers announce a body in a foreign type (a fetch Request cannot carry the bytes; the length says they came).
    const res = await call("GET", "/api/accounts", { headers: { "Content-Type": "text/plain", "Content-Length": "5" } });
    expect(res.status).toBe(200);
    expect(typeOf(res)).toBe(VENDOR_JSON);
  });

  it.each(["*/*", "application/*", "application/json", VENDOR_JSON, COMPOSER, ZOOMDATA, "text/html, application/json;q=0.5"])("serves Accept: %s", async (accept) => {
    expect((await call("GET", "/api/accounts", { headers: { Accept: accept } })).status).toBe(200);
  });

  it.each(["text/html", "application/xml", "text/*", "application/json;q=0", "image/png, text/plain", "application/problem+json", "application/vnd.zoomdata.v2+json", "garbage"])(
    "answers 406 to Accept: %s",
    async (accept) => {
      expectError(await call("GET", "/api/accounts", { headers: { Accept: accept } }), 406, "NOT_ACCEPTABLE");
    },
  );

  it("serves the OpenAPI document as plain JSON unless another spoken type is asked for", async () => {
    expect(typeOf(await call("GET", "/api/openapi.json", { as: null }))).toBe("application/json; charset=UTF-8");
    expect(typeOf(await call("GET", "/api/openapi.json", { as: null, headers: { Accept: "*/*" } }))).toBe("application/json; charset=UTF-8");
    expect(typeOf(await call("GET", "/api/openapi.json", { as: null, headers: { Accept: COMPOSER } }))).toBe(`${COMPOSER}; charset=UTF-8`);
  });
});

describe("request bodies", () => {
  it("a body over MAX_BODY_BYTES is 413 and changes nothing", async () => {
    expect(env.MAX_BODY_BYTES).toBe("1048576");
    const before = await dbSnapshot();
    const body = JSON.stringify({ name: unique("big"), senderDisplayName: "x".repeat(1_100_000) });
    expectError(await call("POST", "/api/accounts", { rawBody: body, headers: { "Content-Type": VENDOR_JSON } }), 413, "PAYLOAD_TOO_LARGE");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("the cap is exact: MAX_BODY_BYTES passes, one byte more is 413", async () => {
    const name = unique("cap");
    // Padded with JSON whitespace: every member of a body must be one the operation knows.
    const exact = (bytes: number) => {
      const shell = JSON.stringify({ name });
      return `${shell.slice(0, -1)}${" ".repeat(bytes - shell.length)}}`;
    };
    const tooBig = await call("POST", "/api/accounts", { rawBody: exact(1_048_577), headers: { "Content-Type": VENDOR_JSON } });
    expectError(tooBig, 413, "PAYLOAD_TOO_LARGE");
    const atCap = await call("POST", "/api/accounts", { rawBody: exact(1_048_576), headers: { "Content-Type": VENDOR_JSON } });
    expect(atCap.status).toBe(201);
    expect(atCap.json.name).toBe(name);
  });

  it.each(["{", '{"name": "x",}', "{name: 'x'}", "", "nul\u0000l"])("malformed JSON %j is 400 MALFORMED_JSON", async (raw) => {
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/accounts", { rawBody: raw, headers: { "Content-Type": VENDOR_JSON } }), 400, "MALFORMED_JSON", ["body"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("routing", () => {
  it("an unknown path is 404 ROUTE_NOT_FOUND", async () => {
    expectError(await call("GET", "/api/nowhere"), 404, "ROUTE_NOT_FOUND");
    expectError(await call("GET", "/api/accounts/a/b/c"), 404, "ROUTE_NOT_FOUND");
    expectError(await call("GET", "/elsewhere", { as: null }), 404, "ROUTE_NOT_FOUND");
  });

  it("an unknown path under /api still needs credentials first (401)", async () => {
    expectUnauthenticated(await call("GET", "/api/nowhere", { as: null }), "/api/nowhere");
  });

  it("PATCH /api/accounts is 405 with Allow listing GET and POST", async () => {
    const res = await call("PATCH", "/api/accounts");
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    const allow = res.headers.get("Allow")!.split(",").map((m) => m.trim());
    expect(allow).toEqual(expect.arrayContaining(["GET", "POST"]));
    expect(allow).not.toContain("PATCH");
    expect(allow).not.toContain("PUT");
    expect(allow).not.toContain("DELETE");
  });

  it("405 names exactly the methods of the path", async () => {
    const byName = await call("DELETE", "/api/accounts/name/Default");
    expectError(byName, 405, "METHOD_NOT_ALLOWED");
    expect(byName.headers.get("Allow")!.split(",").map((m) => m.trim()).sort()).toEqual(["GET", "HEAD"]);

    const one = await call("POST", "/api/accounts/some-id");
    expectError(one, 405, "METHOD_NOT_ALLOWED");
    expect(one.headers.get("Allow")!.split(",").map((m) => m.trim()).sort()).toEqual(["DELETE", "GET", "HEAD", "PATCH", "PUT"]);
  });

  it("HEAD, which Allow advertises, is served without a body", async () => {
    const res = await call("HEAD", "/api/accounts");
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
  });
});

describe("CONTEXT_PATH", () => {
  const fetchWith = async (contextPath: string, method: string, path: string, options: CallOptions = {}) => {
    // A copy: assigning on Object.create(env) would set CONTEXT_PATH on the env of every later test.
    const bindings = { ...env, CONTEXT_PATH: contextPath };
    const ctx = createExecutionContext();
    const request = buildRequest(method, path, options) as Parameters<typeof worker.fetch>[0];
    const response = await worker.fetch(request, bindings, ctx);
    await waitOnExecutionContext(ctx);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  };

  it("normalises the configured prefix", () => {
    expect(normaliseContextPath(undefined)).toBe("");
    expect(normaliseContextPath("")).toBe("");
    expect(normaliseContextPath("composer")).toBe("/composer");
    expect(normaliseContextPath("/composer/")).toBe("/composer");
    expect(normaliseContextPath(" //a/b// ")).toBe("/a/b");
  });

  it("serves every route under the prefix, and nothing outside it", async () => {
    expect((await fetchWith("composer/", "GET", "/composer/api/health", { as: null })).status).toBe(200);
    expect((await fetchWith("composer/", "GET", "/composer/api/accounts")).status).toBe(200);
    expectUnauthenticated(await fetchWith("/composer", "GET", "/composer/api/accounts", { as: null }), "/composer/api/accounts");
    expectError(await fetchWith("/composer", "GET", "/api/accounts"), 404, "ROUTE_NOT_FOUND");
    expectError(await fetchWith("/composer", "GET", "/composer/api/accounts", { headers: { Accept: "text/html" } }), 406, "NOT_ACCEPTABLE");
    const created = await fetchWith("/composer", "POST", "/composer/api/accounts", { body: { name: unique("ctx") } });
    expect(created.status).toBe(201);
    expect(created.headers.get("Location")).toBe(`/composer/api/accounts/${created.json.id}`);
    const wrongMethod = await fetchWith("/composer", "PATCH", "/composer/api/accounts");
    expectError(wrongMethod, 405, "METHOD_NOT_ALLOWED");
  });
});
