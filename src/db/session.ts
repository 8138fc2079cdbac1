/**
 * A request's one D1 session (D1 read replication, the Sessions API). Every statement of the
 * request runs on it, so the request reads its own writes and never reads older than it already
 * did; its bookmark, answered in `X-D1-Bookmark`, carries that to the client's next request.
 *
 * The session is opened on the request's first statement, not before: until then the statements
 * that decide who is calling may still ask for the primary (`requirePrimary`), whatever the
 * request's method or bookmark said (see docs/replication.md, "Freshness of security").
 */
export class RequestSession {
  #binding: D1Database | undefined;
  #start: D1SessionConstraint | D1SessionBookmark;
  #session: D1DatabaseSession | undefined;
  /** Where each D1 call that reported it was served (result meta), in call order. */
  readonly servedBy: ServedBy[] = [];

  /**
   * `binding` undefined: a shard's session whose database is not known yet; `place` names it once
   * the request's account is known (db/shards/placement.ts), before its first statement.
   */
  constructor(binding: D1Database | undefined, start: D1SessionConstraint | D1SessionBookmark) {
    this.#binding = binding;
    this.#start = start;
  }

  /** Points the session at `binding`; it may change until the session opens, never after. */
  place(binding: D1Database): void {
    if (binding === this.#binding) return;
    if (this.#session) throw new Error("RequestSession.place() after the session opened on another database");
    this.#binding = binding;
  }

  get placed(): boolean {
    return this.#binding !== undefined;
  }

  /**
   * The request's first statement must see every committed write: it goes to the primary (which is
   * newer than any bookmark). Only before the session opened: afterwards it could no longer hold.
   */
  requirePrimary(): void {
    if (this.#session) throw new Error("requirePrimary() after the request's session opened");
    this.#start = "first-primary";
  }

  /** Where the session starts (or started): a constraint, or the client's bookmark. */
  get startKind(): SessionStartKind {
    return this.#start === "first-primary" || this.#start === "first-unconstrained" ? this.#start : "bookmark";
  }

  /** The D1 session, opened on first use. */
  get d1(): D1DatabaseSession {
    if (!this.#binding) throw new Error("A statement ran on the request's shard before its account was known (db/shards/placement.ts)");
    this.#session ??= this.#binding.withSession(this.#start);
    return this.#session;
  }

  /** The latest bookmark of the session; null when the request ran no statement. */
  bookmark(): D1SessionBookmark | null {
    return this.#session?.getBookmark() ?? null;
  }

  /** Notes where a D1 result was served, when the runtime says (`served_by_region`, `served_by_primary`). */
  record(meta: Partial<D1Meta> | undefined): void {
    if (meta?.served_by_region === undefined && meta?.served_by_primary === undefined) return;
    this.servedBy.push({ region: meta.served_by_region, primary: meta.served_by_primary });
  }
}

export type SessionStartKind = "first-primary" | "first-unconstrained" | "bookmark";

export interface ServedBy {
  region?: string;
  primary?: boolean;
}

/** `X-D1-Served-By`: one entry per D1 call that reported it, e.g. `primary`, `replica@WEUR`. */
export function describeServedBy(servedBy: readonly ServedBy[]): string {
  return servedBy.map((s) => `${s.primary === undefined ? "unknown" : s.primary ? "primary" : "replica"}${s.region ? `@${s.region}` : ""}`).join(", ");
}

/** What a request's Drizzle handle runs on: a D1 session has `prepare` and `batch`, no `exec`. */
export type D1Client = Pick<D1DatabaseSession, "prepare" | "batch">;

/**
 * A bookmark as D1 makes them: four hexadecimal groups (8-8-8-32). Checked before use because the
 * runtime does not say the same thing everywhere about a malformed one (local D1 takes any string).
 */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/i;
export const isBookmark = (text: string): boolean => BOOKMARK.test(text);

/**
 * Where a request's session starts: a request that may write at the primary; one that only reads
 * from the client's bookmark if it sent one, else anywhere (the nearest replica). A write ignores
 * the bookmark's position: the primary is at least as fresh as any bookmark.
 */
export function sessionStart(method: string, bookmark: string | undefined): D1SessionConstraint | D1SessionBookmark {
  if (method !== "GET" && method !== "HEAD") return "first-primary";
  return bookmark ?? "first-unconstrained";
}
