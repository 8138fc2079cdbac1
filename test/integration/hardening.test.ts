import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DRAIN_LIMIT_BYTES } from "../../src/middleware/request-body";
import {
  as,
  basic,
  call,
  createAccount,
  createGroup,
  createUser,
  dbSnapshot,
  expectError,
  ROUTING_TRIPS,
  SUPERVISOR,
  unique,
  VENDOR_JSON,
  type TestUser,
} from "./helpers";

/**
 * Regression tests for what an outside probe of the service found (issue 7): input hygiene,
 * nesting and size caps, tamper-evident page tokens, conditional GET and security headers,
 * streamed oversized bodies, CORS, and credential-cache eviction. Quota races and login
 * throttling have their own files (quota-races.test.ts, auth.test.ts).
 */
let accountId: string;
let admin: TestUser;

beforeAll(async () => {
  accountId = (await createAccount()).id;
  admin = await createUser(accountId, { groups: ["Users", "Administrators"] });
});

describe("strings that cannot be stored as sent are refused, naming the member", () => {
  const loneSurrogateBody = (json: string) => ({ rawBody: json, headers: { "Content-Type": VENDOR_JSON } });

  it.each([
    ["an account name", "POST", "/api/accounts", '{"name":"dup\\ud800"}', "body.name"],
    ["a user's full name", "POST", "/api/users", '{"name":"lone-1","password":"long enough password","fullName":"x\\udc00y"}', "body.fullName"],
    ["a group description", "POST", "/api/groups", '{"name":"g-lone","description":"\\ud83d"}', "body.description"],
    ["a member name (key)", "POST", "/api/accounts", '{"name":"k","attributes":[{"key":"a","value":"b","\\ud800":1}]}', "body.attributes[0].\ud800"],
    ["a nested free-form value", "POST", "/api/accounts", '{"name":"n","attributes":[{"key":"a","value":"\\udfff"}]}', "body.attributes[0].value"],
  ])("a lone surrogate in %s: 400, nothing stored", async (_what, method, path, json, member) => {
    const before = await dbSnapshot();
    const res = await call(method, path, loneSurrogateBody(json));
    const body = expectError(res, 400, "VALIDATION_FAILED");
    expect(body.problems[0].name).toBe(member);
    expect(body.problems[0].message).toMatch(/lone surrogate/);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a well-formed surrogate pair (an emoji) is stored and read back as sent", async () => {
    const name = `emoji-\ud83d\ude00-${unique("acct")}`;
    const res = await call("POST", "/api/accounts", { rawBody: JSON.stringify({ name }).replace("\ud83d\ude00", "\\ud83d\\ude00"), headers: { "Content-Type": VENDOR_JSON } });
    expect(res.status).toBe(201);
    expect((await call("GET", `/api/accounts/${res.json.id}`)).json.name).toBe(name);
  });

  it("invalid UTF-8 bytes are a 400 MALFORMED_JSON, not silently replaced", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"name":"bad'), 0xed, 0xa0, 0x80, ...new TextEncoder().encode('"}')]);
    expectError(await call("POST", "/api/accounts", { rawBody: bytes, headers: { "Content-Type": VENDOR_JSON } }), 400, "MALFORMED_JSON");
  });

  it.each([
    ["an account", "POST", "/api/accounts", { name: "tab\tname" }, "body.name"],
    ["a group", "POST", "/api/groups", { name: "nul\u0000name" }, "body.name"],
    ["a user", "POST", "/api/users", { name: "line\nbreak", password: "long enough password" }, "body.name"],
    ["a user's full name", "POST", "/api/users", { name: unique("u"), password: "long enough password", fullName: "bell\u0007" }, "body.fullName"],
    ["a source", "POST", "/api/sources", { name: "del\u007fname" }, "body.name"],
    ["a source's field label", "POST", "/api/sources", { name: "ok", fields: [{ label: "c1\u0085", origin: { type: "NATIVE", nativeOrigin: { originalName: "a" } } }] }, "body.fields[0].label"],
  ])("control characters in the name of %s: 400", async (_what, method, path, body, member) => {
    const before = await dbSnapshot();
    const res = await call(method, path, { as: path === "/api/sources" ? as(admin) : undefined, body });
    expectError(res, 400, "VALIDATION_FAILED", [member]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("descriptions keep tabs and line breaks, but not NUL", async () => {
    const ok = await call("POST", "/api/groups", { body: { name: unique("described"), description: "line one\n\tline two\r\n" } });
    expect(ok.status).toBe(201);
    expect(ok.json.description).toBe("line one\n\tline two\r\n");
    expectError(await call("POST", "/api/groups", { body: { name: unique("nul"), description: "a\u0000b" } }), 400, "VALIDATION_FAILED", ["body.description"]);
  });
});

describe("free-form JSON has a depth and a size cap", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "leaf";
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  const sourceWithRawFormat = (rawFormat: unknown) => ({
    name: unique("src"),
    fields: [{ name: "f", origin: { type: "NATIVE", nativeOrigin: { originalName: "f", rawFormat } } }],
  });

  it("a free-form member deeper than 32 levels is a 400 naming it", async () => {
    const res = await call("POST", "/api/sources", { as: as(admin), body: sourceWithRawFormat(nested(33)) });
    expectError(res, 400, "VALIDATION_FAILED", ["body.fields[0].origin.nativeOrigin.rawFormat"]);
    expect((await call("POST", "/api/sources", { as: as(admin), body: sourceWithRawFormat(nested(31)) })).status).toBe(201);
  });

  it("a body nested 170,000 levels is refused before validation, without a 500", async () => {
    const depth = 170_000;
    const json = `{"name":"deep","fields":[{"origin":{"type":"NATIVE","nativeOrigin":{"originalName":"x","rawFormat":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}}]}`;
    const res = await call("POST", "/api/sources", { as: as(admin), rawBody: json, headers: { "Content-Type": VENDOR_JSON } });
    const body = expectError(res, 400, "VALIDATION_FAILED");
    expect(body.problems[0].message).toMatch(/Nested more than 64 levels/);
    expect(body.problems[0].name.length).toBeLessThan(400);
  });

  it("a free-form member larger than its byte cap is a 400", async () => {
    const res = await call("POST", "/api/sources", { as: as(admin), body: sourceWithRawFormat({ big: "x".repeat(70_000) }) });
    expectError(res, 400, "VALIDATION_FAILED", ["body.fields[0].origin.nativeOrigin.rawFormat"]);
  });
});

describe("page tokens are opaque, tamper-evident and bound to their list", () => {
  let nextToken: string;

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) await createGroup(accountId, `paged-${i}`);
    const first = await call("GET", `/api/groups?maxResults=2&accountId=${accountId}`);
    nextToken = first.json.pageInfo.nextPageToken;
    expect(nextToken).toBeTruthy();
  });

  it("the token does not show the key it holds", () => {
    const decoded = atob(nextToken.replace(/-/g, "+").replace(/_/g, "/"));
    expect(decoded).not.toMatch(/Administrators|paged-|"k"/);
  });

  it("works for its own list", async () => {
    const next = await call("GET", `/api/groups?maxResults=2&accountId=${accountId}&pageToken=${nextToken}`);
    expect(next.status).toBe(200);
    expect(next.json.content.length).toBeGreaterThan(0);
  });

  it("a hand-made token in the old clear format is a 400", async () => {
    const handMade = btoa(JSON.stringify({ d: "n", k: "Administrators" })).replace(/=+$/, "");
    expectError(await call("GET", `/api/groups?accountId=${accountId}&pageToken=${handMade}`), 400, "INVALID_PAGE_TOKEN", ["query.pageToken"]);
  });

  it("an altered token is a 400", async () => {
    const altered = nextToken.slice(0, 25) + (nextToken[25] === "x" ? "y" : "x") + nextToken.slice(26);
    expectError(await call("GET", `/api/groups?accountId=${accountId}&pageToken=${altered}`), 400, "INVALID_PAGE_TOKEN");
  });

  it("a token of one list is a 400 on another list, and for another account's list", async () => {
    expectError(await call("GET", `/api/users?accountId=${accountId}&pageToken=${nextToken}`), 400, "INVALID_PAGE_TOKEN");
    const other = (await createAccount()).id;
    expectError(await call("GET", `/api/groups?accountId=${other}&pageToken=${nextToken}`), 400, "INVALID_PAGE_TOKEN");
  });
});

describe("conditional GET and security headers", () => {
  it("If-None-Match with an object's ETag gives 304 with no body; a stale one gives 200", async () => {
    const group = await createGroup(accountId, unique("etagged"));
    const first = await call("GET", `/api/groups/${group.id}`);
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await call("GET", `/api/groups/${group.id}`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("ETag")).toBe(etag);
    expect(again.headers.get("X-Request-Id")).toBeTruthy();
    expect((await call("GET", `/api/groups/${group.id}`, { headers: { "If-None-Match": `W/${etag}` } })).status).toBe(304);
    expect((await call("GET", `/api/groups/${group.id}`, { headers: { "If-None-Match": '"stale"' } })).status).toBe(200);
  });

  it("list pages carry a tag of the page, which changes when the page does", async () => {
    const path = `/api/groups?accountId=${accountId}&maxResults=1000`;
    const page = await call("GET", path);
    const etag = page.headers.get("ETag")!;
    expect(etag).toBeTruthy();
    expect((await call("GET", path, { headers: { "If-None-Match": etag } })).status).toBe(304);
    await createGroup(accountId, unique("changes-the-page"));
    const changed = await call("GET", path, { headers: { "If-None-Match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).not.toBe(etag);
  });

  it("every answer says nosniff; authenticated answers are no-store; errors too", async () => {
    for (const res of [
      await call("GET", "/api/accounts"),
      await call("GET", "/api/accounts/nope"),
      await call("GET", "/api/accounts", { as: null }),
      await call("GET", "/api/health", { as: null }),
    ]) {
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    }
    expect((await call("GET", "/api/accounts")).headers.get("Cache-Control")).toBe("no-store");
    expect((await call("GET", "/api/accounts/nope")).headers.get("Cache-Control")).toBe("no-store");
  });

  it("/docs has a Content-Security-Policy that allows no framing, forms or foreign connections", async () => {
    const res = await call("GET", "/docs", { as: null });
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe("oversized bodies are answered 413 as they stream, with or without a declared length", () => {
  /** A body of `total` bytes sent in 64 KiB chunks with no Content-Length; counts what the Worker pulled. */
  function streamed(total: number) {
    const state = { pulled: 0 };
    const chunk = new TextEncoder().encode(`"${"x".repeat(65_534)}`.slice(0, 65_536));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (state.pulled >= total) return controller.close();
        controller.enqueue(chunk);
        state.pulled += chunk.length;
      },
    });
    return { body, state };
  }

  const send = (body: ReadableStream<Uint8Array>) =>
    exports.default.fetch(
      new Request("http://api.test/api/accounts", {
        method: "POST",
        body,
        duplex: "half",
        headers: { Authorization: basic(SUPERVISOR.username, SUPERVISOR.password), "Content-Type": VENDOR_JSON },
      } as RequestInit),
    );

  it("a 10 MB chunked body gets a 413 PAYLOAD_TOO_LARGE answer, not a reset", async () => {
    const before = await dbSnapshot();
    const { body } = streamed(10_000_000);
    const res = await send(body);
    expect(res.status).toBe(413);
    expect((await res.json()) as { errorCode: string }).toMatchObject({ errorCode: "PAYLOAD_TOO_LARGE" });
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a body past the drain limit is not read to its end", async () => {
    const { body, state } = streamed(DRAIN_LIMIT_BYTES * 2);
    const res = await send(body);
    expect(res.status).toBe(413);
    expect(state.pulled).toBeLessThan(DRAIN_LIMIT_BYTES + 2 * 1024 * 1024);
  });
});

describe("CORS: off unless an origin is listed", () => {
  it("a preflight is answered without credentials and grants nothing to an unlisted origin", async () => {
    const res = await call("OPTIONS", "/api/accounts", {
      as: null,
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("a cross-origin request from an unlisted origin carries no CORS grant", async () => {
    const res = await call("GET", "/api/accounts", { headers: { Origin: "https://evil.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  // The integration Worker runs with CORS_ALLOWED_ORIGINS=https://console.example.test (vitest.config.ts).
  const listed = "https://console.example.test";

  it("a listed origin's preflight is allowed with credentials, before authentication", async () => {
    const res = await call("OPTIONS", "/api/sources/abc/fields", {
      as: null,
      headers: { Origin: listed, "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "authorization,content-type,if-match" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(listed);
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBe("true");
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("PUT");
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("if-match");
  });

  it("a listed origin's real request gets the grant and can read ETag and Location", async () => {
    const res = await call("POST", "/api/groups", { headers: { Origin: listed }, body: { name: unique("cors"), accountId } });
    expect(res.status).toBe(201);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(listed);
    expect(res.headers.get("Access-Control-Expose-Headers")).toMatch(/ETag.*Location|Location.*ETag/);
    expect(res.headers.get("Vary")).toContain("Origin");
  });
});

describe("credential cache: a group edit evicts only whom it affects", () => {
  it("a description change costs its members nothing; a privilege change takes effect at once", async () => {
    const group = await createGroup(accountId, unique("editors"), ["ROLE_EDIT_FORMULAS"]);
    const member = await createUser(accountId, { groups: ["Users", group.name] });
    const outsider = await createUser(accountId, { groups: ["Users"], roles: ["ROLE_ADMINISTER_USERS"] });
    const trips = async (user: TestUser) => Number((await call("GET", "/api/sources", { as: as(user) })).headers.get("X-D1-Round-Trips"));
    const warm = await trips(member);
    expect(await trips(member)).toBeLessThan(warm); // second request: the credential is cached
    const cached = await trips(member);
    await trips(outsider);

    const put = (body: object) => call("PUT", `/api/groups/${group.id}`, { body: { name: group.name, accountId, ...body } });
    expect((await put({ description: "just words", privileges: ["ROLE_EDIT_FORMULAS"] })).status).toBe(200);
    expect(await trips(member)).toBe(cached);

    expect((await put({ privileges: ["ROLE_EDIT_FORMULAS", "ROLE_ADMINISTER_USERS"] })).status).toBe(200);
    expect(await trips(member)).toBeGreaterThan(cached); // re-authenticated once, with the new privileges
    expect((await call("GET", "/api/users", { as: as(member) })).status).toBe(200);
    expect(await trips(outsider)).toBe(cached); // not a member: kept

    // Revocation is immediate in this isolate.
    expect((await put({ privileges: [] })).status).toBe(200);
    expectError(await call("GET", "/api/users", { as: as(member) }), 403, "FORBIDDEN");
  });

  it("a user PUT costs two round trips: one read (user and groups), one batch", async () => {
    const user = await createUser(accountId, { groups: ["Users"] });
    const res = await call("PUT", `/api/users/${user.id}`, { body: { name: user.username, accountId, groups: ["Users", "Administrators"] } });
    expect(res.status).toBe(200);
    expect(res.json.groups).toEqual(["Administrators", "Users"]);
    expect(res.headers.get("X-D1-Round-Trips")).toBe(String(2 + ROUTING_TRIPS.objectById));
  });
});
