import { AuditTrail } from "../../db/audit-trail";
import { shardOfRow } from "../../db/shards/config";
import { moveAccount, MoveError, type MoveResult } from "../../db/shards/move";
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
  const directory = shardBinding(c.env, shards.directory);
  c.get("roundTrips").count++;
  const row = await directory.prepare("SELECT name, shard FROM accounts WHERE id = ?").bind(id).first<{ name: string; shard: string | null }>();
  if (!row) throw notFound("Account");
  const from = shardOfRow(shards, row.shard);
  if (from === to) {
    // Already there; a move recorded towards it (a Worker that died after the switch) is finished below.
    const pending = await directory.prepare("SELECT from_shard FROM account_moves WHERE account_id = ? AND to_shard = ?").bind(id, to).first<{ from_shard: string }>();
    if (!pending) return c.json({ id, from, shard: to, moved: false, tables: [] }, 200);
    return runMove(c, id, row.name, pending.from_shard, to);
  }
  return runMove(c, id, row.name, from, to);
};

async function runMove(c: Parameters<typeof move>[0], id: string, name: string, from: string, to: string) {
  const { shards } = c.get("config");
  const directory = shardBinding(c.env, shards.directory);
  await claimLease(directory, id, from, to);
  let result: MoveResult;
  try {
    result = await moveAccount({ directory, directoryName: shards.directory, from: shardBinding(c.env, from), fromName: from, to: shardBinding(c.env, to), toName: to }, id);
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
    await AuditTrail.writeAlone(shardBinding(c.env, to), [{ accountId: id, action: "account.move", target: { type: "account", id, name }, changes: [{ member: "shard", before: from, after: to }] }], {
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
