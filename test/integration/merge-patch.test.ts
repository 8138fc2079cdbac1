import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { connectionBody } from "./connection-helpers";
import { as, call, createAccount, createGroup, createUser, expectError, PASSWORD, unique, type TestUser } from "./helpers";

/** JSON Merge Patch (RFC 7396) on every resource with a full-replace PUT (src/lib/merge-patch-route.ts). */
const MERGE_PATCH = { "Content-Type": "application/merge-patch+json" };

let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

async function newUser() {
  const name = unique("frank");
  const res = await call("POST", "/api/users", {
    body: { name, password: PASSWORD, fullName: "Frank Zappa", email: "frank@example.com", accountId: account.id, groups: ["Users", "Administrators"], roles: ["ROLE_CREATE_SOURCES"] },
  });
  expect(res.status).toBe(201);
  return res.json as { id: string; name: string };
}

describe("PATCH /api/users/{id}", () => {
  it("resets a password and keeps the full name, email, groups and roles", async () => {
    const user = await newUser();
    const res = await call("PATCH", `/api/users/${user.id}`, { body: { password: "a new secret password" }, headers: MERGE_PATCH, as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: user.name, fullName: "Frank Zappa", email: "frank@example.com", groups: ["Administrators", "Users"], roles: ["ROLE_CREATE_SOURCES"] });
    expect(res.text).not.toContain("a new secret password");
    expect((await call("GET", "/api/user", { as: { username: user.name, password: "a new secret password" } })).status).toBe(200);
    expect((await call("GET", "/api/user", { as: { username: user.name, password: PASSWORD } })).status).toBe(401);
    const read = await call("GET", `/api/users/${user.id}`);
    expect(read.json).toMatchObject({ fullName: "Frank Zappa", email: "frank@example.com", groups: ["Administrators", "Users"] });
  });

  it("null removes a member: email cleared, groups back to their default", async () => {
    const user = await newUser();
    const res = await call("PATCH", `/api/users/${user.id}`, { body: { email: null, groups: null } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ email: null, groups: ["Users"], fullName: "Frank Zappa" });
  });

  it("takes the reference product's alias fullname, and plain JSON media types", async () => {
    const user = await newUser();
    const res = await call("PATCH", `/api/users/${user.id}`, { body: { fullname: "Francis Vincent Zappa" } });
    expect(res.status).toBe(200);
    expect(res.json.fullName).toBe("Francis Vincent Zappa");
    expect(res.json.email).toBe("frank@example.com");
  });

  it("validates the merged result with the PUT's schema and changes nothing when it is invalid", async () => {
    const user = await newUser();
    const res = await call("PATCH", `/api/users/${user.id}`, { body: { email: "not an address", roles: ["ROLE_NOPE"] }, headers: MERGE_PATCH });
    expectError(res, 400, "VALIDATION_FAILED", ["body.email", "body.roles[0]"]);
    expect((await call("GET", `/api/users/${user.id}`)).json.email).toBe("frank@example.com");
    // A password cannot be removed: null is refused, not ignored.
    expectError(await call("PATCH", `/api/users/${user.id}`, { body: { password: null }, headers: MERGE_PATCH }), 400, "VALIDATION_FAILED", ["body.password"]);
  });

  it("If-Match works as on PUT: a stale ETag is 412, the current one applies", async () => {
    const user = await newUser();
    const read = await call("GET", `/api/users/${user.id}`);
    const etag = read.headers.get("ETag")!;
    const stale = await call("PATCH", `/api/users/${user.id}`, { body: { fullName: "Stale" }, headers: { ...MERGE_PATCH, "If-Match": '"0000000000000000"' } });
    expectError(stale, 412, "PRECONDITION_FAILED");
    const fresh = await call("PATCH", `/api/users/${user.id}`, { body: { fullName: "Fresh" }, headers: { ...MERGE_PATCH, "If-Match": etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("ETag")).not.toBe(etag);
    expectError(await call("PATCH", `/api/users/${user.id}`, { body: { fullName: "Again" }, headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
  });

  it("another account's user is 404, a body that is not an object is 400, and a foreign media type 415", async () => {
    const other = await createAccount();
    const stranger = await createUser(other.id);
    expectError(await call("PATCH", `/api/users/${stranger.id}`, { body: { fullName: "x" }, as: as(admin) }), 404, "NOT_FOUND");
    const user = await newUser();
    expectError(await call("PATCH", `/api/users/${user.id}`, { body: ["x"] }), 400, "VALIDATION_FAILED");
    expectError(await call("PATCH", `/api/users/${user.id}`, { rawBody: "{}", headers: { "Content-Type": "application/json-patch+json" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await call("PUT", `/api/users/${user.id}`, { rawBody: "{}", headers: MERGE_PATCH }), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("concurrent patches of different members lose none of the changes they answered 200 for", async () => {
    const user = await newUser();
    const patches = [{ fullName: "Concurrent Name" }, { email: "concurrent@example.com" }, { roles: ["ROLE_CREATE_SOURCES", "ROLE_EDIT_FORMULAS"] }];
    const results = await Promise.all(patches.map((body) => call("PATCH", `/api/users/${user.id}`, { body, headers: MERGE_PATCH })));
    const final = (await call("GET", `/api/users/${user.id}`)).json;
    results.forEach((res, i) => {
      if (res.status === 200) expect(final).toMatchObject(patches[i]!);
      else expectError(res, 409, "CONCURRENT_UPDATE");
    });
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
  });
});

describe("PATCH on the other resources with a full-replace PUT", () => {
  it("groups: a description patch keeps the privileges; If-Match applies", async () => {
    const group = await createGroup(account.id, unique("Analysts"), ["ROLE_CREATE_SOURCES"]);
    const res = await call("PATCH", `/api/groups/${group.id}`, { body: { description: "analysts of the north" }, headers: MERGE_PATCH, as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: group.name, description: "analysts of the north", privileges: ["ROLE_CREATE_SOURCES"] });
    expectError(await call("PATCH", `/api/groups/${group.id}`, { body: { description: null }, headers: { "If-Match": '"stale"' }, as: as(admin) }), 412, "PRECONDITION_FAILED");
  });

  it("accounts: a patch keeps a secured attribute's stored value, and null restores a default", async () => {
    const secret = "patch-secret-never-returned";
    const created = await call("POST", "/api/accounts", { body: { name: unique("patched"), disabled: true, attributes: [{ key: "apiKey", value: secret, isSecured: true }] } });
    expect(created.status).toBe(201);
    const res = await call("PATCH", `/api/accounts/${created.json.id}`, { body: { senderDisplayName: "Patched Sender", disabled: null }, headers: MERGE_PATCH });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: created.json.name, senderDisplayName: "Patched Sender", disabled: false, attributes: [{ key: "apiKey", isSecured: true }] });
    expect(res.text).not.toContain(secret);
    const row = await env.DB.prepare("SELECT attributes FROM accounts WHERE id = ?").bind(created.json.id).first<{ attributes: string }>();
    expect(JSON.parse(row!.attributes)).toEqual([{ key: "apiKey", value: secret, isSecured: true }]);
  });

  it("calendars: nested objects merge, and an invalid result is a 400 naming the member", async () => {
    const created = await call("POST", "/api/calendars", {
      as: as(admin),
      body: {
        type: "FISCAL_445",
        name: unique("Fiscal"),
        fiscal445: { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: false, yearEndIsoMonth: "JANUARY", quarterType: "QUARTER_454_WEEKS", leapWeekInMonth: 12 },
      },
    });
    expect(created.status).toBe(201);
    const res = await call("PATCH", `/api/calendars/${created.json.id}`, { body: { fiscal445: { leapWeekInMonth: 3 } }, headers: MERGE_PATCH, as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json.fiscal445).toEqual({ ...created.json.fiscal445, leapWeekInMonth: 3 });
    const invalid = await call("PATCH", `/api/calendars/${created.json.id}`, { body: { fiscal445: { leapWeekInMonth: 13 } }, as: as(admin) });
    expectError(invalid, 400, "VALIDATION_FAILED", ["body.fiscal445.leapWeekInMonth"]);
  });

  it("JSON datasets: data merges when named and is kept byte for byte when not", async () => {
    const raw = '{"name":"' + unique("ds") + '","data":{"big":12345678901234567890,"price":1.0,"nested":{"a":1,"b":2}}}';
    const created = await call("POST", "/api/json-datasets", { as: as(admin), rawBody: raw, headers: { "Content-Type": "application/json" } });
    expect(created.status).toBe(201);
    const id = created.json.id;
    const renamed = await call("PATCH", `/api/json-datasets/${id}`, { body: { description: "described" }, headers: MERGE_PATCH, as: as(admin) });
    expect(renamed.status).toBe(200);
    expect(renamed.text).toContain('"data":{"big":12345678901234567890,"price":1.0,"nested":{"a":1,"b":2}}');
    const merged = await call("PATCH", `/api/json-datasets/${id}`, { body: { data: { nested: { a: null, c: 3 } } }, headers: MERGE_PATCH, as: as(admin) });
    expect(merged.status).toBe(200);
    expect(merged.json.description).toBe("described");
    expect(merged.json.data.nested).toEqual({ b: 2, c: 3 });
    expectError(await call("PATCH", `/api/json-datasets/${id}`, { body: { data: null }, as: as(admin) }), 400, "VALIDATION_FAILED", ["body.data"]);
  });

  it("JSON datasets of several stored chunks: the patch reads the streamed answer, and data is kept unless named", async () => {
    // Over one chunk (1,000,000 bytes), so the dataset's GET streams its body instead of writing one string.
    const filler = "x".repeat(1_200_000);
    const created = await call("POST", "/api/json-datasets", { as: as(admin), body: { name: unique("ds"), data: { filler, n: 1 } } });
    expect(created.status).toBe(201);
    const id = created.json.id;
    const described = await call("PATCH", `/api/json-datasets/${id}`, { body: { description: "large" }, headers: MERGE_PATCH, as: as(admin) });
    expect(described.status).toBe(200);
    expect(described.json.description).toBe("large");
    expect(described.json.data).toEqual({ filler, n: 1 });
    const merged = await call("PATCH", `/api/json-datasets/${id}`, { body: { data: { n: 2 } }, headers: MERGE_PATCH, as: as(admin) });
    expect(merged.status).toBe(200);
    expect(merged.json.data).toEqual({ filler, n: 2 });
  });

  it("connections: a rename keeps the secret password (the connection still reaches its store)", async () => {
    const created = await call("POST", "/api/connections", { as: as(admin), body: connectionBody(unique("Conn")) });
    expect(created.status).toBe(201);
    const id = created.json.id;
    const res = await call("PATCH", `/api/connections/${id}`, { body: { name: unique("Renamed") }, headers: MERGE_PATCH, as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json.allParameters.find((p: { key: string }) => p.key === "password")).toEqual({ key: "password", systemAccess: false });
    expect((await call("GET", `/api/connections/${id}/schema`, { as: as(admin) })).status).toBe(200);
    expectError(await call("PATCH", `/api/connections/${unique("missing")}`, { body: { name: "x" }, as: as(admin) }), 404, "NOT_FOUND");
  });

  it("connection types: concurrent patches of different members keep every change they answered 200 for", async () => {
    const created = await call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: unique("PatchedType") } });
    expect(created.status).toBe(201);
    const patches = [{ description: "described concurrently" }, { disabledMessage: "retired concurrently" }, { onPremise: true }];
    const results = await Promise.all(patches.map((body) => call("PATCH", `/api/connection/types/${created.json.id}`, { body, headers: MERGE_PATCH })));
    const final = (await call("GET", `/api/connection/types/${created.json.id}`)).json;
    results.forEach((res, i) => {
      if (res.status === 200) expect(final).toMatchObject(patches[i]!);
      else expectError(res, 409, "CONCURRENT_UPDATE");
    });
  });
});
