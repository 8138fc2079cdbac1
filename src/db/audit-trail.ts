import type { AuditActor, AuditEvent, AuditRecord } from "../domain/audit/event";
import { newEventId } from "../domain/audit/event-id";
import type { WriteCompanion } from "./round-trips";

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
const INSERT = `INSERT INTO audit_events (${COLUMNS.join(", ")}) SELECT ${COLUMNS.map(() => "?").join(", ")}`;
/** SQLite's changes(): rows the batch's last writing statement changed; the event is inserted right after it. */
const IF_CHANGED = " WHERE changes() > 0";

/** The columns of one event, in COLUMNS order. */
function rowOf(event: AuditEvent): unknown[] {
  return [
    event.id,
    event.time,
    event.accountId,
    event.actor.type,
    event.actor.id,
    event.actor.name,
    event.actor.authentication,
    event.action,
    event.target.type,
    event.target.id,
    event.target.name,
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
 * `recordIfChanged` is for a write whose statement may change nothing without failing (an UPDATE or
 * DELETE whose WHERE lost a race, answered 404 or 412 afterwards): its events are inserted only if
 * the batch's last writing statement changed a row.
 */
export class AuditTrail implements WriteCompanion {
  #pending: { record: AuditRecord; ifChanged: boolean }[] = [];

  constructor(private readonly context: () => AuditContext) {}

  record(...records: AuditRecord[]): void {
    for (const record of records) this.#pending.push({ record, ifChanged: false });
  }

  recordIfChanged(...records: AuditRecord[]): void {
    for (const record of records) this.#pending.push({ record, ifChanged: true });
  }

  get pending(): boolean {
    return this.#pending.length > 0;
  }

  /**
   * The INSERTs of the pending events, taken once. Conditional ones come first, so each checks the
   * write itself (and the next one checks that its predecessor was inserted).
   */
  takeStatements(d1: D1Database): D1PreparedStatement[] {
    const pending = [...this.#pending.filter((p) => p.ifChanged), ...this.#pending.filter((p) => !p.ifChanged)];
    this.#pending = [];
    if (pending.length === 0) return [];
    const context = this.context();
    const time = new Date();
    return pending.map(({ record, ifChanged }) =>
      d1.prepare(INSERT + (ifChanged ? IF_CHANGED : "")).bind(...rowOf(eventOf(record, context, time))),
    );
  }

  /** Writes events on their own (a login lock-out, which changes nothing else): one round trip. */
  static async writeAlone(d1: D1Database, records: AuditRecord[], context: AuditContext): Promise<void> {
    const time = new Date();
    await d1.batch(records.map((record) => d1.prepare(INSERT).bind(...rowOf(eventOf(record, context, time)))));
  }
}

function eventOf(record: AuditRecord, context: AuditContext, time: Date): AuditEvent {
  return {
    id: newEventId(time.getTime()),
    time: time.toISOString(),
    accountId: record.accountId,
    actor: context.actor,
    action: record.action,
    target: record.target,
    changes: record.changes && record.changes.length > 0 ? record.changes : null,
    requestId: context.requestId,
    ip: context.ip,
    userAgent: context.userAgent,
  };
}
