import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { normaliseContextPath } from "../../src/lib/config";
import { buildRequest, call, dbSnapshot, expectError, expectUnauthenticated, unique, VENDOR_JSON, type CallOptions } from "./helpers";

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
  it("answers JSON as the vendor media type", async () => {
    const res = await call("GET", "/api/accounts");
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
  });

  it.each([VENDOR_JSON, "application/json", "application/json; charset=utf-8", `${VENDOR_JSON};charset=UTF-8`])(
    "accepts a body sent as %s",
    async (type) => {
      const res = await call("POST", "/api/accounts", { body: { name: unique("media") }, headers: { "Content-Type": type } });
      expect(res.status).toBe(201);
    },
  );

  it.each(["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"])(
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

  it.each(["*/*", "application/*", "application/json", VENDOR_JSON, "text/html, application/json;q=0.5", "application/problem+json"])(
    "serves Accept: %s",
    async (accept) => {
      expect((await call("GET", "/api/accounts", { headers: { Accept: accept } })).status).toBe(200);
    },
  );

  it.each(["text/html", "application/xml", "text/*", "application/json;q=0", "image/png, text/plain"])(
    "answers 406 to Accept: %s",
    async (accept) => {
      expectError(await call("GET", "/api/accounts", { headers: { Accept: accept } }), 406, "NOT_ACCEPTABLE");
    },
  );
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
    const exact = (bytes: number) => {
      const shell = JSON.stringify({ name, pad: "" });
      return JSON.stringify({ name, pad: "p".repeat(bytes - shell.length) });
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
    expect(one.headers.get("Allow")!.split(",").map((m) => m.trim()).sort()).toEqual(["DELETE", "GET", "HEAD", "PUT"]);
  });

  it("HEAD, which Allow advertises, is served without a body", async () => {
    const res = await call("HEAD", "/api/accounts");
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
  });
});

describe("CONTEXT_PATH", () => {
  const fetchWith = async (contextPath: string, method: string, path: string, options: CallOptions = {}) => {
    const bindings = Object.assign(Object.create(env) as typeof env, { CONTEXT_PATH: contextPath });
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
