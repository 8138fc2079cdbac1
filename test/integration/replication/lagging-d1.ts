/**
 * A test double of a replicated D1 binding (test code only): D1's API (`prepare`, `batch`,
 * `withSession`, `getBookmark`; `first`, `all`, `run`, `raw`) over two real local D1 databases.
 *
 * - The primary is one real D1: every write runs there, and each write that commits (a statement,
 *   or a whole batch) is appended to a log. The primary's position is the log's length.
 * - The replica is a second real D1 that replays the log, in order, behind the primary: it is kept
 *   `lag` writes behind (Infinity: it moves only when a session needs it to), and never goes back.
 * - A session reads on the replica, first catching the replica up to the session's bookmark (as a
 *   D1 replica does before serving a session that is ahead of it). `first-primary` runs its first
 *   call on the primary; `first-unconstrained` takes the replica where it is; a bookmark starts the
 *   session at that position. A write moves the session's bookmark to the primary's position.
 * - The binding's own `prepare` and `batch` (outside any session) run on the primary, as D1 runs them.
 *
 * Bookmarks have D1's shape (8-8-8-32 hex digits), the position in the second group. A bookmark
 * ahead of the primary is refused as D1 refuses a bookmark it never issued. Results' meta carry
 * `served_by_primary` and `served_by_region` ("PRIMARY" or "REPLICA"). Calls are serialized.
 */
export class LaggingD1 {
  readonly #primary: D1Database;
  readonly #replica: D1Database;
  /** The committed writes, in order: each the statements of one call or batch. */
  readonly #log: Statement[][] = [];
  #replicaAt = 0;
  #queue: Promise<unknown> = Promise.resolve();
  /** How many writes the replica stays behind the primary when no session needs it newer. */
  lag: number;
  /** Where each call ran, for the tests: "primary", "replica@<position>", or "binding" (the binding's own call, on the primary). */
  readonly trail: string[] = [];

  constructor(primary: D1Database, replica: D1Database, lag = Number.POSITIVE_INFINITY) {
    this.#primary = primary;
    this.#replica = replica;
    this.lag = lag;
  }

  get primaryAt(): number {
    return this.#log.length;
  }
  get replicaAt(): number {
    return this.#replicaAt;
  }

  withSession(constraintOrBookmark: string = "first-unconstrained"): LaggingSession {
    return new LaggingSession(this, constraintOrBookmark);
  }

  // The binding's own calls, outside any session, run on the primary as D1 runs them without the
  // Sessions API ("otherwise all queries will continue to be executed only by the primary database",
  // D1's read replication page); the trail says "binding". Over several databases the routing's
  // questions to every shard are such calls (db/shards/routing.ts).
  prepare(sql: string): Statement {
    return new LaggingSession(this, "first-primary", "binding").prepare(sql);
  }
  batch(statements: Statement[]): Promise<D1Result[]> {
    return new LaggingSession(this, "first-primary", "binding").batch(statements);
  }

  /** Runs `work` after every call before it: the double's state changes one call at a time. */
  serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Runs a write on the primary and logs it if it commits; answers the primary's new position. */
  async write<T>(statements: Statement[], run: (db: D1Database) => Promise<T>, where: PrimaryCall = "primary"): Promise<{ answer: T; at: number }> {
    const answer = await run(this.#primary);
    this.#log.push(statements);
    this.trail.push(where);
    return { answer, at: this.#log.length };
  }

  /** A read on the primary (the first call of a `first-primary` session). */
  async readPrimary<T>(run: (db: D1Database) => Promise<T>, where: PrimaryCall = "primary"): Promise<{ answer: T; at: number }> {
    const answer = await run(this.#primary);
    this.trail.push(where);
    return { answer, at: this.#log.length };
  }

  /** A read on the replica, caught up to at least `atLeast` (and to the lag's position) first. */
  async readReplica<T>(atLeast: number, run: (db: D1Database) => Promise<T>): Promise<{ answer: T; at: number }> {
    if (atLeast > this.#log.length) throw new Error(`D1_ERROR: bookmark ${atLeast} is ahead of the database (${this.#log.length}): not a bookmark of this database`);
    await this.#catchUp(Math.max(atLeast, this.#log.length - this.lag));
    const answer = await run(this.#replica);
    this.trail.push(`replica@${this.#replicaAt}`);
    return { answer, at: this.#replicaAt };
  }

  async #catchUp(position: number): Promise<void> {
    while (this.#replicaAt < position) {
      const entry = this.#log[this.#replicaAt]!;
      await this.#replica.batch(entry.map((s) => s.on(this.#replica)));
      this.#replicaAt++;
    }
  }
}

const BOOKMARK = /^[0-9a-f]{8}-([0-9a-f]{8})-[0-9a-f]{8}-[0-9a-f]{32}$/i;
export const bookmarkAt = (position: number) => `00000000-${position.toString(16).padStart(8, "0")}-00000000-${"0".repeat(32)}`;
export function positionOf(bookmark: string): number {
  const match = BOOKMARK.exec(bookmark);
  if (!match) throw new Error(`D1_ERROR: invalid bookmark ${JSON.stringify(bookmark)}`);
  return parseInt(match[1]!, 16);
}

/** A statement that only reads (a write would make the replica diverge: the double refuses to send one there). */
const isRead = (sql: string) => /^\s*select\b/i.test(sql) || (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|replace)\b/i.test(sql));

/** How a call on the primary is named in the trail: a session's, or the binding's own (outside any session). */
type PrimaryCall = "primary" | "binding";

export class LaggingSession {
  readonly #d1: LaggingD1;
  #bookmark: number | null;
  #firstOnPrimary: boolean;
  readonly #where: PrimaryCall;

  constructor(d1: LaggingD1, start: string, where: PrimaryCall = "primary") {
    this.#d1 = d1;
    this.#where = where;
    this.#firstOnPrimary = start === "first-primary";
    // D1 takes the bookmark a session was opened with as its bookmark before any query.
    this.#bookmark = start === "first-primary" || start === "first-unconstrained" ? null : positionOf(start);
  }

  getBookmark(): string | null {
    return this.#bookmark === null ? null : bookmarkAt(this.#bookmark);
  }

  prepare(sql: string): Statement {
    return new Statement(this, sql, []);
  }

  batch(statements: Statement[]): Promise<D1Result[]> {
    const writes = statements.some((s) => !isRead(s.sql));
    return this.execute(writes, statements, async (db) => {
      const results = await db.batch(statements.map((s) => s.on(db)));
      return results;
    });
  }

  /** Runs one call where the session's consistency says, and moves the session's bookmark. */
  execute<T>(writes: boolean, statements: Statement[], run: (db: D1Database) => Promise<T>): Promise<T> {
    return this.#d1.serialized(async () => {
      const onPrimary = writes || this.#firstOnPrimary || this.#where === "binding";
      this.#firstOnPrimary = false;
      const { answer, at } = writes
        ? await this.#d1.write(statements, run, this.#where)
        : onPrimary
          ? await this.#d1.readPrimary(run, this.#where)
          : await this.#d1.readReplica(this.#bookmark ?? 0, run);
      this.#bookmark = Math.max(this.#bookmark ?? 0, at);
      markServedBy(answer, onPrimary);
      return answer;
    });
  }
}

/** D1 result meta where the runtime reports where a query ran. */
function markServedBy(answer: unknown, primary: boolean) {
  const results = Array.isArray(answer) ? answer : [answer];
  for (const r of results) {
    const meta = (r as { meta?: Record<string, unknown> } | null)?.meta;
    if (meta && typeof meta === "object") Object.assign(meta, { served_by_primary: primary, served_by_region: primary ? "PRIMARY" : "REPLICA" });
  }
}

export class Statement {
  constructor(
    readonly session: LaggingSession,
    readonly sql: string,
    readonly params: unknown[],
  ) {}

  bind(...values: unknown[]): Statement {
    return new Statement(this.session, this.sql, values);
  }

  /** The same statement prepared on a real database. */
  on(db: D1Database): D1PreparedStatement {
    return db.prepare(this.sql).bind(...this.params);
  }

  #call<T>(run: (s: D1PreparedStatement) => Promise<T>): Promise<T> {
    return this.session.execute(!isRead(this.sql), [this], (db) => run(this.on(db)));
  }

  first(column?: string) {
    return this.#call((s) => (column === undefined ? s.first() : s.first(column)));
  }
  all() {
    return this.#call((s) => s.all());
  }
  run() {
    return this.#call((s) => s.run());
  }
  raw(options?: { columnNames?: boolean }) {
    return this.#call((s) => (options?.columnNames ? s.raw({ columnNames: true }) : s.raw()));
  }
}
