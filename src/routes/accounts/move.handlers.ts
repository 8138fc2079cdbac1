import { AuditTrail } from "../../db/audit-trail";
import { shardOfRow } from "../../db/shards/config";
import { moveAccount, MoveError, type MoveResult } from "../../db/shards/move";
import type { RoundTripCounter } from "../../db/round-trips";
import { forgetPlacement, shardBinding } from "../../db/shards/routing";
import { actorOf, requestOf } from "../../lib/audit";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, invalid, notFound } from "../../lib/errors";
import type * as routes from "./accounts.routes";

/** How long a move request holds its account's move: another request may take the move over (resume it) only after. */
const LEASE_MS = 5 * 60_000;

/**
 * POST /api/accounts/{id}/move: the account's rows to another shard (db/shards/move.ts does the
 * copying, checking, switching and deleting; docs/sharding.md). This handler picks the databases,
 * holds the move's lease so that two requests never run one account's move at once, and audits it.
 */
export const move: AppRouteHandler<typeof routes.move> = async (c) => {
  const { id } = c.req.valid("param");
  const { shard: to } = c.req.valid("json");
  const { shards } = c.get("config");
  if (!shards.shards.includes(to)) throw invalid("body.shard", `Not a shard of this deployment: one of ${shards.shards.join(", ")}`);
  // One directory read: the account, and a move of it already recorded.
  const row = await c
    .get("directory")
    .$client.prepare("SELECT a.name, a.shard, m.from_shard, m.to_shard FROM accounts a LEFT JOIN account_moves m ON m.account_id = a.id WHERE a.id = ?")
    .bind(id)
    .first<{ name: string; shard: string | null; from_shard: string | null; to_shard: string | null }>();
  if (!row) throw notFound("Account");
  const from = shardOfRow(shards, row.shard);
  if (from === to) {
    // Already there; a move recorded towards it (a Worker that died after the switch) is finished below.
    if (row.to_shard !== to || row.from_shard === null) return c.json({ id, from, shard: to, moved: false, tables: [] }, 200);
    return runMove(c, id, row.name, row.from_shard, to);
  }
  return runMove(c, id, row.name, from, to);
};

async function runMove(c: Parameters<typeof move>[0], id: string, name: string, from: string, to: string) {
  const { shards } = c.get("config");
  // The engine's calls are round trips of this request too.
  const binding = (name: string) => countedBinding(shardBinding(c.env, name), c.get("roundTrips"));
  const directory = binding(shards.directory);
  await claimLease(directory, id, from, to);
  let result: MoveResult;
  try {
    result = await moveAccount({ directory, directoryName: shards.directory, from: binding(from), fromName: from, to: binding(to), toName: to }, id);
  } catch (err) {
    if (!(err instanceof MoveError)) throw err;
    if (err.code === "ACCOUNT_NOT_FOUND") throw notFound("Account");
    // The copy differed (it was aborted: the account is whole where it was), or the directory changed under the move.
    throw new ApiError("CONCURRENT_UPDATE", `The move did not complete and was undone or left to resume: ${err.message}. Send it again`);
  } finally {
    forgetPlacement(id);
  }
  if (result.moved) {
    // The move is many batches on several databases: its event is written once it is done, on the account's new shard.
    await AuditTrail.writeAlone(binding(to), [{ accountId: id, action: "account.move", target: { type: "account", id, name }, changes: [{ member: "shard", before: from, after: to }] }], {
      actor: actorOf(c),
      ...requestOf(c),
    });
  }
  return c.json({ id, from, shard: to, moved: result.moved, tables: result.tables.map(({ table, rows }) => ({ table, rows })) }, 200);
}

/**
 * Records the move (or takes over one whose lease ran out: a request that died), in one statement,
 * so that of two simultaneous requests one runs it and the other is refused: 409 ACCOUNT_MOVING.
 */
async function claimLease(directory: D1Database, id: string, from: string, to: string): Promise<void> {
  const now = new Date();
  const claimed = await directory
    .prepare(
      `INSERT INTO account_moves (account_id, from_shard, to_shard, phase, started_at, updated_at, lease_until) VALUES (?1, ?2, ?3, 'COPYING', ?4, ?4, ?5)
       ON CONFLICT (account_id) DO UPDATE SET lease_until = excluded.lease_until, updated_at = excluded.updated_at
       WHERE account_moves.lease_until <= excluded.started_at AND account_moves.to_shard = excluded.to_shard RETURNING account_id`,
    )
    .bind(id, from, to, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString())
    .first();
  if (!claimed) throw new ApiError("ACCOUNT_MOVING", "A move of this account is already running (or one to another shard was left to resume): wait for it, then send this again");
}

/** A D1 binding whose every call (a statement's first, all, run or raw; a batch) counts one round trip. */
function countedBinding(binding: D1Database, counter: RoundTripCounter): D1Database {
  // A batch takes the runtime's own statements, not the proxies.
  const inner = new WeakMap<object, D1PreparedStatement>();
  const unwrap = (statement: D1PreparedStatement) => inner.get(statement) ?? statement;
  const counted = (statement: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key === "bind") return (...values: unknown[]) => counted(target.bind(...values));
        if (key === "first" || key === "all" || key === "run" || key === "raw") counter.count++;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    inner.set(proxy, statement);
    return proxy;
  };
  return new Proxy(binding, {
    get(target, key) {
      if (key === "prepare") return (query: string) => counted(target.prepare(query));
      if (key === "batch") return (statements: D1PreparedStatement[]) => (counter.count++, target.batch(statements.map(unwrap)));
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
