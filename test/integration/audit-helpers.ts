import { databases, type CallResult } from "./helpers";

/** An audit event as stored, read straight from D1 (the tests check what was written, not only what the API shows). */
export interface StoredEvent {
  id: string;
  time: string;
  accountId: string | null;
  actorType: string;
  actorId: string | null;
  actorName: string;
  actorAuthentication: string;
  action: string;
  targetType: string;
  targetId: string | null;
  targetName: string | null;
  changes: any[] | null;
  requestId: string;
}

/** The events one request wrote, in order (on every database: an account's live on its shard, the others in the directory). */
export async function eventsOfRequest(requestId: string): Promise<StoredEvent[]> {
  const results: (Omit<StoredEvent, "changes"> & { changes: string | null })[] = [];
  for (const [, database] of databases()) {
    const found = await database
      .prepare(
        `SELECT id, time, account_id AS accountId, actor_type AS actorType, actor_id AS actorId, actor_name AS actorName,
           actor_authentication AS actorAuthentication, action, target_type AS targetType, target_id AS targetId,
           target_name AS targetName, changes, request_id AS requestId FROM audit_events WHERE request_id = ? ORDER BY id`,
      )
      .bind(requestId)
      .all<Omit<StoredEvent, "changes"> & { changes: string | null }>();
    results.push(...found.results);
  }
  results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return results.map((r) => ({ ...r, changes: r.changes === null ? null : JSON.parse(r.changes) }));
}

/** The events of the request that answered `res`. */
export const eventsOf = (res: CallResult) => eventsOfRequest(res.headers.get("X-Request-Id")!);
