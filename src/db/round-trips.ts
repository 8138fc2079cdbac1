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
 */
export class RoundTripCounter {
  count = 0;
  #check: RideAlongCheck | undefined;
  /** Statements that must ride on the next write. */
  companion: WriteCompanion | undefined;

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

export interface WriteCompanion {
  readonly pending: boolean;
  /** The statements to add to a write's batch (just before its first writing statement, and right after its last), taken once. */
  takeStatements(d1: D1Database): { before: D1PreparedStatement[]; after: D1PreparedStatement[] };
}

const INNER = Symbol("inner statement");
const SOURCE = Symbol("statement source");

type WrappedStatement = D1PreparedStatement & { [INNER]: D1PreparedStatement; [SOURCE]: { query: string; values: unknown[] } };

const READ = /^\s*(select|with)\b/i;

/** Asks a check alone: one round trip of its own. */
async function askAlone(db: D1Database, counter: RoundTripCounter, check: RideAlongCheck): Promise<void> {
  counter.count++;
  const row = await db.prepare(`SELECT CASE WHEN ${check.condition} THEN 1 ELSE 0 END AS ok`).bind(...check.params).first<{ ok: number }>();
  if (row?.ok !== 1) throw check.refused();
}

/** Asks the pending check, if it found no round trip to ride on (the request made no D1 call). */
export async function settleCheck(db: D1Database, counter: RoundTripCounter): Promise<void> {
  const check = counter.takeCheck();
  if (check) await askAlone(db, counter, check);
}

/** Whether a statement writes; one this wrapper did not prepare counts as writing. */
const writes = (s: D1PreparedStatement) => {
  const source = (s as Partial<WrappedStatement>)[SOURCE];
  return !source || !READ.test(source.query);
};

export function countRoundTrips(db: D1Database, counter: RoundTripCounter): D1Database {
  /**
   * Runs `statements` as one batch (one round trip already counted) with the pending check's guard
   * first and, if one of them writes, the write companion's statements right after the last
   * writing one; answers the results of `statements` only.
   */
  const batch = async (check: RideAlongCheck | undefined, statements: D1PreparedStatement[]): Promise<D1Result[]> => {
    const inner = statements.map((s) => (s as Partial<WrappedStatement>)[INNER] ?? s);
    const from = statements.findIndex(writes);
    const to = statements.findLastIndex(writes) + 1;
    const { before, after } = from >= 0 && counter.companion?.pending ? counter.companion.takeStatements(db) : { before: [], after: [] };
    const all = [...inner.slice(0, from < 0 ? 0 : from), ...before, ...inner.slice(from < 0 ? 0 : from, to), ...after, ...inner.slice(to)];
    const results = check ? await guardedBatch(check, all) : await db.batch(all);
    if (before.length + after.length === 0) return results;
    const mine = results.filter((_, i) => !((i >= from && i < from + before.length) || (i >= to + before.length && i < to + before.length + after.length)));
    return mine;
  };

  /** Runs `statements` as one batch behind the check's guard, and answers their results. */
  const guardedBatch = async (check: RideAlongCheck, statements: D1PreparedStatement[]) => {
    const guard = db.prepare(check.guard).bind(...check.params);
    try {
      const [, ...results] = await db.batch([guard, ...statements]);
      return results;
    } catch (err) {
      if (String((err as Error)?.message ?? err).includes(check.guardConstraint)) throw check.refused();
      throw err;
    }
  };

  const wrap = (stmt: D1PreparedStatement, source: { query: string; values: unknown[] }): WrappedStatement => {
    const wrapped = Object.create(stmt) as WrappedStatement;
    wrapped[INNER] = stmt;
    wrapped[SOURCE] = source;
    wrapped.bind = (...values: unknown[]) => wrap(stmt.bind(...values), { query: source.query, values });

    /**
     * One call of the statement, carrying the pending check if there is one. `empty` tells whether
     * a read's answer has no rows; `fromBatch` turns its batch result into what the call answers.
     */
    const run = async <T>(direct: (s: D1PreparedStatement) => Promise<T>, empty: (answer: T) => boolean, fromBatch: (result: D1Result) => T): Promise<T> => {
      counter.count++;
      const check = counter.takeCheck();
      const write = !READ.test(source.query);
      if (write && (check || counter.companion?.pending)) return fromBatch((await batch(check, [wrapped]))[0]!);
      if (!check) return direct(stmt);
      const riding = db.prepare(`SELECT * FROM (${source.query.replace(/;\s*$/, "")}) WHERE ${check.condition}`).bind(...source.values, ...check.params);
      const answer = await direct(riding);
      if (empty(answer)) await askAlone(db, counter, check);
      return answer;
    };

    wrapped.first = (async (column?: string) => {
      const row = await run(
        (s) => s.first<Record<string, unknown>>(),
        (r) => r === null,
        (result) => (result.results[0] as Record<string, unknown> | undefined) ?? null,
      );
      return column === undefined ? row : (row?.[column] ?? null);
    }) as D1PreparedStatement["first"];
    wrapped.all = (() => run<D1Result>((s) => s.all(), (r) => r.results.length === 0, (result) => result)) as D1PreparedStatement["all"];
    wrapped.run = (() => run<D1Result>((s) => s.run(), (r) => r.results.length === 0, (result) => result)) as D1PreparedStatement["run"];
    wrapped.raw = ((options?: { columnNames?: boolean }) => {
      const withNames = options?.columnNames === true;
      return run(
        (s) => (withNames ? s.raw({ columnNames: true }) : s.raw()) as Promise<unknown[][]>,
        (rows) => rows.length === (withNames ? 1 : 0),
        // Only writes get here (INSERT ... RETURNING): one table's columns, whose names are unique.
        (result) => {
          const rows = result.results as Record<string, unknown>[];
          const values = rows.map((row) => Object.values(row));
          return withNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
        },
      );
    }) as D1PreparedStatement["raw"];
    return wrapped;
  };

  const proxy = Object.create(db) as D1Database;
  proxy.prepare = (query: string) => wrap(db.prepare(query), { query, values: [] });
  proxy.batch = (async (statements: D1PreparedStatement[]) => {
    counter.count++;
    return batch(counter.takeCheck(), statements);
  }) as D1Database["batch"];
  proxy.exec = (query: string) => {
    counter.count++;
    return db.exec(query);
  };
  return proxy;
}
