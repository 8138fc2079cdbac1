import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, databases, unique, type TestUser } from "./helpers";

// The statements of connection types and of quota writes, compiled once per isolate (src/db/compiled.ts):
// many requests of different accounts, types and values, interleaved, each read and write their own rows.
type Account = { id: string; admin: TestUser };
const accounts: Account[] = [];

beforeAll(async () => {
  const created = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
  const admins = await Promise.all(created.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
  created.forEach((a, i) => accounts.push({ id: a.id, admin: admins[i]! }));
  // Each admin signs in first (a cold sign-in reads the user: a round trip of its own).
  for (const { admin } of accounts) await call("GET", "/api/user", { as: as(admin) });
});

const ids = (res: { json: { content: { id: string }[] } }) => res.json.content.map((t) => t.id);

/** A type's row and list on every database: over several, the shards' copies are the directory's (DB), or all are gone. */
async function expectEverywhere(id: string, present: boolean) {
  const states = await Promise.all(
    databases().map(async ([, database]) => {
      const row = await database.prepare("SELECT * FROM connection_types WHERE id = ?").bind(id).first();
      const listed = await database.prepare("SELECT account_id FROM connection_type_accounts WHERE type_id = ? ORDER BY account_id").bind(id).all();
      return row ? { row, accounts: listed.results } : null;
    }),
  );
  expect(states[0] === null).toBe(!present);
  states.forEach((state) => expect(state).toEqual(states[0]));
}

describe("connection types compiled once per isolate", () => {
  it("create, list for, read and write each of many interleaved types with its own values, accounts and readers", async () => {
    // Type i: its own name, description, version and parameters (5 + i); enabled for even i.
    const bodies = accounts.map((_, i) => ({
      connectorId: "postgresql",
      name: unique(`Compiled ${i}`),
      description: i % 2 ? null : `Description ${i}`,
      enabled: i % 2 === 0,
      minSupportedVersion: `${i}.0`,
      parameters: [
        { key: "host", valueType: "STRING", required: true },
        { key: "port", valueType: "INTEGER", required: i % 2 === 0 },
        { key: "database", valueType: "STRING", required: true },
        { key: "user", valueType: "STRING", required: true },
        { key: "password", valueType: "PASSWORD", required: true },
        ...Array.from({ length: i }, (_, n) => ({ key: `extra${n}`, valueType: "STRING", required: false })),
      ],
    }));
    const created = await Promise.all(bodies.map((body) => call("POST", "/api/connection/types", { body })));
    created.forEach((res, i) => {
      expect(res.status, res.text).toBe(201);
      expect(res.json).toMatchObject({ name: bodies[i]!.name, description: bodies[i]!.description, enabled: i % 2 === 0, minSupportedVersion: `${i}.0` });
      expect(res.json.parameters).toHaveLength(5 + i);
    });
    const types = created.map((res) => res.json as { id: string; name: string });

    // Account lists of different lengths: type i lists account i (and type 3 account 0 too).
    const lists = types.map((_, i) => (i === 3 ? [accounts[3]!.id, accounts[0]!.id] : [accounts[i]!.id]));
    // A type no one has, asked for in between: 404 each time.
    const missing = crypto.randomUUID();
    const put = await Promise.all([...types.map((t, i) => call("PUT", `/api/connection/types/${t.id}/accounts`, { body: lists[i] })), call("PUT", `/api/connection/types/${missing}/accounts`, { body: [accounts[0]!.id] })]);
    put.slice(0, 4).forEach((res, i) => expect(res.json).toEqual([...lists[i]!].sort()));
    expect(put[4]!.status).toBe(404);
    expect(put[4]!.json.message).toBe("Connection type not found");
    // Each list's audit event names its own type and accounts.
    const events = await Promise.all(types.map((t) => call("GET", `/api/audit-events?targetId=${t.id}&action=connection-type.update`)));
    events.forEach((res, i) => {
      expect(res.json.content.map((e: { target: { name: string } }) => e.target.name)).toEqual([types[i]!.name]);
      expect(res.json.content[0].changes).toEqual([{ member: "accounts", before: [], after: [...lists[i]!].sort() }]);
    });
    const listed = await Promise.all([...types.map((t) => call("GET", `/api/connection/types/${t.id}/accounts`)), call("GET", `/api/connection/types/${missing}/accounts`)]);
    listed.slice(0, 4).forEach((res, i) => expect(res.json).toEqual([...lists[i]!].sort()));
    expect(listed[4]!.status).toBe(404);
    for (const t of types) await expectEverywhere(t.id, true);
    // Each list gave its type a new revision.
    const current = await Promise.all(types.map((t) => call("GET", `/api/connection/types/${t.id}`)));
    current.forEach((res, i) => {
      expect(res.json).toEqual({ ...created[i]!.json, lastModifiedDate: res.json.lastModifiedDate });
      expect(res.headers.get("ETag")).not.toBe(created[i]!.headers.get("ETag"));
    });

    // Each admin reads its own type by id and by name, and not the others' (404, or absent from a list).
    const own = await Promise.all(accounts.map((a, i) => call("GET", `/api/connection/types/${types[i]!.id}`, { as: as(a.admin) })));
    own.forEach((res, i) => expect(res.json).toEqual(current[i]!.json));
    // Account i asks for type i + 3: only account 0 may use it (type 3 lists it).
    const others = await Promise.all(accounts.map((a, i) => call("GET", `/api/connection/types/${types[(i + 3) % 4]!.id}`, { as: as(a.admin) })));
    expect(others.map((res) => res.status)).toEqual([200, 404, 404, 404]);
    const byName = await Promise.all(
      accounts.flatMap((a, i) => [
        call("GET", `/api/connection/types?name=${encodeURIComponent(types[i]!.name)}`, { as: as(a.admin) }),
        call("GET", `/api/connection/types?name=${encodeURIComponent(types[(i + 2) % 4]!.name)}`, { as: as(a.admin) }),
        call("GET", `/api/connection/types?name=${encodeURIComponent(types[i]!.name)}&enabled=${i % 2 === 0}`, { as: as(a.admin) }),
        call("GET", `/api/connection/types?name=${encodeURIComponent(types[i]!.name)}&enabled=${i % 2 !== 0}`, { as: as(a.admin) }),
      ]),
    );
    accounts.forEach((_, i) => {
      const [mine, theirs, sameEnabled, otherEnabled] = byName.slice(4 * i, 4 * i + 4);
      expect(ids(mine!)).toEqual([types[i]!.id]);
      expect(ids(theirs!)).toEqual([]);
      expect(ids(sameEnabled!)).toEqual([types[i]!.id]);
      expect(ids(otherEnabled!)).toEqual([]);
    });
    // The supervisor reads every type, its filters each request's own.
    const supervisor = await Promise.all(types.map((t, i) => call("GET", `/api/connection/types?name=${encodeURIComponent(t.name)}&enabled=${i % 2 === 0}`)));
    supervisor.forEach((res, i) => expect(ids(res)).toEqual([types[i]!.id]));

    // Replaced (PUT) and patched at once, half with If-Match: each lands on its own type.
    const replaced = await Promise.all(
      types.map((t, i) =>
        i % 2
          ? call("PATCH", `/api/connection/types/${t.id}`, { body: { description: `Patched ${i}`, enabled: true }, headers: { "If-Match": current[i]!.headers.get("ETag")! } })
          : call("PUT", `/api/connection/types/${t.id}`, { body: { ...bodies[i], id: t.id, description: `Replaced ${i}`, maxSupportedVersion: `${i}.9` } }),
      ),
    );
    replaced.forEach((res) => expect(res.status, res.text).toBe(200));
    const read = await Promise.all(types.map((t) => call("GET", `/api/connection/types/${t.id}`)));
    read.forEach((res, i) => {
      expect(res.json).toEqual(replaced[i]!.json);
      expect(res.headers.get("ETag")).toBe(replaced[i]!.headers.get("ETag"));
      expect(res.json).toMatchObject(
        i % 2
          ? { description: `Patched ${i}`, enabled: true, minSupportedVersion: `${i}.0`, maxSupportedVersion: null }
          : { description: `Replaced ${i}`, enabled: true, minSupportedVersion: `${i}.0`, maxSupportedVersion: `${i}.9` },
      );
      expect(res.json.parameters).toHaveLength(5 + i);
    });
    for (const t of types) await expectEverywhere(t.id, true);
    // A stale If-Match misses, leaving the type as it was.
    const stale = await call("PUT", `/api/connection/types/${types[1]!.id}`, { body: { ...bodies[1], id: types[1]!.id, description: "stale" }, headers: { "If-Match": created[1]!.headers.get("ETag")! } });
    expect(stale.status).toBe(412);
    expect((await call("GET", `/api/connection/types/${types[1]!.id}`)).json.description).toBe("Patched 1");

    // Deleted at once, half with If-Match; a stale If-Match first misses.
    expect((await call("DELETE", `/api/connection/types/${types[0]!.id}`, { headers: { "If-Match": created[0]!.headers.get("ETag")! } })).status).toBe(412);
    const deleted = await Promise.all(
      types.slice(0, 3).map((t, i) => call("DELETE", `/api/connection/types/${t.id}`, { headers: i % 2 ? { "If-Match": replaced[i]!.headers.get("ETag")! } : {} })),
    );
    deleted.forEach((res) => expect(res.status, res.text).toBe(204));
    const after = await Promise.all(types.map((t) => call("GET", `/api/connection/types/${t.id}`)));
    expect(after.map((res) => res.status)).toEqual([404, 404, 404, 200]);
    expect((await call("GET", `/api/connection/types/${types[3]!.id}/accounts`)).json).toEqual([...lists[3]!].sort());
    for (const [i, t] of types.entries()) await expectEverywhere(t.id, i === 3);
  });

  it("let each of many interleaved new types take the name another type gave up, on every database", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, (_, i) => call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: unique(`Held ${i}`) } })));
    // As if each rename had not reached the shards yet: only the directory (DB) has the new name.
    for (const res of held) await env.DB.prepare("UPDATE connection_types SET name = ? WHERE id = ?").bind(unique("Moved"), res.json.id).run();
    const takers = await Promise.all(held.map((res) => call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: res.json.name } })));
    takers.forEach((res, i) => expect(res.json.name, res.text).toBe(held[i]!.json.name));
    // On every other database, each held copy gave up its own name for one of its own.
    for (const [binding, database] of databases().filter(([binding]) => binding !== "DB")) {
      for (const res of held) {
        const copy = await database.prepare("SELECT name FROM connection_types WHERE id = ?").bind(res.json.id).first<string>("name");
        expect(copy, binding).toBe(`${res.json.name} (${res.json.id})`);
      }
    }
    for (const res of takers) await expectEverywhere(res.json.id, true);
    for (const res of [...held, ...takers]) expect((await call("DELETE", `/api/connection/types/${res.json.id}`)).status).toBe(204);
  });
});

describe("quota writes compiled once per isolate", () => {
  it("store each of many interleaved quotas with its own lines, update and delete each on its own account", async () => {
    const lines = (i: number, base: number) =>
      (["SOURCE", "CONNECTION", "FILE_SIZE", "DASHBOARD"] as const).slice(0, i + 1).map((type, n) => ({ type, limit: base + 10 * i + n }));
    const put = (i: number, base: number, headers: Record<string, string> = {}) =>
      call("PUT", "/api/quota", { body: { accountId: accounts[i]!.id, quotas: lines(i, base) }, headers });
    const created = await Promise.all(accounts.map((_, i) => put(i, 100)));
    created.forEach((res, i) => {
      expect(res.status, res.text).toBe(201);
      expect(res.json.accountId).toBe(accounts[i]!.id);
    });
    // Updated at once, half with If-Match, each with its own lines.
    const updated = await Promise.all(accounts.map((_, i) => put(i, 200, i % 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : {})));
    updated.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.accountId).toBe(accounts[i]!.id);
      expect(res.json.quotas.map((q: { type: string; limit: number }) => ({ type: q.type, limit: q.limit })).sort(byType)).toEqual(lines(i, 200).sort(byType));
    });
    // The rows stored: each account's own lines, no other's.
    for (const [i, account] of accounts.entries()) {
      const { results } = await (await databaseOf(account.id)).prepare("SELECT type, limit_value AS \"limit\" FROM quota_limits WHERE account_id = ? ORDER BY type").bind(account.id).all();
      expect(results).toEqual(lines(i, 200).sort(byType));
    }
    // A stale If-Match misses.
    expect((await put(1, 300, { "If-Match": created[1]!.headers.get("ETag")! })).status).toBe(412);

    // Half deleted at once (one with If-Match); the others keep their quota.
    const deleted = await Promise.all(
      [0, 2].map((i) => call("DELETE", `/api/quota/${accounts[i]!.id}`, { headers: i === 2 ? { "If-Match": updated[i]!.headers.get("ETag")! } : {} })),
    );
    deleted.forEach((res) => expect(res.status, res.text).toBe(204));
    const read = await Promise.all(accounts.map((a) => call("GET", `/api/quota/${a.id}`, { as: as(a.admin) })));
    expect(read.map((res) => res.status)).toEqual([404, 200, 404, 200]);
    [1, 3].forEach((i) => expect(read[i]!.json).toEqual(updated[i]!.json));
  });
});

const byType = (a: { type: string }, b: { type: string }) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
