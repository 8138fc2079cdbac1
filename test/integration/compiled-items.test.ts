import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, type CallResult } from "./helpers";
import { createMetricSource, metricPath, metricsPath, putMetric } from "./metric-helpers";

// A source's fields and custom metrics: the list's page (one template per page shape) and the
// delete's batch are compiled once per isolate (src/routes/sources/item-operations.ts).
// Interleaved requests of several accounts each read and delete their own rows only.
describe("a source's items, listed and deleted through statements compiled once per isolate", () => {
  it("page each account's metrics forwards and back, interleaved, then delete one of each", async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const sources = await Promise.all(admins.map((admin) => createMetricSource(admin)));
    const names = accounts.map((_, i) => [`A${i}a`, `A${i}b`, `A${i}c`]);
    for (const [i, admin] of admins.entries()) {
      for (const name of names[i]!) expect((await putMetric(admin, sources[i]!.id, name, { expression: "SUM(price)" })).status).toBe(201);
    }
    const page = (i: number, token?: string) => call("GET", `${metricsPath(sources[i]!.id)}?maxResults=1${token ? `&pageToken=${token}` : ""}`, { as: as(admins[i]!) });
    const walk = await Promise.all(
      admins.map(async (_, i) => {
        const first = await page(i);
        const next = await page(i, first.json.pageInfo.nextPageToken);
        const back = await page(i, next.json.pageInfo.previousPageToken);
        return [first, next, back];
      }),
    );
    walk.forEach(([first, next, back], i) => {
      expect(namesOf(first!)).toEqual([names[i]![0]]);
      expect(namesOf(next!)).toEqual([names[i]![1]]);
      expect(namesOf(back!)).toEqual([names[i]![0]]);
      for (const res of [first!, next!, back!]) expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
    });
    // The whole list of each, interleaved with the others'.
    const all = await Promise.all(admins.map((admin, i) => call("GET", metricsPath(sources[i]!.id), { as: as(admin) })));
    // Every source also has the built-in "Volume", which sorts after these names.
    all.forEach((res, i) => expect(namesOf(res)).toEqual([...names[i]!, "Volume"]));

    // Each deletes its own middle metric: the others' stay.
    const deleted = await Promise.all(admins.map((admin, i) => call("DELETE", metricPath(sources[i]!.id, names[i]![1]!), { as: as(admin) })));
    deleted.forEach((res) => expect(res.status, res.text).toBe(204));
    const after = await Promise.all(admins.map((admin, i) => call("GET", metricsPath(sources[i]!.id), { as: as(admin) })));
    after.forEach((res, i) => expect(namesOf(res)).toEqual([names[i]![0], names[i]![2], "Volume"]));
  });

  it("still refuses a metric another metric uses, and keeps both", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const source = await createMetricSource(admin);
    expect((await putMetric(admin, source.id, "base", { expression: "SUM(price)" })).status).toBe(201);
    expect((await putMetric(admin, source.id, "twice", { expression: "base * 2" })).status).toBe(201);
    const refused = await call("DELETE", metricPath(source.id, "base"), { as: as(admin) });
    expect([refused.status, refused.json.errorCode]).toEqual([400, "VALIDATION_FAILED"]);
    expect((await call("DELETE", metricPath(source.id, "twice"), { as: as(admin) })).status).toBe(204);
    expect((await call("DELETE", metricPath(source.id, "base"), { as: as(admin) })).status).toBe(204);
    expect(namesOf(await call("GET", metricsPath(source.id), { as: as(admin) }))).toEqual(["Volume"]);
  });
});

const namesOf = (res: CallResult) => res.json.content.map((m: { name: string }) => m.name);
