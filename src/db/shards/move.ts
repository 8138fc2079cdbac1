import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { CHUNK_MAX_BYTES } from "../json-datasets";
import { accounts, auditEvents, connections, connectionTypes, folders, jsonDatasetChunks, webhookDeliveries, webhookDispatched, webhooks } from "../schema";
import { SHARD_TABLES } from "./roles";

/**
 * Moving one account's rows from one database to another (issue 21, docs/sharding.md, step 6).
 * Plain SQL on the D1 bindings (prepare and batch); the Drizzle tables only give names.
 *
 * Phases, each idempotent, so that a Worker dying anywhere leaves the account whole on one database
 * and calling `moveAccount` again with the same databases resumes:
 *
 * 1. Begin: the directory's `account_moves` row (phase COPYING), then `moving = 1` on the source's
 *    copy of the account row (every write batch of the account guards on it: 409 ACCOUNT_MOVING).
 * 2. Copy: whatever the target already holds of the account is deleted first (a partial copy of an
 *    earlier attempt), then the account row, then every table of the account, parents before children
 *    (`COPY_ORDER`), in key order, a page of rows read from the source and written to the target as
 *    one INSERT per row with bound values, in D1 batches of at most `batchStatements` statements and
 *    about `batchBytes` bytes of bound values.
 * 3. Verify: each table's row count and ordered digest (SHA-256 over the rows in key order, each value
 *    with its SQLite storage class) read again on both databases. A difference aborts the move
 *    (`abortMove`) and throws a `MoveError` (VERIFY_MISMATCH) naming the table.
 * 4. Switch: one directory batch sets `accounts.shard` (NULL when the target is the directory's own
 *    database) and the phase SWITCHED. From here the account lives on the target.
 * 5. Delete the account's rows from the source, children first (after carrying over the webhook
 *    rows the consumer wrote meanwhile: WRITTEN_OUTSIDE_THE_ACCOUNT); then the source's copy of the
 *    account row (the directory's own row is kept when the source is the directory: `moving` is
 *    cleared there), then the `account_moves` row. A SWITCHED move that is resumed does only this.
 *
 * D1's limits: a statement binds at most 100 values and holds at most 100 KB of SQL (an INSERT of
 * one row with bound values, a few hundred bytes: checked when the plans are built; folders, the
 * widest, has 19 columns), a value at most 2 MB (a JSON dataset's chunk is at most CHUNK_MAX_BYTES).
 *
 * Not done here: the account's requests are not yet refused while `moving` is set (the write batches'
 * guard), nor routed to the new database after the switch (docs/sharding.md, steps 2 and 6); the
 * caller (the future POST /api/accounts/{id}/move) must not run two moves of one account at once.
 * Known gap: access_tokens.user_id is still a foreign key to users ON DELETE CASCADE (drizzle/0006),
 * so when the source is the directory's database, deleting the account's users there deletes the
 * account's bearer tokens, which the directory should keep; that key must go (docs/sharding.md).
 */

/** The databases of a move: bindings and their names as DIRECTORY and SHARDS name them. */
export interface MoveTarget {
  directory: D1Database;
  directoryName: string;
  from: D1Database;
  fromName: string;
  to: D1Database;
  toName: string;
}

export interface MoveOptions {
  /** Statements per D1 batch, copying and deleting (default 50). */
  batchStatements?: number;
  /** Bound bytes per copy batch, about (default 4 MB; a batch holds at least one row). */
  batchBytes?: number;
  /** Rows read per page of a table (default 100; json_dataset_chunks: as many chunks as batchBytes holds). */
  pageRows?: number;
  /** Test hook: throws after this many copy batches were written to the target, as a Worker that dies. */
  failAfterBatches?: number;
  /** Test hook: runs between the copy and the verification (to change a row on either side). */
  beforeVerify?: () => Promise<void>;
  /** Test hook: runs right after the switch (throw from it, as a Worker that dies before deleting the old rows). */
  afterSwitch?: () => Promise<void>;
}

export interface TableCheck {
  table: string;
  /** The account's rows in the table, on the target after the copy. */
  rows: number;
  /** SHA-256 (hex) of those rows in key order. */
  digest: string;
  /** false: copied, but not compared (rows the webhook consumer writes at any time: see WRITTEN_OUTSIDE_THE_ACCOUNT). */
  compared: boolean;
}

export interface MoveResult {
  /** false: the account was already on the target (nothing done). */
  moved: boolean;
  /** The checks of the copy; empty when nothing was copied (no-op, or a resumed move that had already switched). */
  tables: TableCheck[];
}

export type MoveErrorCode = "ACCOUNT_NOT_FOUND" | "MOVE_CONFLICT" | "WRONG_SOURCE" | "SOURCE_WITHOUT_ACCOUNT" | "VERIFY_MISMATCH" | "ALREADY_SWITCHED";

export class MoveError extends Error {
  constructor(
    readonly code: MoveErrorCode,
    message: string,
    /** VERIFY_MISMATCH: the first table that differed, and both sides' counts and digests. */
    readonly mismatch?: { table: string; source: { rows: number; digest: string }; target: { rows: number; digest: string } },
  ) {
    super(message);
    this.name = "MoveError";
  }
}

// ------------------------------------------------------------------ the tables, as plans

/**
 * One table's share of an account. `where` selects the account's rows with ?1 the account id; `key`
 * is unique and NOT NULL, the order of the copy and of the digest.
 */
interface TablePlan {
  table: string;
  columns: string[];
  key: string[];
  where: string;
  insert: string;
  pageRows: (options: Required<Pick<MoveOptions, "pageRows" | "batchBytes">>) => number;
  compared: boolean;
}

/**
 * The webhook Queue's consumer and cron (src/webhooks/consumer.ts) write these on the database after
 * the requests, outside any of the account's batches, so the `moving` guard does not stop them: a
 * fan-out adds deliveries and dispatch marks, an attempt updates its delivery, the sweep deletes old
 * marks. A difference found there would be no corruption but a race, and aborting for it could keep
 * a busy account from ever moving. So they are copied last (the shortest window), not compared, and
 * copied again after the switch (`catchUp`), before the source's rows go: marks with INSERT OR
 * IGNORE, deliveries by upsert where the source's row is newer (`updated_at`, ISO 8601, the consumer
 * sets it on every change). A delivery the consumer writes on the source between that catch-up and
 * the delete is lost; its event is then carried again by the target's sweep if it is past the
 * target's watermark, and a receiver sees a delivery at least once anyway.
 *
 * The consumer also writes `webhooks` (failure count, disabling) and `audit_events` (the disabling's
 * event). Those are compared: a subscription disabled during the copy fails the verification (the
 * move aborts and can run again); one disabled between the verification and the switch keeps its
 * earlier state on the target.
 */
const WRITTEN_OUTSIDE_THE_ACCOUNT: readonly SQLiteTable[] = [webhookDeliveries, webhookDispatched];

const nameOf = (table: SQLiteTable) => getTableConfig(table).name;
const q = (name: string) => `"${name}"`;

/** The primary key's columns (folders: the materialized path, see below). */
function keyOf(table: SQLiteTable): string[] {
  const config = getTableConfig(table);
  // A folder's parent must be inserted before it (folders.parent_id is a foreign key, checked per
  // statement): a parent's path is a prefix of its children's, so path order is parents first. The
  // path is unique and NOT NULL, so it is a key like the primary key.
  if (table === folders) return [folders.materializedPath.name];
  const composite = config.primaryKeys[0]?.columns.map((c) => c.name);
  const single = config.columns.filter((c) => c.primary).map((c) => c.name);
  const key = composite ?? single;
  if (key.length === 0) throw new Error(`${config.name} has no primary key to copy it in order`);
  return key;
}

/** D1 refuses a statement with more than 100 bound parameters or 100,000 bytes of SQL. */
const D1_MAX_PARAMETERS = 100;
const D1_MAX_SQL_BYTES = 100_000;

function planOf(table: SQLiteTable, where: string, insert?: (columns: string[]) => string): TablePlan {
  const config = getTableConfig(table);
  const columns = config.columns.map((c) => c.name);
  const sql = insert?.(columns) ?? `INSERT INTO ${q(config.name)} (${columns.map(q).join(", ")}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(", ")})`;
  if (columns.length > D1_MAX_PARAMETERS || sql.length > D1_MAX_SQL_BYTES) throw new Error(`${config.name}: a row's INSERT passes D1's limits`);
  return {
    table: config.name,
    columns,
    key: keyOf(table),
    where,
    insert: sql,
    // A chunk holds up to CHUNK_MAX_BYTES: read as many as a batch holds. Other rows are small
    // (a request body is at most MAX_BODY_BYTES, 1 MB, and most rows are a few hundred bytes).
    pageRows: (o) => (table === jsonDatasetChunks ? Math.max(1, Math.floor(o.batchBytes / CHUNK_MAX_BYTES)) : o.pageRows),
    compared: !WRITTEN_OUTSIDE_THE_ACCOUNT.includes(table),
  };
}

const OF_ACCOUNT = `"account_id" = ?1`;

/**
 * Every table holding the account's rows, parents before children: the shard tables in the reverse
 * of ACCOUNT_OWNED_TABLES (children before parents), then the split tables' rows of the account
 * (its events and subscriptions, their deliveries and dispatch marks). The directory's tables
 * (access_tokens, connection_type_accounts, user_names, account_moves) stay where they are.
 *
 * The target's triggers (drizzle/0010) refuse a source, folder or grant naming a user missing from
 * its account: users come before sources, folders, source_permissions and folder_acl. Foreign keys
 * are checked per statement: each parent table comes before its children, folders in path order.
 */
const COPY_ORDER: readonly TablePlan[] = [
  ...[...SHARD_TABLES].reverse().map((t) => planOf(t, OF_ACCOUNT)),
  planOf(auditEvents, OF_ACCOUNT),
  planOf(webhooks, OF_ACCOUNT),
  planOf(
    webhookDeliveries,
    `"webhook_id" IN (SELECT "id" FROM "webhooks" WHERE "account_id" = ?1)`,
    (columns) =>
      `INSERT INTO "webhook_deliveries" (${columns.map(q).join(", ")}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(", ")}) ` +
      `ON CONFLICT ("id") DO UPDATE SET ${columns.filter((c) => c !== "id").map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")} WHERE excluded."updated_at" > "webhook_deliveries"."updated_at" ` +
      // The target's consumer made its own delivery of the event meanwhile: that one stays.
      `ON CONFLICT DO NOTHING`,
  ),
  planOf(webhookDispatched, `"event_id" IN (SELECT "id" FROM "audit_events" WHERE "account_id" = ?1)`, (columns) => `INSERT OR IGNORE INTO "webhook_dispatched" (${columns.map(q).join(", ")}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(", ")})`),
];

/** Children first: the order of every delete (the partial copy of a restarted move, the old rows). */
const DELETE_ORDER: readonly TablePlan[] = [...COPY_ORDER].reverse();

const CAUGHT_UP: readonly TablePlan[] = COPY_ORDER.filter((p) => !p.compared);

/**
 * The account row: the directory's row, which the API reads and writes (a shard's copy is written
 * after it, so it is never newer). `shard` is the directory's alone: never written to the target
 * (when the target is the directory, its row IS the entry); `moving` is 0 on the target.
 */
const ACCOUNT_COLUMNS = getTableConfig(accounts).columns.map((c) => c.name).filter((c) => c !== accounts.shard.name && c !== accounts.moving.name);
const ACCOUNT_PLAN: TablePlan = {
  table: "accounts",
  columns: ACCOUNT_COLUMNS,
  key: ["id"],
  where: `"id" = ?1`,
  insert:
    `INSERT INTO "accounts" (${ACCOUNT_COLUMNS.map(q).join(", ")}, "moving") VALUES (${ACCOUNT_COLUMNS.map((_, i) => `?${i + 1}`).join(", ")}, 0) ` +
    `ON CONFLICT ("id") DO UPDATE SET ${ACCOUNT_COLUMNS.filter((c) => c !== "id").map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")}, "moving" = 0`,
  pageRows: () => 1,
  compared: true,
};

// ------------------------------------------------------------------ reading in key order

interface Budget {
  statements: number;
  bytes: number;
  pageRows: number;
  failAfterBatches: number | undefined;
  sent: number;
}

/** One page of the account's rows of a table, in key order, after `after` (the last page's last key). */
async function readPage(db: D1Database, plan: TablePlan, select: string, accountId: string, after: unknown[] | undefined, limit: number, extra?: { where: string; value: unknown }) {
  const params: unknown[] = [accountId];
  let where = `(${plan.where})`;
  if (extra) {
    params.push(extra.value);
    where += ` AND (${extra.where.replace("?", `?${params.length}`)})`;
  }
  if (after) {
    const first = params.length + 1;
    where += ` AND (${plan.key.map(q).join(", ")}) > (${plan.key.map((_, i) => `?${first + i}`).join(", ")})`;
    params.push(...after);
  }
  const sql = `SELECT ${select} FROM ${q(plan.table)} WHERE ${where} ORDER BY ${plan.key.map(q).join(", ")} LIMIT ${limit}`;
  return (await db.prepare(sql).bind(...params).all<Record<string, unknown>>()).results;
}

/** D1 answers a BLOB as an ArrayBuffer or (older runtimes) an array of byte values. */
function bytesOf(value: unknown): Uint8Array | undefined {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  return undefined;
}

const bindable = (value: unknown) => bytesOf(value) ?? value;

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) (n += 4), i++;
    else n += 3;
  }
  return n;
}

const sizeOf = (value: unknown) => (typeof value === "string" ? utf8Length(value) : value instanceof Uint8Array ? value.byteLength : 8);

// ------------------------------------------------------------------ copy

/** Copies the account's rows of one table (or those `extra` selects), in key order, in batches within the budget. */
async function copyTable(src: D1Database, dst: D1Database, plan: TablePlan, accountId: string, budget: Budget, extra?: { where: string; value: unknown }): Promise<number> {
  const limit = plan.pageRows({ pageRows: budget.pageRows, batchBytes: budget.bytes });
  const select = plan.columns.map(q).join(", ");
  let after: unknown[] | undefined;
  let rows = 0;
  for (;;) {
    const page = await readPage(src, plan, select, accountId, after, limit, extra);
    let batch: D1PreparedStatement[] = [];
    let bytes = 0;
    for (const row of page) {
      const values = plan.columns.map((c) => bindable(row[c]));
      const size = values.reduce<number>((sum, v) => sum + sizeOf(v), 0);
      if (batch.length > 0 && (batch.length >= budget.statements || bytes + size > budget.bytes)) {
        await sendCopy(dst, batch, budget);
        batch = [];
        bytes = 0;
      }
      batch.push(dst.prepare(plan.insert).bind(...values));
      bytes += size;
    }
    if (batch.length > 0) await sendCopy(dst, batch, budget);
    rows += page.length;
    if (page.length < limit) return rows;
    const last = page[page.length - 1]!;
    after = plan.key.map((k) => last[k]);
  }
}

async function sendCopy(dst: D1Database, batch: D1PreparedStatement[], budget: Budget) {
  await dst.batch(batch);
  budget.sent++;
  if (budget.failAfterBatches !== undefined && budget.sent >= budget.failAfterBatches) {
    throw new Error(`move interrupted after ${budget.sent} copy batches (test hook failAfterBatches)`);
  }
}

/**
 * A custom connection type lives in the directory (roles.ts), and connections.connection_type_id is
 * a foreign key: the target needs the types the account's connections name. Each database keeps
 * copies of the connection types (docs/sharding.md, step 3); a copy the target already has is kept.
 */
async function copyConnectionTypes(src: D1Database, dst: D1Database, accountId: string) {
  const columns = getTableConfig(connectionTypes).columns.map((c) => c.name);
  const types = await src
    .prepare(`SELECT ${columns.map(q).join(", ")} FROM "connection_types" WHERE "id" IN (SELECT "connection_type_id" FROM ${q(nameOf(connections))} WHERE "account_id" = ?1) ORDER BY "id"`)
    .bind(accountId)
    .all<Record<string, unknown>>();
  if (types.results.length === 0) return;
  const insert = `INSERT INTO "connection_types" (${columns.map(q).join(", ")}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(", ")}) ON CONFLICT ("id") DO NOTHING`;
  await dst.batch(types.results.map((row) => dst.prepare(insert).bind(...columns.map((c) => bindable(row[c])))));
}

// ------------------------------------------------------------------ digest

const encoder = new TextEncoder();

/** One value with its storage class, unambiguous whatever it holds: `t<len>:text`, `i5`, `r1.5`, `n`, `b<hex>`. */
function serialize(type: unknown, value: unknown): string {
  switch (type) {
    case "null":
      return "n";
    case "integer":
      return `i${String(value)}`;
    case "real":
      return `r${String(value)}`;
    case "text": {
      const text = String(value);
      return `t${text.length}:${text}`;
    }
    case "blob": {
      const bytes = bytesOf(value) ?? new Uint8Array();
      return `b${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    }
    default:
      throw new Error(`unknown SQLite type ${String(type)}`);
  }
}

/** Row count and SHA-256 of the account's rows of a table, in key order. */
async function digestTable(db: D1Database, plan: TablePlan, accountId: string, pageRows: number, batchBytes: number): Promise<{ rows: number; digest: string }> {
  const limit = plan.pageRows({ pageRows, batchBytes });
  const select = plan.columns.map((c, i) => `typeof(${q(c)}) AS "t${i}", ${q(c)} AS "v${i}"`).join(", ");
  const keyIndex = plan.key.map((k) => plan.columns.indexOf(k));
  const stream = new crypto.DigestStream("SHA-256");
  const writer = stream.getWriter();
  let after: unknown[] | undefined;
  let rows = 0;
  for (;;) {
    const page = await readPage(db, plan, select, accountId, after, limit);
    if (page.length > 0) await writer.write(encoder.encode(page.map((row) => plan.columns.map((_, i) => serialize(row[`t${i}`], row[`v${i}`])).join(",") + "\n").join("")));
    rows += page.length;
    if (page.length < limit) break;
    const last = page[page.length - 1]!;
    after = keyIndex.map((i) => last[`v${i}`]);
  }
  await writer.close();
  const digest = Array.from(new Uint8Array(await stream.digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return { rows, digest };
}

// ------------------------------------------------------------------ delete

/** Rows per DELETE statement (chunks: fewer, each frees up to a megabyte of pages). */
const DELETE_ROWS = 500;
const DELETE_CHUNKS = 20;

/**
 * Deletes the account's rows of every table, children first, in batches: each table's rows are
 * counted, then deleted by statements of at most DELETE_ROWS rows (keys in reverse order, so that a
 * folder goes before its parent), and counted again until none is left (the consumer may add
 * deliveries meanwhile). The account row is not touched.
 */
async function deleteAccountRows(db: D1Database, accountId: string, statementsPerBatch: number) {
  for (;;) {
    const counts = await db.batch<{ n: number }>(DELETE_ORDER.map((p) => db.prepare(`SELECT count(*) AS n FROM ${q(p.table)} WHERE ${p.where}`).bind(accountId)));
    const pending = DELETE_ORDER.map((plan, i) => ({ plan, rows: counts[i]!.results[0]!.n })).filter((t) => t.rows > 0);
    if (pending.length === 0) return;
    const statements: D1PreparedStatement[] = [];
    for (const { plan, rows } of pending) {
      const per = plan.table === nameOf(jsonDatasetChunks) ? DELETE_CHUNKS : DELETE_ROWS;
      const sql =
        rows <= per
          ? `DELETE FROM ${q(plan.table)} WHERE ${plan.where}`
          : `DELETE FROM ${q(plan.table)} WHERE rowid IN (SELECT rowid FROM ${q(plan.table)} WHERE ${plan.where} ORDER BY ${plan.key.map((k) => `${q(k)} DESC`).join(", ")} LIMIT ${per})`;
      for (let done = 0; done < rows; done += per) statements.push(db.prepare(sql).bind(accountId));
    }
    for (let i = 0; i < statements.length; i += statementsPerBatch) await db.batch(statements.slice(i, i + statementsPerBatch));
  }
}

// ------------------------------------------------------------------ the move

interface MoveRow {
  account_id: string;
  from_shard: string;
  to_shard: string;
  phase: "COPYING" | "SWITCHED";
  started_at: string;
  updated_at: string;
}

const locationOf = (dbs: MoveTarget, shard: string | null) => shard ?? dbs.directoryName;

async function readState(dbs: MoveTarget, accountId: string) {
  const [account, move] = await dbs.directory.batch([
    dbs.directory.prepare(`SELECT "shard" FROM "accounts" WHERE "id" = ?1`).bind(accountId),
    dbs.directory.prepare(`SELECT * FROM "account_moves" WHERE "account_id" = ?1`).bind(accountId),
  ]);
  const row = account!.results[0] as { shard: string | null } | undefined;
  return { location: row ? locationOf(dbs, row.shard) : undefined, move: move!.results[0] as MoveRow | undefined };
}

function checkSameMove(dbs: MoveTarget, accountId: string, move: MoveRow) {
  if (move.from_shard !== dbs.fromName || move.to_shard !== dbs.toName) {
    throw new MoveError("MOVE_CONFLICT", `Account ${accountId} is being moved from ${move.from_shard} to ${move.to_shard} (phase ${move.phase}); finish or abort that move first`);
  }
}

/**
 * Moves the account's rows from `dbs.from` to `dbs.to` (see the top of this file), or resumes the
 * move recorded in `account_moves` for the same two databases. Answers `moved: false` when the
 * account is already on the target. Throws a MoveError when the account is unknown, on another
 * database than `from`, being moved elsewhere, or when the verification failed (the move was then
 * aborted); any other error (D1 unreachable, a Worker limit) leaves the move recorded, to resume or abort.
 */
export async function moveAccount(dbs: MoveTarget, accountId: string, options: MoveOptions = {}): Promise<MoveResult> {
  const budget: Budget = {
    statements: options.batchStatements ?? 50,
    bytes: options.batchBytes ?? 4_000_000,
    pageRows: options.pageRows ?? 100,
    failAfterBatches: options.failAfterBatches,
    sent: 0,
  };
  const { location, move } = await readState(dbs, accountId);
  if (location === undefined) throw new MoveError("ACCOUNT_NOT_FOUND", `No account ${accountId} in the directory`);
  if (dbs.fromName === dbs.toName) {
    if (location === dbs.toName && !move) return { moved: false, tables: [] };
    throw new MoveError("WRONG_SOURCE", `Account ${accountId} is on ${location}${move ? `, being moved to ${move.to_shard}` : ""}`);
  }
  if (move) {
    checkSameMove(dbs, accountId, move);
    if (move.phase === "SWITCHED") {
      await finish(dbs, accountId, move, budget);
      return { moved: true, tables: [] };
    }
  } else {
    if (location === dbs.toName) return { moved: false, tables: [] };
    if (location !== dbs.fromName) throw new MoveError("WRONG_SOURCE", `Account ${accountId} is on ${location}, not on ${dbs.fromName}`);
  }
  if (location !== dbs.fromName) throw new MoveError("WRONG_SOURCE", `Account ${accountId} is on ${location} while its move from ${dbs.fromName} is still copying`);
  if (!move && !(await dbs.from.prepare(`SELECT 1 FROM "accounts" WHERE "id" = ?1`).bind(accountId).first())) {
    throw new MoveError("SOURCE_WITHOUT_ACCOUNT", `${dbs.fromName} holds no copy of account ${accountId}`);
  }
  const started = move ?? (await record(dbs, accountId));
  await raiseMoving(dbs, accountId);

  // Copy: the target's leftovers of an earlier attempt first (the account row stays: it is upserted).
  await deleteAccountRows(dbs.to, accountId, budget.statements);
  await copyTable(dbs.directory, dbs.to, ACCOUNT_PLAN, accountId, budget);
  for (const plan of COPY_ORDER) {
    if (plan.table === nameOf(connections)) await copyConnectionTypes(dbs.from, dbs.to, accountId);
    await copyTable(dbs.from, dbs.to, plan, accountId, budget);
  }
  await options.beforeVerify?.();

  // Verify: both sides read again, table by table.
  const tables: TableCheck[] = [];
  for (const [plan, source] of [[ACCOUNT_PLAN, dbs.directory] as const, ...COPY_ORDER.map((p) => [p, dbs.from] as const)]) {
    const [mine, theirs] = await Promise.all([digestTable(source, plan, accountId, budget.pageRows, budget.bytes), digestTable(dbs.to, plan, accountId, budget.pageRows, budget.bytes)]);
    if (plan.compared && (mine.rows !== theirs.rows || mine.digest !== theirs.digest)) {
      await abortMove(dbs, accountId, options);
      throw new MoveError("VERIFY_MISMATCH", `Moving account ${accountId}: ${plan.table} differs (${mine.rows} rows on ${dbs.fromName}, ${theirs.rows} on ${dbs.toName}); the move was aborted`, {
        table: plan.table,
        source: mine,
        target: theirs,
      });
    }
    tables.push({ table: plan.table, rows: theirs.rows, digest: theirs.digest, compared: plan.compared });
  }

  // Switch: the directory names the target (NULL: the directory's own database).
  const now = new Date().toISOString();
  const [, switched] = await dbs.directory.batch([
    dbs.directory
      .prepare(`UPDATE "accounts" SET "shard" = ?2 WHERE "id" = ?1 AND EXISTS (SELECT 1 FROM "account_moves" WHERE "account_id" = ?1 AND "to_shard" = ?3 AND "phase" = 'COPYING')`)
      .bind(accountId, dbs.toName === dbs.directoryName ? null : dbs.toName, dbs.toName),
    dbs.directory.prepare(`UPDATE "account_moves" SET "phase" = 'SWITCHED', "updated_at" = ?2 WHERE "account_id" = ?1 AND "to_shard" = ?3 AND "phase" = 'COPYING'`).bind(accountId, now, dbs.toName),
  ]);
  if (switched!.meta.changes !== 1) throw new MoveError("MOVE_CONFLICT", `The move of account ${accountId} was aborted or changed while it copied`);
  await options.afterSwitch?.();
  await finish(dbs, accountId, { ...started, phase: "SWITCHED", updated_at: now }, budget);
  return { moved: true, tables };
}

/** Records the move in the directory (COPYING). */
async function record(dbs: MoveTarget, accountId: string): Promise<MoveRow> {
  const now = new Date().toISOString();
  const [, recorded] = await dbs.directory.batch([
    dbs.directory
      .prepare(`INSERT INTO "account_moves" ("account_id", "from_shard", "to_shard", "phase", "started_at", "updated_at", "lease_until") VALUES (?1, ?2, ?3, 'COPYING', ?4, ?4, ?4) ON CONFLICT ("account_id") DO NOTHING`)
      .bind(accountId, dbs.fromName, dbs.toName, now),
    dbs.directory.prepare(`SELECT * FROM "account_moves" WHERE "account_id" = ?1`).bind(accountId),
  ]);
  // Another move of the account was recorded between our read and this insert.
  const move = recorded!.results[0] as MoveRow;
  checkSameMove(dbs, accountId, move);
  if (move.phase !== "COPYING") throw new MoveError("MOVE_CONFLICT", `The move of account ${accountId} switched meanwhile`);
  return move;
}

/** Raises the `moving` flag of the source's copy of the account (again, on a resumed move: a Worker may have died before). */
async function raiseMoving(dbs: MoveTarget, accountId: string) {
  const flagged = await dbs.from.prepare(`UPDATE "accounts" SET "moving" = 1 WHERE "id" = ?1`).bind(accountId).run();
  if (flagged.meta.changes !== 1) throw new MoveError("SOURCE_WITHOUT_ACCOUNT", `${dbs.fromName} holds no copy of account ${accountId}`);
}

/** After the switch: the webhook tables' late rows, then the old rows, then the move's record. */
async function finish(dbs: MoveTarget, accountId: string, move: MoveRow, budget: Budget) {
  // Rows the consumer changed on the source since the copy (WRITTEN_OUTSIDE_THE_ACCOUNT): those
  // changed since a little before the move began, whatever the clocks of the Workers that wrote them.
  const since = new Date(Date.parse(move.started_at) - 10 * 60_000).toISOString();
  for (const plan of CAUGHT_UP) {
    const extra = plan.table === nameOf(webhookDeliveries) ? { where: `"updated_at" >= ?`, value: since } : undefined;
    await copyTable(dbs.from, dbs.to, plan, accountId, { ...budget, failAfterBatches: undefined }, extra);
  }
  await deleteAccountRows(dbs.from, accountId, budget.statements);
  if (dbs.fromName === dbs.directoryName) {
    // The directory's own row stays (it is the account's entry, now naming the target).
    await dbs.directory.batch([
      dbs.directory.prepare(`UPDATE "accounts" SET "moving" = 0 WHERE "id" = ?1`).bind(accountId),
      dbs.directory.prepare(`DELETE FROM "account_moves" WHERE "account_id" = ?1 AND "phase" = 'SWITCHED'`).bind(accountId),
    ]);
  } else {
    await dbs.from.prepare(`DELETE FROM "accounts" WHERE "id" = ?1`).bind(accountId).run();
    await dbs.directory.prepare(`DELETE FROM "account_moves" WHERE "account_id" = ?1 AND "phase" = 'SWITCHED'`).bind(accountId).run();
  }
}

/**
 * Undoes a move that has not switched: deletes the target's copy (its copy of the account row too,
 * unless the target is the directory, whose row is the account's entry), clears `moving` on the
 * source, then deletes the move's record; each step idempotent, so a Worker dying here is followed
 * by calling it again. Answers false when no move of the account is recorded. Throws a MoveError for
 * a move between other databases, or one that has switched (it can only be finished: moveAccount).
 */
export async function abortMove(dbs: MoveTarget, accountId: string, options: Pick<MoveOptions, "batchStatements"> = {}): Promise<boolean> {
  const { location, move } = await readState(dbs, accountId);
  if (!move) return false;
  checkSameMove(dbs, accountId, move);
  if (move.phase === "SWITCHED") throw new MoveError("ALREADY_SWITCHED", `The move of account ${accountId} to ${move.to_shard} has switched: resume it to finish`);
  // Never delete the rows of the database the account lives on.
  if (location !== dbs.fromName || dbs.fromName === dbs.toName) throw new MoveError("WRONG_SOURCE", `Account ${accountId} is on ${location}, not on ${dbs.fromName}: its move's record is inconsistent`);
  await deleteAccountRows(dbs.to, accountId, options.batchStatements ?? 50);
  if (dbs.toName !== dbs.directoryName) await dbs.to.prepare(`DELETE FROM "accounts" WHERE "id" = ?1`).bind(accountId).run();
  await dbs.from.prepare(`UPDATE "accounts" SET "moving" = 0 WHERE "id" = ?1`).bind(accountId).run();
  await dbs.directory.prepare(`DELETE FROM "account_moves" WHERE "account_id" = ?1 AND "phase" = 'COPYING'`).bind(accountId).run();
  return true;
}
