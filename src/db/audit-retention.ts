import { eventIdFloor } from "../domain/audit/event-id";
import type { Bindings } from "../lib/types";
import { everyDatabase } from "./shards/databases";

/** Events deleted per statement: a bounded write, well inside D1's limits on one statement's work. */
export const PRUNE_CHUNK = 1000;
/** Chunks per run: a run's work is bounded; the next run (hourly) takes the rest. */
export const PRUNE_MAX_CHUNKS = 50;

export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export function retentionDays(raw: string | undefined): number {
  const days = Number(raw);
  return Number.isInteger(days) && days > 0 ? days : DEFAULT_AUDIT_RETENTION_DAYS;
}

/**
 * Deletes audit events older than `days`, oldest first, PRUNE_CHUNK at a time (one round trip each)
 * until none is left or PRUNE_MAX_CHUNKS ran. Ids are time-sortable, so "older" is a primary-key range.
 * Answers how many it deleted.
 */
export async function pruneAuditEvents(d1: D1Database, days: number, now = Date.now()): Promise<number> {
  const cutoff = eventIdFloor(now - days * 86_400_000);
  const prune = d1.prepare("DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE id < ? ORDER BY id LIMIT ?)");
  let total = 0;
  for (let chunk = 0; chunk < PRUNE_MAX_CHUNKS; chunk++) {
    const { meta } = await prune.bind(cutoff, PRUNE_CHUNK).run();
    total += meta.changes;
    if (meta.changes < PRUNE_CHUNK) break;
  }
  return total;
}

/**
 * The retention Cron Trigger's prune of every database DIRECTORY and SHARDS name, each once (an
 * account's events on its shard, the events outside any account in the directory: docs/sharding.md),
 * one after the other, each bounded as above. Answers how many it deleted on each.
 */
export async function pruneEveryDatabase(env: Bindings, days: number, now = Date.now()): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const database of everyDatabase(env)) deleted[database.name] = await pruneAuditEvents(database.d1, days, now);
  return deleted;
}
