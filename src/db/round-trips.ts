import type { D1Client, RequestSession } from "./session";

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
 * Every call runs on the request's D1 session (db/session.ts), which also notes where D1 says each
 * result was served. A check that rides must see every committed write, so whoever sets one opens
 * the session at the primary (`RequestSession.requirePrimary`): its first round trip, the one the
 * check rides on, is then the primary's.
 */
export class RoundTripCounter {
  count = 0;
  #check: RideAlongCheck | undefined;

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

const INNER = Symbol("inner statement");
const SOURCE = Symbol("statement source");

type WrappedStatement = D1PreparedStatement & { [INNER]: D1PreparedStatement; [SOURCE]: { query: string; values: unknown[] } };

const READ = /^\s*(select|with)\b/i;

/** Asks a check alone: one round trip of its own. */
async function askAlone(session: RequestSession, counter: RoundTripCounter, check: RideAlongCheck): Promise<void> {
  counter.count++;
  const answer = await session.d1.prepare(`SELECT CASE WHEN ${check.condition} THEN 1 ELSE 0 END AS ok`).bind(...check.params).all<{ ok: number }>();
  session.record(answer.meta);
  if (answer.results[0]?.ok !== 1) throw check.refused();
}

/** Asks the pending check, if it found no round trip to ride on (the request made no D1 call). */
export async function settleCheck(session: RequestSession, counter: RoundTripCounter): Promise<void> {
  const check = counter.takeCheck();
  if (check) await askAlone(session, counter, check);
}

/** A batch on the session, its results' servers noted. */
async function batchOn(session: RequestSession, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  const results = await session.d1.batch(statements);
  for (const result of results) session.record(result.meta);
  return results;
}

export function countRoundTrips(session: RequestSession, counter: RoundTripCounter): D1Client {
  /** Runs `statements` as one batch behind the check's guard, and answers their results. */
  const guardedBatch = async (check: RideAlongCheck, statements: D1PreparedStatement[]) => {
    const guard = session.d1.prepare(check.guard).bind(...check.params);
    try {
      const [, ...results] = await batchOn(session, [guard, ...statements]);
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
      if (!check) return direct(stmt);
      if (!READ.test(source.query)) return fromBatch((await guardedBatch(check, [stmt]))[0]);
      const riding = session.d1.prepare(`SELECT * FROM (${source.query.replace(/;\s*$/, "")}) WHERE ${check.condition}`).bind(...source.values, ...check.params);
      const answer = await direct(riding);
      if (empty(answer)) await askAlone(session, counter, check);
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
    // all() and run() answer D1's meta (first() and raw() do not): where they were served is noted.
    const withMeta = (call: (s: D1PreparedStatement) => Promise<D1Result>) => async (s: D1PreparedStatement) => {
      const result = await call(s);
      session.record(result.meta);
      return result;
    };
    wrapped.all = (() => run<D1Result>(withMeta((s) => s.all()), (r) => r.results.length === 0, (result) => result)) as D1PreparedStatement["all"];
    wrapped.run = (() => run<D1Result>(withMeta((s) => s.run()), (r) => r.results.length === 0, (result) => result)) as D1PreparedStatement["run"];
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

  return {
    prepare: (query: string) => wrap(session.d1.prepare(query), { query, values: [] }),
    batch: (async (statements: D1PreparedStatement[]) => {
      counter.count++;
      const inner = statements.map((s) => (s as Partial<WrappedStatement>)[INNER] ?? s);
      const check = counter.takeCheck();
      return check ? guardedBatch(check, inner) : batchOn(session, inner);
    }) as D1Client["batch"],
  };
}
