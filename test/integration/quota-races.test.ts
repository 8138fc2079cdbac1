import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, expectError, type TestUser } from "./helpers";

/**
 * Quotas hold when many creates arrive at once: the check runs inside the create's own batch
 * (db/quota.ts), so exactly the limit succeeds however the requests interleave.
 */
let admin: TestUser;
let accountId: string;

beforeAll(async () => {
  accountId = (await createAccount()).id;
  admin = await createUser(accountId, { groups: ["Users", "Administrators"] });
});

async function setLimit(type: string, limit: number) {
  const res = await call("PUT", "/api/quota", { body: { accountId, quotas: [{ type, limit }] } });
  expect([200, 201]).toContain(res.status);
  // Warm the credential cache: the creates then race on the database, not on password hashing.
  expect((await call("GET", "/api/sources", { as: as(admin) })).status).toBe(200);
}

describe("SOURCE quota under concurrency", () => {
  it.each([1, 2, 3])("round %i: 100 simultaneous creates against a limit of 3 make exactly 3", async (round) => {
    await setLimit("SOURCE", 3 * round);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call("POST", "/api/sources", { as: as(admin), body: { name: `race-${round}-${i}` } })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(3);
    for (const r of refused) expectError(r, 409, "QUOTA_EXCEEDED");
    expect(refused[0]!.json.message).toContain(`quota of ${3 * round}`);

    const quota = await call("GET", `/api/quota/${accountId}`, { as: as(admin) });
    expect(quota.json.quotas).toEqual([{ type: "SOURCE", limit: 3 * round, consumption: 3 * round }]);
    const list = await call("GET", "/api/sources?maxResults=1000", { as: as(admin) });
    expect(list.json.content).toHaveLength(3 * round);
  });

  it("a refused create leaves nothing behind: no source, no fields, no metric", async () => {
    const before = await call("GET", "/api/sources?maxResults=1000", { as: as(admin) });
    const res = await call("POST", "/api/sources", {
      as: as(admin),
      body: { name: "over-the-limit", fields: [{ name: "a", origin: { type: "NATIVE", nativeOrigin: { originalName: "a" } } }] },
    });
    expectError(res, 409, "QUOTA_EXCEEDED");
    const after = await call("GET", "/api/sources?maxResults=1000", { as: as(admin) });
    expect(after.json.content).toEqual(before.json.content);
  });
});
