import { beforeAll, describe, expect, it } from "vitest";
import { QUOTA_TYPES } from "../../src/domain/quota";
import { as, call, createAccount, createUser, dbSnapshot, expectError, type TestUser } from "./helpers";

const QUOTA_MEMBERS = ["accountId", "createdByUserID", "createdDate", "lastModifiedByUserID", "lastModifiedDate", "quotas"];

let q: { id: string };
let r: { id: string };
let adminQ: TestUser;
let plainQ: TestUser;
let adminR: TestUser;

beforeAll(async () => {
  q = await createAccount();
  r = await createAccount();
  adminQ = await createUser(q.id, { groups: ["Users", "Administrators"] });
  plainQ = await createUser(q.id);
  adminR = await createUser(r.id, { groups: ["Users", "Administrators"] });
});

const put = (body: unknown, headers?: Record<string, string>) => call("PUT", "/api/quota", { body, headers });

describe("quota upsert: PUT /api/quota", () => {
  it("creates (201) then replaces (200) an account's quota, consumption always 0 for now", async () => {
    const account = await createAccount();
    expectError(await call("GET", `/api/quota/${account.id}`), 404, "NOT_FOUND");

    const created = await put({
      accountId: account.id,
      quotas: [
        { type: "SOURCE", limit: 3 },
        { type: "CONNECTION", limit: 5, consumption: 99 },
      ],
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(QUOTA_MEMBERS);
    expect(created.json).toMatchObject({
      accountId: account.id,
      quotas: [
        { type: "CONNECTION", limit: 5, consumption: 0 },
        { type: "SOURCE", limit: 3, consumption: 0 },
      ],
      createdByUserID: "supervisor",
    });
    const etag = created.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const replaced = await put({ accountId: account.id, quotas: [{ type: "VISUAL", limit: 0 }] }, { "If-Match": etag });
    expect(replaced.status).toBe(200);
    expect(replaced.json.quotas).toEqual([{ type: "VISUAL", limit: 0, consumption: 0 }]);
    expect(replaced.json.createdDate).toBe(created.json.createdDate);
    expect(replaced.headers.get("ETag")).not.toBe(etag);

    const read = await call("GET", `/api/quota/${account.id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(replaced.json);
    expect(read.headers.get("ETag")).toBe(replaced.headers.get("ETag"));
  });

  it("reports every type with consumption 0 while the account holds users and groups", async () => {
    const account = await createAccount();
    await createUser(account.id);
    const res = await put({ accountId: account.id, quotas: QUOTA_TYPES.map((type, i) => ({ type, limit: 10 + i })) });
    expect(res.status).toBe(201);
    expect(res.json.quotas).toEqual(QUOTA_TYPES.map((type, i) => ({ type, limit: 10 + i, consumption: 0 })));
    const refreshed = await call("PATCH", `/api/quota/refresh/${account.id}`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.quotas).toEqual(res.json.quotas);
  });

  it("shows one account's limits only, never another account's", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await put({ accountId: a.id, quotas: [{ type: "SOURCE", limit: 1 }] });
    await put({ accountId: b.id, quotas: [{ type: "SOURCE", limit: 2 }, { type: "VISUAL", limit: 3 }] });
    expect((await call("GET", `/api/quota/${a.id}`)).json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 0 }]);
    expect((await call("GET", `/api/quota/${b.id}`)).json.quotas).toEqual([
      { type: "SOURCE", limit: 2, consumption: 0 },
      { type: "VISUAL", limit: 3, consumption: 0 },
    ]);
  });

  it("answers 412 to a stale If-Match and changes nothing", async () => {
    const account = await createAccount();
    const first = await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] });
    await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 2 }] });
    const before = await dbSnapshot();
    expectError(await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 3 }] }, { "If-Match": first.headers.get("ETag")! }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("answers 404 for an account that does not exist", async () => {
    const before = await dbSnapshot();
    expectError(await put({ accountId: crypto.randomUUID(), quotas: [{ type: "SOURCE", limit: 1 }] }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });

  describe("refuses invalid quota lists (400) and changes nothing", () => {
    const cases: [string, (accountId: string) => unknown, string[]][] = [
      ["an empty list", (id) => ({ accountId: id, quotas: [] }), ["body.quotas"]],
      ["no list", (id) => ({ accountId: id }), ["body.quotas"]],
      [
        "a duplicated type",
        (id) => ({ accountId: id, quotas: [{ type: "SOURCE", limit: 1 }, { type: "VISUAL", limit: 1 }, { type: "SOURCE", limit: 2 }] }),
        ["body.quotas[0].type", "body.quotas[2].type"],
      ],
      ["an unknown type", (id) => ({ accountId: id, quotas: [{ type: "FOO", limit: 1 }] }), ["body.quotas[0].type"]],
      ["a negative limit", (id) => ({ accountId: id, quotas: [{ type: "SOURCE", limit: -1 }] }), ["body.quotas[0].limit"]],
      ["a fractional limit", (id) => ({ accountId: id, quotas: [{ type: "SOURCE", limit: 1.5 }] }), ["body.quotas[0].limit"]],
      ["a string limit", (id) => ({ accountId: id, quotas: [{ type: "SOURCE", limit: "5" }] }), ["body.quotas[0].limit"]],
      ["a missing limit", (id) => ({ accountId: id, quotas: [{ type: "SOURCE" }] }), ["body.quotas[0].limit"]],
      ["a missing accountId", () => ({ quotas: [{ type: "SOURCE", limit: 1 }] }), ["body.accountId"]],
      ["a limit beyond 2^53", (id) => ({ accountId: id, quotas: [{ type: "SOURCE", limit: 2 ** 60 }] }), ["body.quotas[0].limit"]],
    ];
    it.each(cases)("%s", async (_label, body, problems) => {
      await put({ accountId: q.id, quotas: [{ type: "SCHEDULE", limit: 4 }] });
      const before = await dbSnapshot();
      expectError(await put(body(q.id)), 400, "VALIDATION_FAILED", problems);
      expect(await dbSnapshot()).toEqual(before);
    });
  });
});

describe("E17 GET /api/quota/{accountId}", () => {
  beforeAll(async () => {
    await put({ accountId: q.id, quotas: [{ type: "DASHBOARD", limit: 7 }] });
    await put({ accountId: r.id, quotas: [{ type: "DASHBOARD", limit: 8 }] });
  });

  it("answers the supervisor and an admin of the account", async () => {
    const bySupervisor = await call("GET", `/api/quota/${q.id}`);
    expect(bySupervisor.status).toBe(200);
    const byAdmin = await call("GET", `/api/quota/${q.id}`, { as: as(adminQ) });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json).toEqual(bySupervisor.json);
  });

  it("answers an admin of another account 404, exactly as for a missing quota", async () => {
    const other = await call("GET", `/api/quota/${r.id}`, { as: as(adminQ) });
    const missing = await call("GET", `/api/quota/${crypto.randomUUID()}`, { as: as(adminQ) });
    expectError(other, 404, "NOT_FOUND");
    expectError(missing, 404, "NOT_FOUND");
    expect(other.json.message).toBe(missing.json.message);
    expectError(await call("GET", `/api/quota/${q.id}`, { as: as(adminR) }), 404, "NOT_FOUND");
  });

  it("answers a non-admin of the same account 403", async () => {
    expectError(await call("GET", `/api/quota/${q.id}`, { as: as(plainQ) }), 403, "FORBIDDEN");
  });
});

describe("PATCH /api/quota/refresh/{accountId}", () => {
  it("recomputes and returns the quota (supervisor), 404 without one, 403 for an account admin", async () => {
    await put({ accountId: q.id, quotas: [{ type: "FILE_SIZE", limit: 1000 }] });
    const before = await dbSnapshot();
    const res = await call("PATCH", `/api/quota/refresh/${q.id}`);
    expect(res.status).toBe(200);
    expect(res.json.quotas).toEqual([{ type: "FILE_SIZE", limit: 1000, consumption: 0 }]);
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expectError(await call("PATCH", `/api/quota/refresh/${crypto.randomUUID()}`), 404, "NOT_FOUND");
    expectError(await call("PATCH", `/api/quota/refresh/${q.id}`, { as: as(adminQ) }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("E18 DELETE /api/quota/{accountId}", () => {
  it("deletes the quota (204, then GET 404); supervisor only", async () => {
    const account = await createAccount();
    await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }, { type: "VISUAL", limit: 2 }] });
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });

    const before = await dbSnapshot();
    expectError(await call("DELETE", `/api/quota/${account.id}`, { as: as(admin) }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);

    const res = await call("DELETE", `/api/quota/${account.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expectError(await call("GET", `/api/quota/${account.id}`), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/api/quota/${account.id}`), 404, "NOT_FOUND");
    const after = await dbSnapshot();
    expect(after.quota_limits!.filter((l) => (l as { account_id: string }).account_id === account.id)).toEqual([]);
    expect(after.quotas!.filter((l) => (l as { account_id: string }).account_id === account.id)).toEqual([]);
    // The account itself is untouched.
    expect((await call("GET", `/api/accounts/${account.id}`)).status).toBe(200);
  });

  it("answers 412 to a stale If-Match", async () => {
    const account = await createAccount();
    const first = await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] });
    await put({ accountId: account.id, quotas: [{ type: "SOURCE", limit: 2 }] });
    const before = await dbSnapshot();
    expectError(await call("DELETE", `/api/quota/${account.id}`, { headers: { "If-Match": first.headers.get("ETag")! } }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });
});
