import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, dbSnapshot, expectError, VENDOR_JSON, type TestUser } from "./helpers";

/**
 * The rules that depend on other datasets hold when requests arrive at once, because each is
 * checked inside the write's own batch: one name per account, MAX_DATASETS_PER_ACCOUNT (100), and
 * the FILE_SIZE quota in bytes. Each case fires its requests simultaneously and checks the exact outcome.
 */
const MAX_DATASETS_PER_ACCOUNT = 100;

/** A fresh account with an administrator whose sign-in is cached (the requests then race on D1, not on PBKDF2). */
async function freshAccount(): Promise<{ id: string; admin: TestUser }> {
  const { id } = await createAccount();
  const admin = await createUser(id, { groups: ["Users", "Administrators"] });
  expect((await call("GET", "/api/json-datasets", { as: as(admin) })).status).toBe(200);
  return { id, admin };
}

const create = (admin: TestUser, name: string, data: unknown = { rows: [] }) => call("POST", "/api/json-datasets", { as: as(admin), body: { name, data } });

const datasetsOf = async (accountId: string) =>
  (await (await databaseOf(accountId)).prepare("SELECT name, data_bytes FROM json_datasets WHERE account_id = ? ORDER BY name").bind(accountId).all<{ name: string; data_bytes: number }>()).results;

/** A `data` text of exactly `bytes` UTF-8 bytes. */
const dataOfBytes = (bytes: number) => `{"s":"${"x".repeat(bytes - 8)}"}`;

describe("one name per account, under concurrency", () => {
  it("20 simultaneous creates with one name: exactly one 201, the others 409 DUPLICATED", async () => {
    const { id, admin } = await freshAccount();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(admin, "same name", { attempt: i })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, "DUPLICATED");
    expect(await datasetsOf(id)).toHaveLength(1);
    const orphans = await (await databaseOf(id)).prepare("SELECT count(*) AS n FROM json_dataset_chunks WHERE account_id = ? AND dataset_id NOT IN (SELECT id FROM json_datasets)").bind(id).first("n");
    expect(orphans).toBe(0);
  });

  it("the same name in two accounts is two datasets", async () => {
    const first = await freshAccount();
    const second = await freshAccount();
    expect((await create(first.admin, "shared name")).status).toBe(201);
    expect((await create(second.admin, "shared name")).status).toBe(201);
  });
});

describe("MAX_DATASETS_PER_ACCOUNT (100), under concurrency", () => {
  it("120 simultaneous creates make exactly 100; the rest are 409 DATASET_LIMIT; a delete makes room for one", async () => {
    const { id, admin } = await freshAccount();
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => create(admin, `dataset-${i}`)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(MAX_DATASETS_PER_ACCOUNT);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, "DATASET_LIMIT");
    expect(await datasetsOf(id)).toHaveLength(MAX_DATASETS_PER_ACCOUNT);

    const before = await dbSnapshot();
    expectError(await create(admin, "one more"), 409, "DATASET_LIMIT");
    expect(await dbSnapshot()).toEqual(before);
    // An update is no create: it passes at the limit.
    const first = created[0]!.json;
    expect((await call("PUT", `/api/json-datasets/${first.id}`, { as: as(admin), body: { name: first.name, data: { updated: true } } })).status).toBe(200);
    expect((await call("DELETE", `/api/json-datasets/${first.id}`, { as: as(admin) })).status).toBe(204);
    expect((await create(admin, "one more")).status).toBe(201);
    expectError(await create(admin, "and another"), 409, "DATASET_LIMIT");
  }, 60_000);

  it("counts per account: another account is not limited by this one's datasets", async () => {
    const { admin } = await freshAccount();
    expect((await create(admin, "first of its account")).status).toBe(201);
  });
});

describe("the FILE_SIZE quota in bytes, under concurrency", () => {
  const setLimit = async (accountId: string, limit: number) => {
    const res = await call("PUT", "/api/quota", { body: { accountId, quotas: [{ type: "FILE_SIZE", limit }] } });
    expect([200, 201]).toContain(res.status);
  };
  const consumption = async (accountId: string) => (await call("GET", `/api/quota/${accountId}`)).json.quotas[0].consumption;
  const postRaw = (admin: TestUser, name: string, data: string) =>
    call("POST", "/api/json-datasets", { as: as(admin), rawBody: `{"name":${JSON.stringify(name)},"data":${data}}`, headers: { "Content-Type": VENDOR_JSON } });
  const putRaw = (admin: TestUser, id: string, name: string, data: string) =>
    call("PUT", `/api/json-datasets/${id}`, { as: as(admin), rawBody: `{"name":${JSON.stringify(name)},"data":${data}}`, headers: { "Content-Type": VENDOR_JSON } });

  it("30 simultaneous creates of 10,000 bytes against a limit of 75,000 bytes: exactly 7 succeed", async () => {
    const { id, admin } = await freshAccount();
    await setLimit(id, 75_000);
    const data = dataOfBytes(10_000);
    expect(new TextEncoder().encode(data).length).toBe(10_000);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => postRaw(admin, `sized-${i}`, data)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(7);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, "QUOTA_EXCEEDED");
    expect(results.find((r) => r.status === 409)!.json.message).toContain("FILE_SIZE quota of 75000");
    expect(await consumption(id)).toBe(70_000);
    // What fits exactly is accepted: 5,000 bytes more reach the limit, one byte more does not.
    expectError(await postRaw(admin, "one byte too many", dataOfBytes(5_001)), 409, "QUOTA_EXCEEDED");
    expect((await postRaw(admin, "exactly the rest", dataOfBytes(5_000))).status).toBe(201);
    expect(await consumption(id)).toBe(75_000);
  });

  it("simultaneous updates that grow: exactly what fits succeeds; an update that does not grow always passes", async () => {
    const { id, admin } = await freshAccount();
    const small = dataOfBytes(1_000);
    const datasets = [];
    for (let i = 0; i < 10; i++) datasets.push((await postRaw(admin, `grow-${i}`, small)).json);
    // 10,000 bytes used; room for 4 datasets to grow by 5,000 bytes each.
    await setLimit(id, 30_000);
    const results = await Promise.all(datasets.map((d) => putRaw(admin, d.id, d.name, dataOfBytes(6_000))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 409, "QUOTA_EXCEEDED");
    expect(await consumption(id)).toBe(30_000);
    expect((await datasetsOf(id)).filter((d) => d.data_bytes === 6_000)).toHaveLength(4);

    // Over the limit after it is lowered: shrinking, keeping the size, or renaming still pass; growing does not.
    await setLimit(id, 1_000);
    const grown = datasets.find((_, i) => results[i]!.status === 200)!;
    const unchanged = datasets.find((_, i) => results[i]!.status !== 200)!;
    expect((await putRaw(admin, unchanged.id, unchanged.name, dataOfBytes(1_000))).status).toBe(200);
    expect((await call("PUT", `/api/json-datasets/${grown.id}`, { as: as(admin), body: { name: "renamed" } })).status).toBe(200);
    expect((await putRaw(admin, grown.id, "renamed", dataOfBytes(2_000))).status).toBe(200);
    expectError(await putRaw(admin, grown.id, "renamed", dataOfBytes(2_001)), 409, "QUOTA_EXCEEDED");
  });
});
