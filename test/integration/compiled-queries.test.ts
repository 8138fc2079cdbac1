import { describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, ROUTING_TRIPS } from "./helpers";
import { createMetricSource, metricPath, putMetric } from "./metric-helpers";

// Queries compiled once per isolate (src/db/compiled.ts) serve every request with that request's
// own values, on that request's own D1 handle: interleaved requests never see each other's rows,
// and each counts its own round trip.
describe("queries compiled once per isolate", () => {
  it("answer each of many interleaved requests with its own row, in one round trip each (E10, E17)", async () => {
    const accounts = await Promise.all(Array.from({ length: 6 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const byName = await Promise.all(
      [...accounts, ...accounts].map((a) => call("GET", `/api/accounts/name/${encodeURIComponent(a.name)}`)),
    );
    byName.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.json.id).toBe(accounts[i % accounts.length]!.id);
      expect(res.headers.get("X-D1-Round-Trips")).toBe(String(1 + ROUTING_TRIPS.accountByName));
    });
    for (const [i, account] of accounts.entries()) {
      const put = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 10 + i }] } });
      expect(put.status).toBeLessThan(300);
    }
    // Each admin signs in first (a cold sign-in reads the user: a round trip of its own).
    for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });
    const quotas = await Promise.all(admins.map((admin, i) => call("GET", `/api/quota/${accounts[i]!.id}`, { as: as(admin) })));
    quotas.forEach((res, i) => {
      expect(res.json.accountId).toBe(accounts[i]!.id);
      expect(res.json.quotas.find((q: { type: string }) => q.type === "SOURCE").limit).toBe(10 + i);
      expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
    });
  });

  it("store each of many interleaved custom-metric writes with its own values, lists of any length bound as one parameter (E1)", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const sources = await Promise.all(admins.map((admin) => createMetricSource(admin)));
    // Account i's metric sums i + 1 fields (the batched read's names and the references' list differ in length).
    const terms = ["SUM(price)", "SUM(qty)", "COUNT(carrier)", "MAX(price)"];
    const expression = (i: number, extra = "") => terms.slice(0, i + 1).join(" + ") + extra;
    const created = await Promise.all(admins.map((admin, i) => putMetric(admin, sources[i]!.id, "m", { expression: expression(i) })));
    created.forEach((res, i) => {
      expect(res.status, res.text).toBe(201);
      expect(res.json.expression).toBe(expression(i));
      expect(res.headers.get("X-D1-Round-Trips")).toBe("2");
    });
    // Updates, half with If-Match: each lands on its own metric.
    const updated = await Promise.all(
      admins.map((admin, i) => putMetric(admin, sources[i]!.id, "m", { expression: expression(i, " * 2") }, i % 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : undefined)),
    );
    updated.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("X-D1-Round-Trips")).toBe("2");
    });
    const read = await Promise.all(admins.map((admin, i) => call("GET", metricPath(sources[i]!.id, "m"), { as: as(admin) })));
    read.forEach((res, i) => expect(res.json.expression).toBe(expression(i, " * 2")));
    // A stale If-Match still misses, and another account's source is still not found.
    expect((await putMetric(admins[1]!, sources[1]!.id, "m", { expression: "SUM(qty)" }, { "If-Match": created[1]!.headers.get("ETag")! })).status).toBe(412);
    expect((await putMetric(admins[0]!, sources[1]!.id, "m", { expression: "SUM(qty)" })).status).toBe(404);
  });

  it("still answer 404 for a name no account has", async () => {
    const res = await call("GET", "/api/accounts/name/no-such-account-anywhere");
    expect(res.status).toBe(404);
  });
});

describe("a user's update, compiled once per isolate", () => {
  it("stores each of many interleaved updates in different accounts with its own values, groups and password", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const groups = await Promise.all(accounts.map((a, i) => createGroup(a.id, `Team ${i}`)));
    const users = await Promise.all(accounts.map((a) => createUser(a.id)));
    // Half change the password and send If-Match; account i's user joins i's own group (none for the first).
    const updated = await Promise.all(
      users.map(async (user, i) => {
        const current = await call("GET", `/api/users/${user.id}`);
        const body = { id: user.id, name: `${user.username}-renamed`, fullName: `Full ${i}`, email: `u${i}@example.com`, roles: [], groups: i === 0 ? [] : ["Users", groups[i]!.name], ...(i % 2 ? { password: `New-password-${i}!` } : {}) };
        return call("PUT", `/api/users/${user.id}`, { body, headers: i % 2 ? { "If-Match": current.headers.get("ETag")! } : {} });
      }),
    );
    updated.forEach((res) => expect(res.status, res.text).toBe(200));
    const read = await Promise.all(users.map((user) => call("GET", `/api/users/${user.id}`)));
    read.forEach((res, i) => {
      expect(res.json).toMatchObject({ name: `${users[i]!.username}-renamed`, fullName: `Full ${i}`, email: `u${i}@example.com`, accountId: accounts[i]!.id });
      expect(res.json.groups).toEqual(i === 0 ? [] : [groups[i]!.name, "Users"].sort());
    });
    // The new passwords were stored on their own users; the others kept theirs.
    const signIns = await Promise.all(users.map((user, i) => call("GET", "/api/user", { as: { username: `${user.username}-renamed`, password: i % 2 ? `New-password-${i}!` : user.password } })));
    signIns.forEach((res) => expect(res.status, res.text).toBe(200));
    // A stale If-Match misses, leaving the user as it was.
    const stale = await call("PUT", `/api/users/${users[1]!.id}`, { body: { id: users[1]!.id, name: "stale", roles: [], groups: [] }, headers: { "If-Match": updated[0]!.headers.get("ETag")! } });
    expect(stale.status).toBe(412);
    expect((await call("GET", `/api/users/${users[1]!.id}`)).json.name).toBe(`${users[1]!.username}-renamed`);
  });
});
