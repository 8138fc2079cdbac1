import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser } from "./helpers";

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
      expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
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

  it("still answer 404 for a name no account has", async () => {
    const res = await call("GET", "/api/accounts/name/no-such-account-anywhere");
    expect(res.status).toBe(404);
  });
});
