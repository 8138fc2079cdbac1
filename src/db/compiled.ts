import { and, eq, fillPlaceholders, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { RunnableQuery } from "drizzle-orm/runnable-query";
import type { Database } from "./client";
import { mapRowsOnce } from "./row-mapping";
import type { D1Client } from "./session";

/**
 * A query whose SQL is built once per isolate. Drizzle turns a query builder into SQL text on every
 * call, and for a read of one row that is most of the JavaScript a request runs (about 0.2 ms for a
 * select of four columns, against 20 µs to run a prepared one: scripts/bench and docs/performance.md).
 * A hot query is declared once, at module level, with `sql.placeholder("name")` where its values
 * go; each request runs the same prepared query on its own database handle (the statement is
 * re-made from the cached SQL on the request's D1 session, so round trips are still counted there).
 *
 *   const accountByName = compiled((db) => db.select(cols).from(accounts).where(eq(accounts.name, sql.placeholder("name"))));
 *   const row = await accountByName(c.get("db")).get({ name });
 */
export function compiled<P extends PreparedLike>(build: (db: Database) => { prepare(): P }): (db: Database) => P {
  let template: P | undefined;
  return (db) => {
    if (!template) {
      template = build(db).prepare();
      mapRowsOnce(template);
      templates.add(template);
    }
    // Everything of the template (SQL, parameters, how rows map to objects) but its statement, which
    // belongs to the request that built it: an object whose own `stmt` is made on this request's D1.
    return withOwn(template, { stmt: clientOf(db).prepare(template.getQuery().sql) });
  };
}

/** The templates of compiled(), made once per isolate: the only objects a request's query inherits from. */
const templates = new WeakSet<object>();

/**
 * An object that inherits everything of `proto` but the members of `own`. Assigned, not defined through
 * Object.create's descriptors: that path is about forty times slower in V8 (250 ns against 6), and
 * a request makes one of these for every compiled statement it runs. `proto` is a template made
 * once per isolate, never an object of this request: V8 turns an object into a prototype the first
 * time one inherits from it (about 1.7 µs, against 50 ns from a prototype already), and each new
 * prototype makes the code that reads these objects see one more shape.
 */
function withOwn<P extends object>(proto: P, own: Record<string, unknown>): P {
  return Object.assign(Object.create(proto) as object, own) as P;
}

/**
 * A compiled query with its values, as an item of `db.batch([...])` (Drizzle's batch binds a
 * prepared query's `getQuery().params` as they stand, so they are filled here). Its statement is
 * the request's, as with `compiled`; a list goes in as one JSON value read with `json_each(?)`, so
 * the SQL text never depends on its length.
 *
 *   const [rows] = await db.batch([inBatch(itemsByName(db), { sourceId, names: JSON.stringify(names) })]);
 */
export function inBatch<P extends PreparedLike & { execute(values?: Record<string, unknown>): unknown }>(
  query: P,
  values: Record<string, unknown>,
): RunnableQuery<Awaited<ReturnType<P["execute"]>>, "sqlite"> {
  const { sql, params } = query.getQuery();
  const filledQuery = { sql, params: fillPlaceholders(params, values) };
  // A compiled query's own statement goes along with the filled query onto its template.
  const template = Object.getPrototypeOf(query) as P;
  const filled = templates.has(template)
    ? withOwn(template, { stmt: (query as unknown as { stmt: unknown }).stmt, query: filledQuery })
    : withOwn(query, { query: filledQuery });
  return { _prepare: () => filled } as unknown as RunnableQuery<Awaited<ReturnType<P["execute"]>>, "sqlite">;
}

/**
 * compiled() for each of a few kinds of request whose SQL differs (`key`: a quota type, the set of
 * members an update sets), each template built the first time its key is asked for. `idOf` names a
 * key that is not a string.
 */
export function compiledByKey<K, P extends PreparedLike>(build: (db: Database, key: K) => { prepare(): P }, idOf: (key: K) => string = String): (db: Database, key: K) => P {
  const templates = new Map<string, (db: Database) => P>();
  return (db, key) => {
    const id = idOf(key);
    let template = templates.get(id);
    if (!template) templates.set(id, (template = compiled((d) => build(d, key))));
    return template(db);
  };
}

/**
 * A placeholder bound as given, past its column's encoder: for a nullable JSON column, whose
 * encoder would store null as the text 'null'; its value is the JSON text, or null.
 */
export const boundAsGiven = (name: string): SQL => sql`${sql.placeholder(name)}`;

/**
 * Placeholders named as the columns they fill, for a compiled write's `set({...})` or `values({...})`:
 * Drizzle binds each with its column's encoder (a JSON column's value as JSON), as it binds a
 * value; only its types do not say so, hence `never`.
 */
export function placeholders<K extends string>(...names: K[]): Record<K, never> {
  return Object.fromEntries(names.map((name) => [name, sql.placeholder(name)])) as Record<K, never>;
}

/**
 * A compiled write's If-Match guard: placeholder `ifMatch` null means none was sent (the last
 * writer wins), else the revision the request checked, which the row must still have.
 */
export function ifMatchPlaceholder(revisionColumn: SQLiteColumn): SQL {
  return sql`(${sql.placeholder("ifMatch")} IS NULL OR ${revisionColumn} = ${sql.placeholder("ifMatch")})`;
}

/** A compiled query answering rows of one table, as Drizzle's prepared query runs it. */
export interface RowsQuery<Row> extends PreparedLike {
  all(values: Record<string, unknown>): Promise<Row[]>;
  get(values: Record<string, unknown>): Promise<Row | undefined>;
  execute(values?: Record<string, unknown>): Promise<Row[]>;
}

/**
 * The update of the row `id` of `table` that a PUT or PATCH makes: it sets the members named (each
 * from the placeholder of its name), is guarded by If-Match (ifMatchPlaceholder) and answers the
 * row. Compiled once per isolate for each set of members (its caller sorts them), when first asked.
 *
 *   const sourceUpdate = compiledRowUpdate(sources, sources.id, sources.revision);
 *   const [row] = await sourceUpdate(db, ["description", "revision"]).all({ description, revision, id, ifMatch });
 */
export function compiledRowUpdate<Table extends SQLiteTable>(table: Table, id: SQLiteColumn, revision: SQLiteColumn) {
  type Row = Table["$inferSelect"];
  return compiledByKey(
    (db, members: readonly (keyof Row & string)[]) =>
      db
        .update(table)
        .set(placeholders(...members) as never)
        .where(and(eq(id, sql.placeholder("id")), ifMatchPlaceholder(revision)))
        .returning() as unknown as { prepare(): RowsQuery<Row> },
    (members) => members.join(),
  );
}

export interface PreparedLike {
  getQuery(): { sql: string; params: unknown[] };
}

/** The D1 session under a request's Drizzle handle (drizzle() keeps it as `$client`). */
function clientOf(db: Database): D1Client {
  return db.$client;
}
