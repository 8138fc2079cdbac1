import type { D1Client, RequestSession, SessionStartKind } from "./session";

/**
 * Wraps the D1 binding so every round trip to the database is counted. In production each
 * one is a network hop, so the count per request is the figure the benchmark reports and
 * the tests bound. A batch is one round trip however many statements it carries.
 *
 * The wrapper also lets one check ride on the request's first round trip instead of taking its
 * own (a `RideAlongCheck`: a bearer token trusted from this isolate's cache must still be valid,
 * auth/bearer.ts). How it rides depends on that first call:
 * - a read (a statement starting with SELECT or WITH): `SELECT * FROM (<read>) WHERE <condition>`.
 *   Rows back mean the condition held. No rows is ambiguous, so the condition is then asked alone
 *   (a second round trip, on empty reads only);
 * - a batch, or a statement that writes: the check's guard statement goes first in one batch, and
 *   fails the whole batch (nothing written) when the condition does not hold;
 * - no D1 call at all: the owner of the check asks it alone before answering (`settle`).
 *
 * It also adds what must commit with a write to that write's own round trip (a `WriteCompanion`:
 * the request's audit events, db/audit-trail.ts): the first batch holding a writing statement
 * carries them right after its last writing statement, and a writing statement called alone
 * becomes a batch of itself and them. Same round trips, one transaction.
 *
 * Every call runs on the request's D1 session (db/session.ts), which also notes where D1 says each
 * result was served. A check that rides must see every committed write, so whoever sets one opens
 * the session at the primary (`RequestSession.requirePrimary`): its first round trip, the one the
 * check rides on, is then the primary's.
 */
export class RoundTripCounter {
  count = 0;
  #check: RideAlongCheck | undefined;
  /** Each round trip's statements and answers, when the bench asks for them (EXPOSE_D1_STATEMENTS). */
  readonly trips: RecordedRoundTrip[] | undefined;

  constructor(recordStatements = false) {
    this.trips = recordStatements ? [] : undefined;
  }

  /** Makes `check` ride on the next round trip. */
  rideAlong(check: RideAlongCheck): void {
    this.#check = check;
  }

  /** The check, once: the call that takes it carries it. */
  takeCheck(): RideAlongCheck | undefined {
    const check = this.#check;
    this.#check = undefined;
    return check;
  }
}

export interface RideAlongCheck {
  /** A boolean SQL expression (with `?` placeholders) that must hold. */
  condition: string;
  params: unknown[];
  /** A statement (same placeholders) that fails its batch when the condition does not hold. */
  guard: string;
  /** The name of the guard's CHECK constraint, as a failed batch reports it. */
  guardConstraint: string;
  /** The error to throw when the condition does not hold. */
  refused(): Error;
}

/**
 * One round trip as the bench replays it on its floor Worker (scripts/bench-floor/): the statements
 * exactly as sent (a batch carries several), how they were called, and the rows each answered
 * (the floor takes values a write re-sends from its own read, e.g. the revision it read).
 */
export interface RecordedRoundTrip {
  call: "first" | "all" | "run" | "raw" | "rawNames" | "batch";
  /** Where the D1 session it ran on started (db/session.ts): the floor opens its session alike. */
  session: SessionStartKind;
  statements: { sql: string; params: unknown[] }[];
  /** Rows per statement (at most ROWS_KEPT each), values encoded as by `recordable`. */
  rows?: unknown[][];
}

const ROWS_KEPT = 20;

/** A value as JSON can carry it: bytes become { $bytes: base64 }. */
function recordable(value: unknown): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return { $bytes: btoa(String.fromCharCode(...bytes)) };
  }
  if (Array.isArray(value)) return value.map(recordable);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, recordable(v)]));
  return value;
}

function recordTrip(counter: RoundTripCounter, session: RequestSession, call: RecordedRoundTrip["call"], statements: { query: string; values: unknown[] }[]): RecordedRoundTrip | undefined {
  if (!counter.trips) return undefined;
  const trip: RecordedRoundTrip = { call, session: session.startKind, statements: statements.map((s) => ({ sql: s.query, params: s.values.map(recordable) })) };
  counter.trips.push(trip);
  return trip;
}

/** The rows of one answer (a D1Result, a row, raw arrays), kept on the trip. */
function rowsOf(answer: unknown): unknown[] {
  if (answer === null || answer === undefined) return [];
  if (Array.isArray(answer)) return answer.slice(0, ROWS_KEPT).map(recordable);
  const results = (answer as Partial<D1Result>).results;
  if (Array.isArray(results)) return results.slice(0, ROWS_KEPT).map(recordable);
  return [recordable(answer)];
}

/** Requests' recorded round trips by request id, while the bench reads them (the newest few hundred). */
const recordedByRequestId = new Map<string, RecordedRoundTrip[]>();

export function rememberStatements(requestId: string, trips: RecordedRoundTrip[]): void {
  recordedByRequestId.set(requestId, trips);
  if (recordedByRequestId.size > 500) recordedByRequestId.delete(recordedByRequestId.keys().next().value!);
}

export function recordedStatements(requestId: string): RecordedRoundTrip[] | undefined {
  return recordedByRequestId.get(requestId);
}

export interface WriteCompanion {
  readonly pending: boolean;
  /** The statements to add to a write's batch (just before its first writing statement, and right after its last), taken once. */
  /** `committed` is called with the results of the `after` statements once their batch has committed. */
  takeStatements(d1: D1Client): { before: D1PreparedStatement[]; after: D1PreparedStatement[]; committed?: (after: D1Result[]) => void };
  /** The error a failed batch that carried these statements means, when one of them refused it (an account's guard). */
  refusal?(err: unknown): Error | undefined;
}

const INNER = Symbol("inner statement");
const SOURCE = Symbol("statement source");

type StatementSource = { query: string; values: unknown[] };
type WrappedStatement = D1PreparedStatement & { [INNER]: D1PreparedStatement; [SOURCE]: StatementSource };

/** What a counted statement needs of its request's wrapper (countRoundTrips). */
interface StatementCalls {
  session: RequestSession;
  wrap(stmt: D1PreparedStatement, source: StatementSource): WrappedStatement;
  run<T>(
    statement: WrappedStatement,
    call: RecordedRoundTrip["call"],
    direct: (s: D1PreparedStatement) => Promise<T>,
    empty: (answer: T) => boolean,
    fromBatch: (result: D1Result) => T,
  ): Promise<T>;
}

/**
 * A statement prepared through the wrapper: the runtime's statement, the SQL and values it was
 * made from (what the bench records), and calls that count. A class, so that the many statements
 * of a request share their methods instead of each carrying closures of its own.
 */
class CountedStatement {
  readonly [INNER]: D1PreparedStatement;
  readonly [SOURCE]: StatementSource;
  readonly #calls: StatementCalls;

  constructor(stmt: D1PreparedStatement, source: StatementSource, calls: StatementCalls) {
    this[INNER] = stmt;
    this[SOURCE] = source;
    this.#calls = calls;
  }

  bind(...values: unknown[]): WrappedStatement {
    return this.#calls.wrap(this[INNER].bind(...values), { query: this[SOURCE].query, values });
  }

  async first<T = Record<string, unknown>>(column?: string): Promise<T | null> {
    const row = await this.#calls.run(
      this as unknown as WrappedStatement,
      "first",
      (s) => s.first<Record<string, unknown>>(),
      (r) => r === null,
      (result) => (result.results[0] as Record<string, unknown> | undefined) ?? null,
    );
    return (column === undefined ? row : (row?.[column] ?? null)) as T | null;
  }

  // all() and run() answer D1's meta (first() and raw() do not): where they were served is noted.
  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.#calls.run(this as unknown as WrappedStatement, "all", this.#withMeta((s) => s.all()), (r) => r.results.length === 0, (result) => result) as Promise<D1Result<T>>;
  }

  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.#calls.run(this as unknown as WrappedStatement, "run", this.#withMeta((s) => s.run()), (r) => r.results.length === 0, (result) => result) as Promise<D1Result<T>>;
  }

  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<T[]> {
    const withNames = options?.columnNames === true;
    return this.#calls.run(
      this as unknown as WrappedStatement,
      withNames ? "rawNames" : "raw",
      (s) => (withNames ? s.raw({ columnNames: true }) : s.raw()) as Promise<unknown[][]>,
      (rows) => rows.length === (withNames ? 1 : 0),
      // Only writes get here (INSERT ... RETURNING): one table's columns, whose names are unique.
      (result) => {
        const rows = result.results as Record<string, unknown>[];
        const values = rows.map((row) => Object.values(row));
        return withNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
      },
    ) as Promise<T[]>;
  }

  #withMeta(call: (s: D1PreparedStatement) => Promise<D1Result>) {
    const session = this.#calls.session;
    return async (s: D1PreparedStatement) => {
      const result = await call(s);
      session.record(result.meta);
      return result;
    };
  }
}

const READ = /^\s*(select|with)\b/i;

/** Asks a check alone: one round trip of its own. */
async function askAlone(session: RequestSession, counter: RoundTripCounter, check: RideAlongCheck): Promise<void> {
  counter.count++;
  const query = `SELECT CASE WHEN ${check.condition} THEN 1 ELSE 0 END AS ok`;
  const trip = recordTrip(counter, session, "all", [{ query, values: check.params }]);
  const answer = await session.d1.prepare(query).bind(...check.params).all<{ ok: number }>();
  session.record(answer.meta);
  if (trip) trip.rows = [rowsOf(answer)];
  if (answer.results[0]?.ok !== 1) throw check.refused();
}

/** Asks the pending check, if it found no round trip to ride on (the request made no D1 call). */
export async function settleCheck(session: RequestSession, counter: RoundTripCounter): Promise<void> {
  const check = counter.takeCheck();
  if (check) await askAlone(session, counter, check);
}

/**
 * A batch on the session, where it was served noted once: a batch is one call, run where one
 * transaction runs (an entry per statement grew X-D1-Served-By past what HTTP clients accept: 32 KB
 * for an account import of 3,500 statements).
 */
async function batchOn(session: RequestSession, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  const results = await session.d1.batch(statements);
  session.record(results[0]?.meta);
  return results;
}

/** Whether a statement writes; one this wrapper did not prepare counts as writing. */
const writes = (s: D1PreparedStatement) => {
  const source = (s as Partial<WrappedStatement>)[SOURCE];
  return !source || !READ.test(source.query);
};

/** `companion`: what must ride on this handle's writes (the request's audit events, an account's guards), if anything. */
export function countRoundTrips(session: RequestSession, counter: RoundTripCounter, companion?: WriteCompanion): D1Client {
  const sourceOf = (s: D1PreparedStatement) => (s as Partial<WrappedStatement>)[SOURCE] ?? { query: "(unwrapped statement)", values: [] };

  /**
   * Runs `statements` as one batch (one round trip already counted) with the pending check's guard
   * first and, if one of them writes, the write companion's statements right after the last
   * writing one; answers the results of `statements` only.
   */
  const batch = async (check: RideAlongCheck | undefined, statements: D1PreparedStatement[]): Promise<D1Result[]> => {
    const from = statements.findIndex(writes);
    const to = statements.findLastIndex(writes) + 1;
    // Prepared through the wrapper (not counted: preparing is no round trip) so the bench records them.
    const { before, after, committed } = from >= 0 && companion?.pending ? companion.takeStatements(proxy) : { before: [], after: [], committed: undefined };
    const all = [...statements.slice(0, from < 0 ? 0 : from), ...before, ...statements.slice(from < 0 ? 0 : from, to), ...after, ...statements.slice(to)];
    const inner = all.map((s) => (s as Partial<WrappedStatement>)[INNER] ?? s);
    // Only the bench's recording reads them.
    const sources = counter.trips ? all.map(sourceOf) : [];
    let results: D1Result[];
    try {
      if (check) results = await guardedBatch(check, inner, sources);
      else {
        const trip = recordTrip(counter, session, "batch", sources);
        results = await batchOn(session, inner);
        if (trip) trip.rows = results.map(rowsOf);
      }
    } catch (err) {
      throw (before.length + after.length > 0 && companion?.refusal?.(err)) || err;
    }
    committed?.(results.slice(to + before.length, to + before.length + after.length));
    if (before.length + after.length === 0) return results;
    return results.filter((_, i) => !((i >= from && i < from + before.length) || (i >= to + before.length && i < to + before.length + after.length)));
  };

  /** Runs `statements` as one batch behind the check's guard, and answers their results. */
  const guardedBatch = async (check: RideAlongCheck, statements: D1PreparedStatement[], sources: { query: string; values: unknown[] }[]) => {
    const guard = session.d1.prepare(check.guard).bind(...check.params);
    const trip = recordTrip(counter, session, "batch", [{ query: check.guard, values: check.params }, ...sources]);
    try {
      const all = await batchOn(session, [guard, ...statements]);
      if (trip) trip.rows = all.map(rowsOf);
      const [, ...results] = all;
      return results;
    } catch (err) {
      if (String((err as Error)?.message ?? err).includes(check.guardConstraint)) throw check.refused();
      throw err;
    }
  };

  const wrap = (stmt: D1PreparedStatement, source: StatementSource): WrappedStatement => new CountedStatement(stmt, source, calls) as unknown as WrappedStatement;

  /**
   * One call of a statement, carrying the pending check if there is one. `empty` tells whether
   * a read's answer has no rows; `fromBatch` turns its batch result into what the call answers.
   */
  const calls: StatementCalls = {
    session,
    wrap,
    async run<T>(
      statement: WrappedStatement,
      call: RecordedRoundTrip["call"],
      direct: (s: D1PreparedStatement) => Promise<T>,
      empty: (answer: T) => boolean,
      fromBatch: (result: D1Result) => T,
    ): Promise<T> {
      const source = statement[SOURCE];
      counter.count++;
      const check = counter.takeCheck();
      const write = !READ.test(source.query);
      if (write && (check || companion?.pending)) return fromBatch((await batch(check, [statement]))[0]!);
      if (!check) {
        const trip = recordTrip(counter, session, call, [source]);
        const answer = await direct(statement[INNER]);
        if (trip) trip.rows = [rowsOf(answer)];
        return answer;
      }
      const ridingSource = { query: `SELECT * FROM (${source.query.replace(/;\s*$/, "")}) WHERE ${check.condition}`, values: [...source.values, ...check.params] };
      const trip = recordTrip(counter, session, call, [ridingSource]);
      const answer = await direct(session.d1.prepare(ridingSource.query).bind(...ridingSource.values));
      if (trip) trip.rows = [rowsOf(answer)];
      if (empty(answer)) await askAlone(session, counter, check);
      return answer;
    },
  };

  const proxy: D1Client = {
    prepare: (query: string) => wrap(session.d1.prepare(query), { query, values: [] }),
    batch: (async (statements: D1PreparedStatement[]) => {
      counter.count++;
      return batch(counter.takeCheck(), statements);
    }) as D1Client["batch"],
  };
  return proxy;
}
