import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { abortMove, moveAccount, MoveError, type MoveTarget } from "../../../src/db/shards/move";
import { PREVIEW } from "../folder-helpers";
import { applicationTables, as, call, createAccount, createGroup, createUser, unique, type CallResult, type TestUser } from "../helpers";
import { createClient, pushToken } from "../trusted-access-helpers";

/**
 * The move engine (src/db/shards/move.ts) on two real local D1 databases: DB (the directory and the
 * first shard) and SHARD_2. The Worker does not route to SHARD_2 yet, so every account is made
 * through the API on DB, then moved by the engine, and its rows are read directly on both.
 */
const DB_TO_SHARD_2: MoveTarget = { directory: env.DB, directoryName: "DB", from: env.DB, fromName: "DB", to: env.SHARD_2, toName: "SHARD_2" };
const SHARD_2_TO_DB: MoveTarget = { directory: env.DB, directoryName: "DB", from: env.SHARD_2, fromName: "SHARD_2", to: env.DB, toName: "DB" };

/**
 * The directory's account-owned tables: they stay on DB whatever the move (src/db/shards/roles.ts).
 * access_tokens is not one: a token lives with its user on the account's shard and moves with it.
 */
/** The directory's tables with an account_id: they never move. */
const DIRECTORY_TABLES = ["connection_type_accounts", "account_moves", "user_names"];
/** Copied to every shard by their writes (db/shards/directory-copies.ts), whatever the account's shard: a move leaves them as they are. */
const COPIED_EVERYWHERE = ["connection_type_accounts"];

const RECEIVER = inject("connectorServers").webhookReceiverUrl;

const ok = (res: CallResult, what: string) => {
  expect([200, 201, 204], `${what}: ${res.status} ${res.text.slice(0, 400)}`).toContain(res.status);
  return res.json;
};

// ------------------------------------------------------------------ an account with a row in every table

interface Rich {
  account: { id: string; name: string };
  admin: TestUser;
}

/** An account with rows in every table that holds accounts' rows, made through the API (webhook deliveries and marks by SQL: the consumer makes them). */
async function makeRichAccount(): Promise<Rich> {
  // On DB, the directory's own database: the moves below start there.
  let account = await createAccount(unique("Movable"));
  while ((await env.DB.prepare("SELECT shard FROM accounts WHERE id = ?").bind(account.id).first("shard")) !== null) account = await createAccount(unique("Movable"));
  const analysts = await createGroup(account.id, unique("Analysts"), ["ROLE_CREATE_SOURCES"]);
  const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  const member = await createUser(account.id, { groups: ["Users", analysts.name] });
  const by = { as: as(admin) };
  ok(await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 50 }, { type: "CONNECTION", limit: 7 }] } }), "quota");

  // A connection of a custom type, which lives in the directory: the target needs its copy.
  const type = ok(await call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: unique("Warehouse type") } }), "connection type");
  ok(await call("PUT", `/api/connection/types/${type.id}/accounts`, { body: [account.id] }), "type's accounts");
  const parameters = [{ key: "host", value: "127.0.0.1" }, { key: "port", value: "5432" }, { key: "database", value: "analytics" }, { key: "user", value: "reader" }, { key: "password", value: "s3cret" }];
  const connection = ok(await call("POST", "/api/connections", { ...by, body: { name: unique("Warehouse"), connectionTypeId: type.id, allParameters: parameters } }), "connection");

  const calendar = ok(await call("POST", "/api/calendars", { ...by, body: { type: "MONTH_SHIFT", name: unique("Fiscal"), monthShift: 3 } }), "calendar");
  // Over CHUNK_MAX_BYTES (1 MB), so two chunk rows; multi-byte characters throughout.
  const rows = Array.from({ length: 9000 }, (_, i) => ({ i, name: `Umsätze 販売 🚀 ${i}`, pad: "it's ".repeat(20) }));
  ok(await call("POST", "/api/json-datasets", { ...by, body: { name: unique("Sales"), description: "big", data: { rows } } }), "dataset");

  const native = (name: string, originalType: string) => ({ name, origin: { type: "NATIVE", nativeOrigin: { originalName: name, originalType, dataEntityId: "public.rows" } } });
  const source = ok(
    await call("POST", "/api/sources", { ...by, body: { name: unique("Orders"), connectionId: connection.id, fields: [native("n0", "INT"), native("a0", "VARCHAR"), native("a1", "VARCHAR")] } }),
    "source",
  );
  const path = `/api/sources/${source.id}`;
  ok(await call("POST", `${path}/fields`, { ...by, body: { name: "d0", origin: { type: "DERIVED", derivedOrigin: { expression: "n0 * 2", calendarId: calendar.id } } } }), "derived field");
  ok(await call("PUT", `${path}/custom-metrics/m0`, { ...by, body: { expression: "sum(n0)", label: "Chiffre d'affaires" } }), "custom metric");
  ok(
    await call("PUT", `${path}/permissions`, {
      ...by,
      body: { content: [{ principalType: "USER", principalId: admin.id, permission: "WRITE" }, { principalType: "USER", principalId: member.id, permission: "READ" }, { principalType: "GROUP", principalId: analysts.id, permission: "READ" }] },
    }),
    "source permissions",
  );
  ok(
    await call("POST", "/api/materialized-views", {
      ...by,
      body: { name: unique("Rollup"), enabled: true, definition: { type: "AGG", sourceId: source.id, aggregations: [{ type: "TERMS", field: { name: "a0" } }], metrics: [{ type: "SUM", field: { name: "n0" } }] } },
    }),
    "materialized view",
  );

  // Folders three deep, with grants, filed items and the admin's expanded state.
  const folders = (method: string, p: string, body: unknown) => call(method, p, { ...by, body, headers: PREVIEW });
  const root = ok(await folders("POST", "/api/folders", { folder_name: unique("Board"), content_type: "DASHBOARDS" }), "root folder");
  const child = ok(await folders("POST", "/api/folders", { folder_name: "Übersicht", parent_id: root.id }), "child folder");
  const grandchild = ok(await folders("POST", "/api/folders", { folder_name: "概要", parent_id: child.id }), "grandchild folder");
  ok(await folders("PUT", `/api/folders/${child.id}/permissions`, { content: [{ principalType: "USER", principalId: member.id, permissions: ["READ"] }, { principalType: "GROUP", principalId: analysts.id, permissions: ["READ", "WRITE"] }] }), "folder ACL");
  ok(await folders("PUT", `/api/folders/${grandchild.id}/items/DASHBOARD/item-1`, { name: "Revenue board" }), "folder item");
  ok(await folders("PUT", "/api/folders/tree-state", { folder_ids: [root.id, child.id] }), "tree state");

  // A user pushed by a trusted-access client: its attributes, and a bearer token (in the directory).
  const client = await createClient();
  ok(await pushToken(client.credentials, { username: unique("pushed"), account: account.name, groups: ["Users"], attributes: [{ key: "region", values: ["emea"] }] }), "pushed user");

  // A subscription (disabled: no delivery is attempted during the test), and what the consumer writes for it.
  const hook = ok(await call("POST", "/api/webhooks", { ...by, body: { url: `${RECEIVER}/hooks/move`, events: ["*"], enabled: false } }), "webhook");
  const events = (await env.DB.prepare("SELECT id FROM audit_events WHERE account_id = ? ORDER BY id LIMIT 3").bind(account.id).all<{ id: string }>()).results;
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, last_status, outcome, created_at, updated_at) VALUES (?, ?, ?, 1, 200, 'DELIVERED', ?, ?)").bind(crypto.randomUUID(), hook.id, events[0]!.id, now, now),
    env.DB.prepare("INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, last_error, next_attempt_at, outcome, created_at, updated_at) VALUES (?, ?, ?, 2, 'time-out', ?, 'PENDING', ?, ?)").bind(crypto.randomUUID(), hook.id, events[1]!.id, now, now, now),
    env.DB.prepare("INSERT INTO webhook_dispatched (event_id) VALUES (?), (?)").bind(events[0]!.id, events[1]!.id),
  ]);
  return { account, admin };
}

// ------------------------------------------------------------------ reading an account's rows directly

type Dump = Record<string, Record<string, unknown>[]>;

/** Ids that name an account's deliveries and dispatch marks after its events and subscriptions have left a database. */
interface Known {
  events: string[];
  webhooks: string[];
}

/**
 * Every row of the account on `db`, table by table, ordered by all their columns (so two databases
 * holding the same rows answer the same, whatever their rowids): the tables with an account_id,
 * the account row, and the deliveries and dispatch marks of its subscriptions and events.
 */
async function dumpAccount(db: D1Database, accountId: string, known?: Known): Promise<Dump> {
  const dump: Dump = {};
  for (const table of await applicationTables()) {
    const columns = (await db.prepare(`PRAGMA table_info("${table}")`).all<{ name: string }>()).results.map((c) => c.name);
    const params: unknown[] = [accountId];
    let where: string | undefined;
    if (table === "accounts") where = `"id" = ?1`;
    else if (table === "webhook_deliveries") where = known ? `"webhook_id" IN (SELECT value FROM json_each(?2))` : `"webhook_id" IN (SELECT "id" FROM "webhooks" WHERE "account_id" = ?1)`;
    else if (table === "webhook_dispatched") where = known ? `"event_id" IN (SELECT value FROM json_each(?2))` : `"event_id" IN (SELECT "id" FROM "audit_events" WHERE "account_id" = ?1)`;
    else if (columns.includes("account_id")) where = `"account_id" = ?1`;
    if (!where) continue;
    if (known && table === "webhook_deliveries") params.push(JSON.stringify(known.webhooks));
    if (known && table === "webhook_dispatched") params.push(JSON.stringify(known.events));
    const order = columns.map((_, i) => i + 1).join(", ");
    dump[table] = (await db.prepare(`SELECT * FROM "${table}" WHERE ${where} ORDER BY ${order}`).bind(...params).all<Record<string, unknown>>()).results;
  }
  return dump;
}

const knownOf = (dump: Dump): Known => ({ events: dump.audit_events!.map((e) => e.id as string), webhooks: dump.webhooks!.map((w) => w.id as string) });
const isEmpty = (dump: Dump) => Object.fromEntries(Object.entries(dump).map(([table, rows]) => [table, rows.length]));
const noRows = (dump: Dump) => Object.fromEntries(Object.keys(dump).map((table) => [table, 0]));
const only = (dump: Dump, tables: string[]) => Object.fromEntries(Object.entries(dump).filter(([t]) => tables.includes(t)));
const except = (dump: Dump, tables: string[]) => Object.fromEntries(Object.entries(dump).filter(([t]) => !tables.includes(t)));

const moveRow = (accountId: string) => env.DB.prepare("SELECT from_shard, to_shard, phase FROM account_moves WHERE account_id = ?").bind(accountId).first();
const accountRow = (db: D1Database, accountId: string) => db.prepare("SELECT shard, moving FROM accounts WHERE id = ?").bind(accountId).first();

/** The account's rows are on `where` as `before` (its shard column aside) and nowhere else; the directory's tables stay on DB. */
async function expectAccountOn(where: "DB" | "SHARD_2", accountId: string, before: Dump) {
  const known = knownOf(before);
  const [onDb, onShard] = await Promise.all([dumpAccount(env.DB, accountId, known), dumpAccount(env.SHARD_2, accountId, known)]);
  const account = before.accounts![0]!;
  // The directory's row names the account's database; the directory's own tables never move.
  expect(onDb.accounts).toStrictEqual([{ ...account, shard: where === "DB" ? null : "SHARD_2", moving: 0 }]);
  expect(only(onDb, DIRECTORY_TABLES)).toStrictEqual(only(before, DIRECTORY_TABLES));
  const directoryOnly = DIRECTORY_TABLES.filter((t) => !COPIED_EVERYWHERE.includes(t));
  expect(isEmpty(only(onShard, directoryOnly))).toStrictEqual(noRows(only(onShard, directoryOnly)));
  // The copies on SHARD_2 are the directory's lists, before and after any move.
  expect(only(onShard, COPIED_EVERYWHERE)).toStrictEqual(only(before, COPIED_EVERYWHERE));
  const moved = except(before, [...DIRECTORY_TABLES, "accounts"]);
  const [here, there] = where === "DB" ? [onDb, onShard] : [onShard, onDb];
  expect(except(here, [...DIRECTORY_TABLES, "accounts"])).toStrictEqual(moved);
  expect(isEmpty(except(there, [...DIRECTORY_TABLES, "accounts"]))).toStrictEqual(noRows(moved));
  // SHARD_2's copy of the account row: while the account lives there, the same row (shard is the directory's alone); none once it left.
  expect(onShard.accounts).toStrictEqual(where === "SHARD_2" ? [{ ...account, shard: null, moving: 0 }] : []);
  expect(await moveRow(accountId)).toBeNull();
}

// ------------------------------------------------------------------ the tests

describe("moving an account between two databases", () => {
  let rich: Rich;
  let other: Rich;
  let before: Dump;
  let otherBefore: Dump;

  beforeAll(async () => {
    rich = await makeRichAccount();
    other = await makeRichAccount();
    before = await dumpAccount(env.DB, rich.account.id);
    otherBefore = await dumpAccount(env.DB, other.account.id);
  }, 120_000);

  it("the account made through the API has rows in every table that moves, and in the directory's it can", () => {
    const empty = Object.entries(except(before, DIRECTORY_TABLES)).filter(([, rows]) => rows.length === 0);
    expect(empty.map(([table]) => table)).toStrictEqual([]);
    // user_names: the Worker does not write it yet (docs/sharding.md, step 4); account_moves: only during a move.
    expect(before.access_tokens!.length * before.connection_type_accounts!.length).toBeGreaterThan(0);
    expect(before.json_dataset_chunks!.length).toBeGreaterThan(1);
  });

  it("DB -> SHARD_2: every row on SHARD_2 as it was, none left on DB but the directory's; the other account untouched", async () => {
    const result = await moveAccount(DB_TO_SHARD_2, rich.account.id, { batchStatements: 20 });
    expect(result.moved).toBe(true);
    const checked = Object.fromEntries(result.tables.map((t) => [t.table, t.rows]));
    for (const [table, rows] of Object.entries(except(before, DIRECTORY_TABLES))) expect(checked[table], table).toBe(rows.length);
    expect(result.tables.filter((t) => !t.compared).map((t) => t.table).sort()).toStrictEqual(["webhook_deliveries", "webhook_dispatched"]);

    await expectAccountOn("SHARD_2", rich.account.id, before);
    // The custom connection type the account's connection names was copied to SHARD_2.
    const typeId = before.connections![0]!.connection_type_id as string;
    expect(await env.SHARD_2.prepare("SELECT count(*) AS n FROM connection_types WHERE id = ?").bind(typeId).first("n")).toBe(1);
    // The pushed user's bearer token moved with it; its client's stub was on SHARD_2 since the client was made (db/shards/clients.ts).
    expect(before.access_tokens!.length).toBeGreaterThan(0);
    const clientId = before.access_tokens![0]!.client_id as string;
    expect(await env.SHARD_2.prepare("SELECT count(*) AS n FROM trusted_access_clients WHERE client_id = ?").bind(clientId).first("n")).toBe(1);

    expect(await dumpAccount(env.DB, other.account.id)).toStrictEqual(otherBefore);
    expect(isEmpty(except(await dumpAccount(env.SHARD_2, other.account.id), COPIED_EVERYWHERE))).toStrictEqual(noRows(except(otherBefore, COPIED_EVERYWHERE)));
  });

  it("a move to the database the account is on is a no-op", async () => {
    const snapshot = [await dumpAccount(env.DB, rich.account.id), await dumpAccount(env.SHARD_2, rich.account.id)];
    expect(await moveAccount(DB_TO_SHARD_2, rich.account.id)).toStrictEqual({ moved: false, tables: [] });
    const stay: MoveTarget = { ...SHARD_2_TO_DB, to: env.SHARD_2, toName: "SHARD_2" };
    expect(await moveAccount(stay, rich.account.id)).toStrictEqual({ moved: false, tables: [] });
    expect([await dumpAccount(env.DB, rich.account.id), await dumpAccount(env.SHARD_2, rich.account.id)]).toStrictEqual(snapshot);
  });

  it("SHARD_2 -> DB: back as it was, SHARD_2's copy of the account gone", async () => {
    const result = await moveAccount(SHARD_2_TO_DB, rich.account.id, { pageRows: 7 });
    expect(result.moved).toBe(true);
    await expectAccountOn("DB", rich.account.id, before);
    expect(await dumpAccount(env.DB, other.account.id)).toStrictEqual(otherBefore);
  });

  it("a move from a database the account is not on is refused", async () => {
    await expect(moveAccount(SHARD_2_TO_DB, other.account.id)).resolves.toStrictEqual({ moved: false, tables: [] });
    const wrong: MoveTarget = { ...DB_TO_SHARD_2, from: env.SHARD_2, fromName: "SHARD_2", to: env.SHARD_2, toName: "SHARD_2" };
    await expect(moveAccount(wrong, other.account.id)).rejects.toMatchObject({ code: "WRONG_SOURCE" });
    await expect(moveAccount(DB_TO_SHARD_2, "no-such-account")).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    expect(await dumpAccount(env.DB, other.account.id)).toStrictEqual(otherBefore);
  });
});

describe("a move that dies", () => {
  let rich: Rich;
  let before: Dump;

  beforeAll(async () => {
    rich = await makeRichAccount();
    before = await dumpAccount(env.DB, rich.account.id);
  }, 120_000);

  it("killed while copying: the account whole on DB, the move COPYING; run again (and killed again), it completes", async () => {
    const options = { batchStatements: 5, batchBytes: 1_500_000 };
    await expect(moveAccount(DB_TO_SHARD_2, rich.account.id, { ...options, failAfterBatches: 4 })).rejects.toThrow(/failAfterBatches/);
    expect(await moveRow(rich.account.id)).toStrictEqual({ from_shard: "DB", to_shard: "SHARD_2", phase: "COPYING" });
    expect(await accountRow(env.DB, rich.account.id)).toStrictEqual({ shard: null, moving: 1 });
    expect(except(await dumpAccount(env.DB, rich.account.id), ["accounts", "account_moves"])).toStrictEqual(except(before, ["accounts", "account_moves"]));
    const partial = await dumpAccount(env.SHARD_2, rich.account.id);
    expect(Object.values(partial).some((rows) => rows.length > 0)).toBe(true);

    // A move elsewhere is refused while this one is recorded.
    await expect(moveAccount(SHARD_2_TO_DB, rich.account.id)).rejects.toMatchObject({ code: "MOVE_CONFLICT", message: expect.stringContaining("from DB to SHARD_2") });

    // Resumed, and killed further on: the partial copy is deleted first, so nothing is copied twice.
    await expect(moveAccount(DB_TO_SHARD_2, rich.account.id, { ...options, failAfterBatches: 25 })).rejects.toThrow(/failAfterBatches/);
    expect(except(await dumpAccount(env.DB, rich.account.id), ["accounts", "account_moves"])).toStrictEqual(except(before, ["accounts", "account_moves"]));

    const result = await moveAccount(DB_TO_SHARD_2, rich.account.id, options);
    expect(result.moved).toBe(true);
    await expectAccountOn("SHARD_2", rich.account.id, before);
  }, 60_000);

  it("killed after the switch: the directory names the target; run again, the old rows go", async () => {
    await expect(
      moveAccount(SHARD_2_TO_DB, rich.account.id, {
        afterSwitch: async () => {
          throw new Error("died after the switch");
        },
      }),
    ).rejects.toThrow("died after the switch");
    expect(await moveRow(rich.account.id)).toStrictEqual({ from_shard: "SHARD_2", to_shard: "DB", phase: "SWITCHED" });
    expect(await accountRow(env.DB, rich.account.id)).toStrictEqual({ shard: null, moving: 0 });
    // Both hold the rows until the move finishes.
    expect(except(await dumpAccount(env.SHARD_2, rich.account.id), ["accounts", ...DIRECTORY_TABLES])).toStrictEqual(except(before, ["accounts", ...DIRECTORY_TABLES]));
    await expect(abortMove(SHARD_2_TO_DB, rich.account.id)).rejects.toMatchObject({ code: "ALREADY_SWITCHED" });

    expect(await moveAccount(SHARD_2_TO_DB, rich.account.id)).toStrictEqual({ moved: true, tables: [] });
    await expectAccountOn("DB", rich.account.id, before);
  });

  it("abortMove undoes a move that died while copying", async () => {
    await expect(moveAccount(DB_TO_SHARD_2, rich.account.id, { failAfterBatches: 3, batchStatements: 4 })).rejects.toThrow(/failAfterBatches/);
    expect(await abortMove(DB_TO_SHARD_2, rich.account.id)).toBe(true);
    await expectAccountOn("DB", rich.account.id, before);
    expect(await abortMove(DB_TO_SHARD_2, rich.account.id)).toBe(false);
  });
});

describe("D1's limits", () => {
  /** What a D1 binding was asked: each batch, and each statement run alone (a batch of one). */
  type Statement = { sql: string; values: unknown[] };
  function recordingD1(db: D1Database, log: Statement[][]): D1Database {
    const seen = new WeakMap<D1PreparedStatement, Statement>();
    const track = (stmt: D1PreparedStatement, statement: Statement): D1PreparedStatement => {
      seen.set(stmt, statement);
      const bind = stmt.bind.bind(stmt);
      stmt.bind = (...values: unknown[]) => track(bind(...values), { sql: statement.sql, values });
      for (const method of ["all", "run", "first", "raw"] as const) {
        const original = (stmt[method] as (...args: unknown[]) => unknown).bind(stmt);
        (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => (log.push([statement]), original(...args));
      }
      return stmt;
    };
    return new Proxy(db, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => track(target.prepare(sql), { sql, values: [] });
        if (prop === "batch") return (list: D1PreparedStatement[]) => (log.push(list.map((s) => seen.get(s)!)), target.batch(list));
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
  const utf8 = (text: string) => new TextEncoder().encode(text).length;
  const bytesOf = (values: unknown[]) => values.reduce<number>((n, v) => n + (typeof v === "string" ? utf8(v) : 8), 0);

  it("every statement of a move, both ways, within 100 bound values and 100 KB of SQL; each copy batch within its statements and bytes", async () => {
    const rich = await makeRichAccount();
    const log: Statement[][] = [];
    const [db, shard2] = [recordingD1(env.DB, log), recordingD1(env.SHARD_2, log)];
    const options = { batchStatements: 10, batchBytes: 1_200_000 };
    await moveAccount({ directory: db, directoryName: "DB", from: db, fromName: "DB", to: shard2, toName: "SHARD_2" }, rich.account.id, options);
    await moveAccount({ directory: db, directoryName: "DB", from: shard2, fromName: "SHARD_2", to: db, toName: "DB" }, rich.account.id, options);
    const statements = log.flat();
    expect(statements.length).toBeGreaterThan(100);
    for (const { sql, values } of statements) {
      expect(values.length, sql).toBeLessThanOrEqual(100);
      expect(utf8(sql), sql).toBeLessThanOrEqual(100_000);
      for (const v of values) if (typeof v === "string") expect(utf8(v)).toBeLessThanOrEqual(2_000_000);
    }
    const copies = log.filter((batch) => batch.some((s) => s.sql.startsWith("INSERT INTO")));
    expect(copies.some((batch) => batch.some((s) => s.sql.includes("json_dataset_chunks")))).toBe(true);
    for (const batch of copies) {
      expect(batch.length).toBeLessThanOrEqual(options.batchStatements);
      if (batch.length > 1) expect(bytesOf(batch.flatMap((s) => s.values))).toBeLessThanOrEqual(options.batchBytes);
    }
  }, 120_000);
});

describe("verification", () => {
  let rich: Rich;
  let before: Dump;

  beforeAll(async () => {
    rich = await makeRichAccount();
    before = await dumpAccount(env.DB, rich.account.id);
  }, 120_000);

  it("a row changed on the target between copy and verification: the move aborts, naming the table; the account stays whole on DB", async () => {
    const error = await moveAccount(DB_TO_SHARD_2, rich.account.id, {
      beforeVerify: async () => {
        await env.SHARD_2.prepare("UPDATE folders SET description = 'tampered' WHERE account_id = ? AND parent_id IS NOT NULL").bind(rich.account.id).run();
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MoveError);
    expect(error).toMatchObject({ code: "VERIFY_MISMATCH", mismatch: { table: "folders" } });
    await expectAccountOn("DB", rich.account.id, before);
  });

  it("a row written on the source after it was copied (a write past the guard): the move aborts", async () => {
    const error = await moveAccount(DB_TO_SHARD_2, rich.account.id, {
      beforeVerify: async () => {
        await env.DB.prepare("UPDATE json_dataset_chunks SET data = data || ' ' WHERE account_id = ? AND seq = 1").bind(rich.account.id).run();
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VERIFY_MISMATCH", mismatch: { table: "json_dataset_chunks" } });
    const changed = await dumpAccount(env.DB, rich.account.id);
    expect(changed.json_dataset_chunks).not.toStrictEqual(before.json_dataset_chunks);
    await expectAccountOn("DB", rich.account.id, { ...before, json_dataset_chunks: changed.json_dataset_chunks! });
  });

  it("a delivery the webhook consumer adds on the source during the copy is not a mismatch: it is carried over after the switch", async () => {
    const [event] = before.audit_events!.slice(-1);
    const webhookId = before.webhooks![0]!.id as string;
    const now = new Date().toISOString();
    const result = await moveAccount(DB_TO_SHARD_2, rich.account.id, {
      beforeVerify: async () => {
        await env.DB.batch([
          env.DB.prepare("INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, outcome, created_at, updated_at) VALUES ('late-delivery', ?, ?, 0, 'PENDING', ?, ?)").bind(webhookId, event!.id, now, now),
          env.DB.prepare("INSERT INTO webhook_dispatched (event_id) VALUES (?)").bind(event!.id),
        ]);
      },
    });
    expect(result.moved).toBe(true);
    const onShard = await dumpAccount(env.SHARD_2, rich.account.id);
    expect(onShard.webhook_deliveries!.map((d) => d.id)).toContain("late-delivery");
    expect(onShard.webhook_dispatched!.map((d) => d.event_id)).toContain(event!.id);
    expect(isEmpty(await dumpAccount(env.DB, rich.account.id, knownOf(before))).webhook_deliveries).toBe(0);
  });
});
