import type { AuditActor, AuditRecord, ComputedValue } from "../domain/audit/event";
import { newEventId } from "../domain/audit/event-id";
import type { WriteCompanion } from "./round-trips";
import type { D1Client } from "./session";

/** Who and which request: read when the events are written, after authentication has run. */
export interface AuditContext {
  actor: AuditActor;
  requestId: string;
  ip: string | null;
  userAgent: string | null;
}

const COLUMNS = [
  "id",
  "time",
  "account_id",
  "actor_type",
  "actor_id",
  "actor_name",
  "actor_authentication",
  "action",
  "target_type",
  "target_id",
  "target_name",
  "changes",
  "request_id",
  "ip",
  "user_agent",
] as const;
const INSERT_INTO = `INSERT INTO audit_events (${COLUMNS.join(", ")}) SELECT `;
/** A condition, checked inside the write's transaction after it: the event is inserted only if it holds. */
export interface EventCondition {
  sql: string;
  params: unknown[];
}

/**
 * The batch's last writing statement changed a row (SQLite's changes(); the events are inserted
 * right after it, those with this condition first, so it sees that statement and nothing else).
 */
export const ROW_CHANGED: EventCondition = { sql: "changes() > 0", params: [] };

/** The row `id` of `table` now has `revision`: the update that set it won (revisions are unique to a write). */
export const rowHasRevision = (table: string, id: string, revision: string, idColumn = "id"): EventCondition => ({
  sql: `EXISTS (SELECT 1 FROM ${table} WHERE ${idColumn} = ? AND revision = ?)`,
  params: [id, revision],
});

/** The row `id` of `table` is gone. */
export const rowGone = (table: string, id: string, idColumn = "id"): EventCondition => ({
  sql: `NOT EXISTS (SELECT 1 FROM ${table} WHERE ${idColumn} = ?)`,
  params: [id],
});

type Pending = { record: AuditRecord; condition?: EventCondition; before?: boolean; id?: string };

const isComputed = (value: unknown): value is ComputedValue => typeof value === "object" && value !== null && "sql" in value;

/** One event's INSERT: a `?` per plain column, a scalar subquery per computed one, then its condition. */
function insertOf(d1: Pick<D1Client, "prepare">, { record, condition, id }: Pending, context: AuditContext, time: Date): D1PreparedStatement {
  const values = rowOf(record, context, time, id);
  const select = values.map((v) => (isComputed(v) ? `(${v.sql})` : "?")).join(", ");
  const params = values.flatMap((v) => (isComputed(v) ? v.params : [v]));
  const sql = INSERT_INTO + select + (condition ? ` WHERE ${condition.sql}` : "");
  return d1.prepare(sql).bind(...params, ...(condition?.params ?? []));
}

/** The columns of one event, in COLUMNS order. */
function rowOf(record: AuditRecord, context: AuditContext, time: Date, id = newEventId(time.getTime())): unknown[] {
  const event = eventOf(record, context, time, id);
  return [
    event.id,
    event.time,
    record.accountId ?? null,
    event.actor.type,
    event.actor.id ?? null,
    event.actor.name,
    event.actor.authentication,
    event.action,
    event.target.type,
    record.target.id ?? null,
    event.target.name ?? null,
    event.changes ? JSON.stringify(event.changes) : null,
    event.requestId,
    event.ip,
    event.userAgent,
  ];
}

/**
 * A request's audit trail. A write declares its events (`record`) just before it runs; the D1
 * wrapper (db/round-trips.ts) adds their INSERTs to that write's own round trip: the next batch
 * holding a writing statement, or a writing statement turned into a batch. So an event commits iff
 * its change does, a guard that refuses the batch refuses its events too, and the write takes the
 * round trips it took before. Reads never carry events.
 *
 * `recordIf` is for a write that may change nothing without failing (an UPDATE or DELETE whose
 * WHERE lost a race, answered 404 or 412 afterwards): its events are inserted only if `condition`
 * holds after the write (ROW_CHANGED, rowHasRevision, rowGone).
 */
export class AuditTrail implements WriteCompanion {
  #pending: Pending[] = [];
  /**
   * Ids of the committed events (a conditional one may have been skipped) whose account had an
   * enabled webhook subscription when they committed: the request enqueues them for delivery once
   * it is answered (middleware/database), adding no round trip. The events of an account with no
   * subscription go to no Queue at all (the sweep passes them by too: src/webhooks/consumer.ts).
   * Over several databases each id comes with the binding of the database it committed on (`db`),
   * which its Queue message names; on one database `db` is undefined and messages name none.
   */
  readonly toDeliver: { id: string; db?: string }[] = [];

  constructor(private readonly context: () => AuditContext) {}

  record(...records: AuditRecord[]): void {
    for (const record of records) this.#pending.push({ record });
  }

  recordIf(condition: EventCondition, ...records: AuditRecord[]): void {
    for (const record of records) this.#pending.push({ record, condition });
  }

  /**
   * For a single statement that deletes what it finds (a token revoked by id): the event is written
   * just before it, in the same transaction, if `condition` holds then, and may read what the
   * statement is about to delete (its computed values).
   */
  recordBeforeIf(condition: EventCondition, ...records: AuditRecord[]): void {
    for (const record of records) this.#pending.push({ record, condition, before: true });
  }

  get pending(): boolean {
    return this.#pending.length > 0;
  }

  hasPending(keep: (record: AuditRecord) => boolean): boolean {
    return this.#pending.some((p) => keep(p.record));
  }

  /**
   * The INSERTs of the pending events, taken once. Those conditioned on ROW_CHANGED come first, so
   * the first checks the write itself and each next one that its predecessor was inserted.
   * `keep`: only the events it accepts (the others wait for a write on another database); `database`:
   * the binding the statements run on, when the request has several (db/shards).
   */
  takeStatements(d1: D1Client, keep?: (record: AuditRecord) => boolean, database?: string): { before: D1PreparedStatement[]; after: D1PreparedStatement[]; committed: (after: D1Result[]) => void } {
    const first = (p: Pending) => (p.condition === ROW_CHANGED ? 0 : 1);
    const taken = keep ? this.#pending.filter((p) => keep(p.record)) : this.#pending;
    this.#pending = keep ? this.#pending.filter((p) => !keep(p.record)) : [];
    const sorted = [...taken].sort((a, b) => first(a) - first(b));
    const context = sorted.length > 0 ? this.context() : undefined;
    const time = new Date();
    // Ids in the order the INSERTs run, so that one request's events keep their order.
    const withIds = (list: Pending[]) => list.map((p) => ({ ...p, id: newEventId(time.getTime()) }));
    const [before, after] = [withIds(sorted.filter((p) => p.before)), withIds(sorted.filter((p) => !p.before))];
    const inserts = (list: Pending[]) => list.map((p) => insertOf(d1, p, context!, time));
    // Asked inside the write's transaction, last: whether anyone subscribes to these events' accounts.
    const probe = sorted.length > 0 ? [subscriptionProbe(d1, [...new Set(sorted.map((p) => p.record.accountId ?? null))])] : [];
    const committed = (results: D1Result[]) => {
      if (results.at(-1)?.results.length) this.toDeliver.push(...[...before, ...after].map((p) => (database === undefined ? { id: p.id! } : { id: p.id!, db: database })));
    };
    return { before: inserts(before), after: [...inserts(after), ...probe], committed };
  }

  /**
   * What rides on the writes of one of the request's databases when the directory and the
   * account's shard are two (db/shards): the events of changes outside any account on the
   * directory's, the account's on its shard's, each with the shard's `guards` first. `database`: the
   * binding the handle's statements run on at the time of the write (a shard's is placed late).
   */
  companionFor(role: "directory" | "shard", guards?: (d1: D1Client) => D1PreparedStatement[], database?: () => string | undefined): WriteCompanion {
    const keep = role === "directory" ? (r: AuditRecord) => r.accountId == null : (r: AuditRecord) => r.accountId != null;
    const trail = this;
    return {
      get pending() {
        return guards !== undefined || trail.hasPending(keep);
      },
      takeStatements(d1: D1Client) {
        const taken = trail.takeStatements(d1, keep, database?.());
        return guards ? { ...taken, before: [...guards(d1), ...taken.before] } : taken;
      },
    };
  }

  /** Writes events on their own (a login lock-out, which changes nothing else): one round trip. */
  static async writeAlone(d1: D1Database, records: AuditRecord[], context: AuditContext): Promise<void> {
    const time = new Date();
    await d1.batch(records.map((record) => insertOf(d1, { record }, context, time)));
  }
}

/** One row if an enabled webhook subscription listens to one of these accounts (null: changes outside any account). */
function subscriptionProbe(d1: Pick<D1Client, "prepare">, accounts: (string | ComputedValue | null)[]): D1PreparedStatement {
  const any = accounts.map((a) => (isComputed(a) ? `account_id IS (${a.sql})` : "account_id IS ?")).join(" OR ");
  const params = accounts.flatMap((a) => (isComputed(a) ? a.params : [a]));
  return d1.prepare(`SELECT 1 AS subscribed FROM webhooks WHERE enabled = 1 AND (${any}) LIMIT 1`).bind(...params);
}

function eventOf(record: AuditRecord, context: AuditContext, time: Date, id: string) {
  return {
    id,
    time: time.toISOString(),
    actor: context.actor,
    action: record.action,
    target: record.target,
    changes: record.changes && record.changes.length > 0 ? record.changes : null,
    requestId: context.requestId,
    ip: context.ip,
    userAgent: context.userAgent,
  };
}
