import { describe, expect, it } from "vitest";
import { postgresParameters } from "./connection-helpers";
import { as, call, createAccount, createGroup, createUser, databaseOf, unique, type CallResult } from "./helpers";
import { sourcePath } from "./source-helpers";
import { createOrdersSource, createView, viewBody } from "./materialized-view-helpers";

// The writes of sources and of their import compiled once per isolate (src/db/compiled.ts): interleaved
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

  it("import a bundle into each of several accounts at once, then update each, every row with its own account's values", async () => {
    const { accounts, admins } = await adminsOfAccounts(4);
    const UPDATE = { globalLevel: { ifExists: "UPDATE", ifDoesNotExist: "CREATE" } };
    // Account i's bundle: one connection and i + 1 sources on it, each with its own fields, metrics and security.
    const tag = accounts.map((_, i) => unique(`imp-${i}`));
    const bundle = (i: number, round: number) => ({
      version: "1",
      ...(round ? { importSettings: UPDATE } : {}),
      connections: [{ id: "c", name: `conn-${tag[i]}`, connectionTypeId: "postgresql", disabled: (i + round) % 2 === 1, allParameters: postgresParameters() }],
      sources: Array.from({ length: i + 1 }, (_, s) => ({
        definition: { id: `s${s}`, name: `src-${tag[i]}-${s}`, description: `${tag[i]} ${s} round ${round}`, connectionId: "c", features: round ? ["TEXT_SEARCH"] : [] },
        fields: [price, ...(round && s % 2 ? [] : [{ name: `times_${i}_${s}`, origin: { type: "DERIVED", derivedOrigin: { expression: `price * ${i + s + round}` } } }])],
        customMetrics: [{ name: `m_${i}_${s}_${round}`, expression: "SUM(price)" }],
        security: { fieldsSecurity: { enabled: (i + round) % 2 === 0 }, customMetricsSecurity: { enabled: s % 2 === 1 } },
      })),
    });
    /** What account i's database holds of its bundle's sources, connection, items, references and grants. */
    const storedImport = async (i: number, sourceIds: string[]) => {
      const db = await databaseOf(accounts[i]!.id);
      const all = async (query: string, ...values: unknown[]) => (await db.prepare(query).bind(...values).all()).results;
      const ids = JSON.stringify(sourceIds);
      return {
        sources: await Promise.all(sourceIds.map((id) => storedSource(accounts[i]!.id, id))),
        connections: await all("SELECT id, name, disabled, connection_type_id AS type FROM connections WHERE account_id = ? ORDER BY name", accounts[i]!.id),
        items: await all(
          "SELECT source_id AS s, account_id AS a, kind, name, data_type AS type, json_extract(body, '$.origin.derivedOrigin.expression') AS expression, created_by_user_id AS creator FROM source_items WHERE source_id IN (SELECT value FROM json_each(?)) ORDER BY source_id, name",
          ids,
        ),
        references: await all("SELECT source_id AS s, account_id AS a, user_name AS user, used_name AS used FROM source_references WHERE source_id IN (SELECT value FROM json_each(?)) ORDER BY source_id, user_name", ids),
        grants: await all("SELECT source_id AS s, account_id AS a, principal_id AS p, permission FROM source_permissions WHERE source_id IN (SELECT value FROM json_each(?)) ORDER BY source_id", ids),
      };
    };
    const expectedImport = async (i: number, round: number, sourceIds: string[], connectionId: string) => {
      const b = bundle(i, round);
      const usersGroup = (await (await databaseOf(accounts[i]!.id)).prepare("SELECT id FROM groups WHERE account_id = ? AND name = 'Users'").bind(accounts[i]!.id).first<{ id: string }>("id"))!;
      const bySource = (list: Record<string, unknown>[]) => list.sort((x, y) => (`${x.s}${x.name ?? x.user}` < `${y.s}${y.name ?? y.user}` ? -1 : 1));
      return {
        sources: b.sources.map((s) => ({
          account_id: accounts[i]!.id,
          name: s.definition.name,
          description: s.definition.description,
          connection_id: connectionId,
          features: JSON.stringify(s.definition.features),
          enabled: 1,
          fs: s.security.fieldsSecurity.enabled ? 1 : 0,
          ms: s.security.customMetricsSecurity.enabled ? 1 : 0,
          owner_user_id: admins[i]!.id,
          modifier: admins[i]!.id,
          revision: expect.any(String),
        })),
        connections: [{ id: connectionId, name: b.connections[0]!.name, disabled: b.connections[0]!.disabled ? 1 : 0, type: "postgresql" }],
        items: bySource(
          b.sources.flatMap((s, n) => {
            const item = (kind: string, name: string, type: string, expression: string | null) => ({ s: sourceIds[n], a: accounts[i]!.id, kind, name, type, expression, creator: admins[i]!.id });
            return [
              item("FIELD", "price", "NUMBER", null),
              ...s.fields.slice(1).map((f) => item("FIELD", f.name, "NUMBER", (f.origin as { derivedOrigin: { expression: string } }).derivedOrigin.expression)),
              item("METRIC", s.customMetrics[0]!.name, "NUMBER", null),
              item("METRIC", "Volume", "INTEGER", null),
            ];
          }),
        ),
        references: bySource(
          b.sources.flatMap((s, n) => [
            ...s.fields.slice(1).map((f) => ({ s: sourceIds[n], a: accounts[i]!.id, user: f.name, used: "price" })),
            { s: sourceIds[n], a: accounts[i]!.id, user: s.customMetrics[0]!.name, used: "price" },
          ]),
        ),
        // enableDefaultRead on the first import of the even accounts' bundles.
        grants: i % 2 ? [] : sourceIds.map((id) => ({ s: id, a: accounts[i]!.id, p: usersGroup, permission: "READ" })).sort((x, y) => (x.s < y.s ? -1 : 1)),
      };
    };

    const created = await Promise.all(admins.map((admin, i) => call("POST", `/api/sources/import${i % 2 ? "" : "?enableDefaultRead=true"}`, { as: as(admin), body: bundle(i, 0) })));
    const sourceIds = created.map((res) => res.json.sources.map((s: { id: string }) => s.id) as string[]);
    const connectionIds = created.map((res) => res.json.connections[0].id as string);
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json.connections.map((c: { status: string }) => c.status)).toEqual(["CREATED"]);
      expect(res.json.sources.map((s: { status: string }) => s.status)).toEqual(Array(i + 1).fill("CREATED"));
      expect(await storedImport(i, sourceIds[i]!), `account ${i}`).toEqual(await expectedImport(i, 0, sourceIds[i]!, connectionIds[i]!));
    }

    // Each updated at once: the same ids, every member and item the second round's.
    const updated = await Promise.all(admins.map((admin, i) => call("POST", "/api/sources/import", { as: as(admin), body: bundle(i, 1) })));
    for (const [i, res] of updated.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(trips(res)).toBe("2");
      expect(res.json.connections.map((c: { status: string; id: string }) => [c.status, c.id])).toEqual([["UPDATED", connectionIds[i]]]);
      expect(res.json.sources.map((s: { status: string; id: string }) => [s.status, s.id])).toEqual(sourceIds[i]!.map((id) => ["UPDATED", id]));
      expect(await storedImport(i, sourceIds[i]!), `account ${i}`).toEqual(await expectedImport(i, 1, sourceIds[i]!, connectionIds[i]!));
    }

    // Each account's events: its connection's and its sources' creation, then their updates.
    const events = await Promise.all(admins.map((admin, i) => call("GET", `/api/audit-events?accountId=${accounts[i]!.id}&maxResults=100`, { as: as(admin) })));
    for (const [i, res] of events.entries()) {
      const ofImport = res.json.content.filter((e: { action: string }) => /^(source|connection)\./.test(e.action));
      const count = (action: string) => ofImport.filter((e: { action: string }) => e.action === action).map((e: { target: { id: string } }) => e.target.id).sort();
      expect(count("connection.create"), `account ${i}`).toEqual([connectionIds[i]]);
      expect(count("connection.update"), `account ${i}`).toEqual([connectionIds[i]]);
      expect(count("source.create"), `account ${i}`).toEqual([...sourceIds[i]!].sort());
      expect(count("source.update"), `account ${i}`).toEqual([...sourceIds[i]!].sort());
    }

    // Another account's imported source is not found.
    const foreign = await Promise.all(admins.map((admin, i) => call("GET", sourcePath(sourceIds[(i + 1) % 4]![0]!), { as: as(admin) })));
    for (const res of foreign) expect(res.status, res.text).toBe(404);
  });

  it("DELETE and the permissions' GET of many interleaved sources of different accounts: each its own rows, a source with a view refused listing its own account's view", async () => {
    const { accounts, admins } = await adminsOfAccounts(3);
    // Per account: a source to delete, one kept with a grant to its admin's account's reader, one under a view.
    const readers = await Promise.all(accounts.map((a) => createUser(a.id)));
    const worlds = await Promise.all(
      admins.map(async (admin, i) => {
        const [doomed, kept, viewed] = [await createOrdersSource(admin), await createOrdersSource(admin), await createOrdersSource(admin)];
        const granted = await call("PUT", `${sourcePath(kept.id)}/permissions`, { as: as(admin), body: { content: [{ principalType: "USER", principalId: readers[i]!.id, permission: "READ" }] } });
        expect(granted.status, granted.text).toBe(200);
        const view = await createView(admin, viewBody(viewed.id));
        return { admin, doomed, kept, viewed, view };
      }),
    );
    const answers = await Promise.all(
      worlds.flatMap((w) => [
        call("DELETE", sourcePath(w.doomed.id), { as: as(w.admin) }),
        call("DELETE", sourcePath(w.viewed.id), { as: as(w.admin) }),
        call("GET", `${sourcePath(w.kept.id)}/permissions`, { as: as(w.admin) }),
        // Another account's source is not found, and stays.
        call("DELETE", sourcePath(worlds[(worlds.indexOf(w) + 1) % worlds.length]!.kept.id), { as: as(w.admin) }),
      ]),
    );
    worlds.forEach((w, i) => {
      const [deleted, refused, grants, foreign] = answers.slice(i * 4, i * 4 + 4);
      expect(deleted!.status, deleted!.text).toBe(204);
      expect(refused!.status, refused!.text).toBe(400);
      expect(refused!.json.problems[0].dependencies[w.viewed.name].accessible).toEqual([{ id: w.view.id, name: w.view.name, type: "MATERIALIZED_VIEW" }]);
      expect(grants!.json.content).toEqual([{ principalType: "USER", principalId: readers[i]!.id, permission: "READ" }]);
      expect(foreign!.status).toBe(404);
    });
    for (const w of worlds) {
      expect((await call("GET", sourcePath(w.doomed.id), { as: as(w.admin) })).status).toBe(404);
      expect((await call("GET", sourcePath(w.viewed.id), { as: as(w.admin) })).status).toBe(200);
      expect((await call("GET", sourcePath(w.kept.id), { as: as(w.admin) })).status).toBe(200);
      const stored = await (await databaseOf(w.admin.accountId))
        .prepare("SELECT (SELECT count(*) FROM source_items WHERE source_id = ?1) AS items, (SELECT count(*) FROM source_permissions WHERE source_id = ?1) AS grants")
        .bind(w.doomed.id)
        .first();
      expect(stored).toEqual({ items: 0, grants: 0 });
    }
  });
  it("PUT permissions of many interleaved sources of different accounts: each source holds exactly its own grants, an unknown or foreign principal refused", async () => {
    const { accounts, admins } = await adminsOfAccounts(3);
    const worlds = await Promise.all(
      admins.map(async (admin, i) => {
        const readers = [await createUser(accounts[i]!.id), await createUser(accounts[i]!.id)];
        const group = await createGroup(accounts[i]!.id, unique("readers"));
        const [first, second] = [await createOrdersSource(admin), await createOrdersSource(admin)];
        return { admin, readers, group, first, second };
      }),
    );
    // Each source a list of its own: the first three grants, the second one (after an earlier grant it replaces).
    const grantsOf = (w: (typeof worlds)[number]) => ({
      first: [
        { principalType: "USER", principalId: w.readers[1]!.id, permission: "WRITE" },
        { principalType: "GROUP", principalId: w.group.id, permission: "READ" },
        { principalType: "USER", principalId: w.readers[0]!.id, permission: "READ" },
      ],
      second: [{ principalType: "GROUP", principalId: w.group.id, permission: "WRITE" }],
    });
    for (const w of worlds) {
      const earlier = await call("PUT", `${sourcePath(w.second.id)}/permissions`, { as: as(w.admin), body: { content: grantsOf(w).first } });
      expect(earlier.status, earlier.text).toBe(200);
    }
    const answers = await Promise.all(
      worlds.flatMap((w, i) => {
        const next = worlds[(i + 1) % worlds.length]!;
        return [
          call("PUT", `${sourcePath(w.first.id)}/permissions`, { as: as(w.admin), body: { content: grantsOf(w).first } }),
          call("PUT", `${sourcePath(w.second.id)}/permissions`, { as: as(w.admin), body: { content: grantsOf(w).second } }),
          // Another account's group is no principal of this source's account: 400, nothing written.
          call("PUT", `${sourcePath(w.first.id)}/permissions`, { as: as(w.admin), body: { content: [{ principalType: "GROUP", principalId: next.group.id, permission: "READ" }] } }),
        ];
      }),
    );
    const sortedGrants = (grants: { principalType: string; principalId: string }[]) =>
      [...grants].sort((a, b) => (a.principalType + a.principalId < b.principalType + b.principalId ? -1 : 1));
    for (const [i, w] of worlds.entries()) {
      const [first, second, foreign] = answers.slice(i * 3, i * 3 + 3);
      expect(first!.status, first!.text).toBe(200);
      expect(first!.json.content).toEqual(sortedGrants(grantsOf(w).first));
      expect(second!.status, second!.text).toBe(200);
      expect(second!.json.content).toEqual(grantsOf(w).second);
      expect(foreign!.status, foreign!.text).toBe(400);
      expect(foreign!.json.problems.map((p: { name: string }) => p.name)).toEqual(["body.content[0].principalId"]);
      const stored = async (sourceId: string) =>
        (
          await (await databaseOf(w.admin.accountId))
            .prepare("SELECT account_id AS accountId, principal_type AS principalType, principal_id AS principalId, permission FROM source_permissions WHERE source_id = ? ORDER BY principal_type, principal_id")
            .bind(sourceId)
            .all()
        ).results;
      expect(await stored(w.first.id)).toEqual(sortedGrants(grantsOf(w).first).map((g) => ({ accountId: w.admin.accountId, ...g })));
      expect(await stored(w.second.id)).toEqual(grantsOf(w).second.map((g) => ({ accountId: w.admin.accountId, ...g })));
      const read = await call("GET", `${sourcePath(w.first.id)}/permissions`, { as: as(w.admin) });
      expect(read.json.content).toEqual(sortedGrants(grantsOf(w).first));
      // No grant at all is a list too: the source's grants all removed.
      const none = await call("PUT", `${sourcePath(w.second.id)}/permissions`, { as: as(w.admin), body: { content: [] } });
      expect(none.status, none.text).toBe(200);
      expect(await stored(w.second.id)).toEqual([]);
    }
  });
});
