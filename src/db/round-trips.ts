/**
 * Wraps the D1 binding so every round trip to the database is counted. In production each
 * one is a network hop, so the count per request is the figure the benchmark reports and
 * the tests bound. A batch is one round trip however many statements it carries.
 */
export class RoundTripCounter {
  count = 0;
}

const INNER = Symbol("inner statement");

type WrappedStatement = D1PreparedStatement & { [INNER]: D1PreparedStatement };

export function countRoundTrips(db: D1Database, counter: RoundTripCounter): D1Database {
  const wrap = (stmt: D1PreparedStatement): WrappedStatement => {
    const wrapped = Object.create(stmt) as WrappedStatement;
    wrapped[INNER] = stmt;
    wrapped.bind = (...values: unknown[]) => wrap(stmt.bind(...values));
    wrapped.first = ((column?: string) => {
      counter.count++;
      return column === undefined ? stmt.first() : stmt.first(column);
    }) as D1PreparedStatement["first"];
    wrapped.all = (() => {
      counter.count++;
      return stmt.all();
    }) as D1PreparedStatement["all"];
    wrapped.run = (() => {
      counter.count++;
      return stmt.run();
    }) as D1PreparedStatement["run"];
    wrapped.raw = ((options?: { columnNames?: boolean }) => {
      counter.count++;
      return options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw();
    }) as D1PreparedStatement["raw"];
    return wrapped;
  };

  const proxy = Object.create(db) as D1Database;
  proxy.prepare = (query: string) => wrap(db.prepare(query));
  proxy.batch = ((statements: D1PreparedStatement[]) => {
    counter.count++;
    return db.batch(statements.map((s) => (s as Partial<WrappedStatement>)[INNER] ?? s));
  }) as D1Database["batch"];
  proxy.exec = (query: string) => {
    counter.count++;
    return db.exec(query);
  };
  return proxy;
}
