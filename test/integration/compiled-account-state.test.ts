import { describe, expect, it } from "vitest";
import { as, call, createAccount, createGroup, createUser, SUPERVISOR, unique } from "./helpers";

// The account state every export and import reads (src/routes/account-export/account-state.ts) is
// seventeen statements compiled once per isolate for each kind of scope: interleaved exports of
// several accounts, by their admins and by the supervisor, each hold their own account's rows only.
describe("an account's state, read through statements compiled once per isolate", () => {
  it("exports each of several accounts with its own objects, interleaved, by its admin and by the supervisor", async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, (_, i) => createAccount(unique(`State${i}`))));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    // Account i has i + 1 groups of its own and a SOURCE quota of 10 + i.
    const groupNames = accounts.map((_, i) => Array.from({ length: i + 1 }, (__, g) => `state-${i}-${g}`));
    await Promise.all(accounts.flatMap((a, i) => groupNames[i]!.map((name) => createGroup(a.id, name))));
    for (const [i, a] of accounts.entries()) {
      expect((await call("PUT", "/api/quota", { body: { accountId: a.id, quotas: [{ type: "SOURCE", limit: 10 + i }] } })).status).toBe(201);
    }
    const path = (i: number) => `/api/accounts/${accounts[i]!.id}/export`;
    const exports = await Promise.all([
      ...admins.map((admin, i) => call("GET", path(i), { as: as(admin) })),
      ...accounts.map((_, i) => call("GET", path(i), { as: SUPERVISOR })),
    ]);
    exports.forEach((res, n) => {
      const i = n % accounts.length;
      expect(res.status, res.text).toBe(200);
      expect(res.json.account).toEqual({ name: accounts[i]!.name });
      const own = res.json.groups.map((g: { name: string }) => g.name).filter((name: string) => name.startsWith("state-"));
      expect(own).toEqual(groupNames[i]);
      expect(res.json.users.map((u: { name: string }) => u.name)).toContain(admins[i]!.username);
      expect(res.json.quota.quotas).toContainEqual(expect.objectContaining({ type: "SOURCE", limit: 10 + i }));
    });
    // An admin naming another account reads none of its rows: 404, even interleaved with that account's own export.
    const [stranger, owner] = await Promise.all([call("GET", path(1), { as: as(admins[0]!) }), call("GET", path(1), { as: as(admins[1]!) })]);
    expect(stranger.status).toBe(404);
    expect(owner.status).toBe(200);
  });
});
