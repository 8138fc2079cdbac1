import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, unique, type CallResult } from "./helpers";
import { sourcePath } from "./source-helpers";

// The writes of sources compiled once per isolate (src/db/compiled.ts): interleaved
// requests of several accounts each write their own rows with their own values, in the round trips
// they took before (test/integration/harness/round-trips.ts), and never reach another account's source.

/** Accounts, each with an administrator signed in already (a cold sign-in reads the user: a round trip of its own). */
async function adminsOfAccounts(count: number) {
  const accounts = await Promise.all(Array.from({ length: count }, () => createAccount()));
  const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
  for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });
  return { accounts, admins };
}

const trips = (res: CallResult) => res.headers.get("X-D1-Round-Trips");
const price = { name: "price", origin: { type: "NATIVE", nativeOrigin: { originalName: "price", originalType: "DECIMAL" } } };

/** A source's own columns as stored on its account's database. */
async function storedSource(accountId: string, id: string) {
  return (await databaseOf(accountId))
    .prepare(
      `SELECT account_id, name, description, connection_id, features, enabled, fields_security_enabled AS fs, custom_metrics_security_enabled AS ms,
        owner_user_id, last_modified_by_user_id AS modifier, revision FROM sources WHERE id = ?`,
    )
    .bind(id)
    .first();
}

describe("source writes compiled once per isolate", () => {
  it("PUT security, PATCH and PUT each of many interleaved sources of different accounts with its own values", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    // Four sources per account: source n is account n % 4's.
    const owner = (n: number) => n % 4;
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, n) => call("POST", "/api/sources", { as: as(admins[owner(n)]!), body: { name: unique(`src-${n}`), description: `made ${n}`, fields: [price] } })),
    );
    for (const res of made) expect(res.status, res.text).toBe(201);
    const ids = made.map((res) => res.json.id as string);
    const adminOf = (n: number) => as(admins[owner(n)]!);
    const stored = (n: number) => storedSource(accounts[owner(n)]!.id, ids[n]!);

    // Security: a pair of settings that differs between neighbours, and between the sources of an account.
    const bits = (n: number) => (n ^ (n >> 2)) & 3;
    const security = (n: number) => ({ fieldsSecurity: { enabled: (bits(n) & 1) === 1 }, customMetricsSecurity: { enabled: (bits(n) & 2) === 2 } });
    const secured = await Promise.all(ids.map((id, n) => call("PUT", `${sourcePath(id)}/security`, { as: adminOf(n), body: security(n) })));
    for (const [n, res] of secured.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json, `source ${n}`).toEqual(security(n));
      expect(await stored(n), `source ${n}`).toMatchObject({
        account_id: accounts[owner(n)]!.id,
        name: made[n]!.json.name,
        description: `made ${n}`,
        fs: bits(n) & 1 ? 1 : 0,
        ms: bits(n) & 2 ? 1 : 0,
        modifier: admins[owner(n)]!.id,
      });
    }

    /** Source n's answer to a PATCH or PUT and its row: its own members, in its own account, its security kept, the ETag its revision. */
    const expectUpdated = async (n: number, res: CallResult, members: { name: string; description: string | null; enabled: boolean; features?: string[] }) => {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json, `source ${n}`).toMatchObject({ id: ids[n], accountId: accounts[owner(n)]!.id, ...members });
      const row = await stored(n);
      expect(row, `source ${n}`).toMatchObject({
        account_id: accounts[owner(n)]!.id,
        name: members.name,
        description: members.description,
        ...(members.features && { features: JSON.stringify(members.features) }),
        enabled: members.enabled ? 1 : 0,
        fs: bits(n) & 1 ? 1 : 0,
        ms: bits(n) & 2 ? 1 : 0,
        modifier: admins[owner(n)]!.id,
      });
      expect(res.headers.get("ETag")).toBe(`"${row!.revision}"`);
    };

    // PATCH: sources 2k and 2k + 1 (of two accounts) send the same set of members (one template per set) with values of their own, one of them with If-Match.
    const reads = await Promise.all(ids.map((id, n) => call("GET", sourcePath(id), { as: adminOf(n) })));
    const shapes = [["name"], ["description"], ["enabled"], ["name", "description"], ["description", "enabled"], ["name", "description", "enabled"], [], ["name", "enabled"]];
    const valueOf = (member: string, n: number) => (member === "name" ? unique(`patched-${n}`) : member === "description" ? (n % 3 ? `patched ${n}` : null) : n % 2 === 0);
    const patches = ids.map((_, n) => Object.fromEntries(shapes[n >> 1]!.map((member) => [member, valueOf(member, n)])));
    const patched = await Promise.all(
      ids.map((id, n) => call("PATCH", sourcePath(id), { as: adminOf(n), body: patches[n], headers: n % 2 ? { "If-Match": reads[n]!.headers.get("ETag")! } : undefined })),
    );
    const expected = made.map((res, n) => ({ name: res.json.name as string, description: `made ${n}` as string | null, enabled: true, ...patches[n] }));
    for (const [n, res] of patched.entries()) await expectUpdated(n, res, expected[n]!);
    // Each source's events are its own: the security's and the PATCH's, each with its own changes (members sorted).
    const events = await Promise.all(ids.map((id, n) => call("GET", `/api/audit-events?targetId=${id}&action=source.update`, { as: adminOf(n) })));
    for (const [n, res] of events.entries()) {
      const before: Record<string, unknown> = { description: `made ${n}`, enabled: true, name: made[n]!.json.name };
      const patchChanged = Object.keys(before).filter((member) => member in patches[n]! && patches[n]![member] !== before[member]);
      const securityChanged = ["customMetricsSecurity", "fieldsSecurity"].filter((member) => (member === "fieldsSecurity" ? bits(n) & 1 : bits(n) & 2));
      // An update that changed no member has none (null).
      const changed = res.json.content.map((e: { changes: { member: string }[] | null }) => (e.changes ?? []).map((c) => c.member));
      expect(changed.map((c: string[]) => c.join()).sort(), `source ${n}`).toEqual([patchChanged.join(), securityChanged.join()].sort());
    }
    // A stale If-Match misses and changes nothing.
    const stale = await call("PATCH", sourcePath(ids[1]!), { as: adminOf(1), body: { description: "late" }, headers: { "If-Match": reads[1]!.headers.get("ETag")! } });
    expect(stale.status, stale.text).toBe(412);
    expect(await stored(1)).toMatchObject({ description: "made 1" });

    // PUT: each replaces its source's members with its own, half with If-Match; with TEXT_SEARCH or without (the facet guard).
    const bodies = ids.map((id, n) => ({ name: unique(`put-${n}`), description: n % 3 ? `put ${n}` : null, features: n % 2 ? ["TEXT_SEARCH"] : [], enabled: n % 4 !== 0 }));
    const put = await Promise.all(
      ids.map((id, n) => call("PUT", sourcePath(id), { as: adminOf(n), body: bodies[n], headers: n % 2 ? { "If-Match": patched[n]!.headers.get("ETag")! } : undefined })),
    );
    for (const [n, res] of put.entries()) await expectUpdated(n, res, bodies[n]!);

    // Another account's source is not found by any of the three, and is left as it was.
    const before = await Promise.all(ids.map((_, n) => stored(n)));
    const foreign = await Promise.all(
      ids.flatMap((id, n) => {
        const other = as(admins[(owner(n) + 1) % 4]!);
        return [
          call("PUT", `${sourcePath(id)}/security`, { as: other, body: security(n + 1) }),
          call("PATCH", sourcePath(id), { as: other, body: { name: unique("stolen") } }),
          call("PUT", sourcePath(id), { as: other, body: { name: unique("stolen") } }),
        ];
      }),
    );
    for (const res of foreign) expect(res.status, res.text).toBe(404);
    expect(await Promise.all(ids.map((_, n) => stored(n)))).toEqual(before);
  });
});
