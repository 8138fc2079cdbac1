import type { Context } from "hono";
import { asc, desc, eq, gt, lt, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { toHex } from "../domain/bytes";
import type { PageBinding } from "../domain/page-token";
import type { Principal } from "../domain/principal";
import { ApiError } from "./errors";
import type { AppEnv } from "./types";

/** ETags derive from the row's revision token, which every write replaces. */
export const etagOf = (revision: string) => `"${revision}"`;

/** 64 random bits as 16 hex characters. */
export const newRevision = () => toHex(crypto.getRandomValues(new Uint8Array(8)));

/**
 * The If-Match a write obeys: the request's header, or the one a PATCH (src/lib/merge-patch-route.ts)
 * implies when it hands the merged representation to the PUT's write: the revision it read, so that
 * a change made between its read and its write is never silently overwritten.
 */
export function ifMatchOf(c: Context<AppEnv>): string | undefined {
  return c.get("impliedIfMatch") ?? c.req.header("If-Match");
}

/** 412 when the request's If-Match names none of the object's current ETag (strong comparison: a W/ tag never matches). */
export function checkIfMatch(c: Context<AppEnv>, revision: string): void {
  const header = ifMatchOf(c);
  if (!header || header.trim() === "*") return;
  const current = etagOf(revision);
  const tags = header.split(",").map((t) => t.trim());
  if (!tags.includes(current)) {
    throw new ApiError("PRECONDITION_FAILED", `If-Match ${header} does not match the current ETag ${current}`);
  }
}

/**
 * The condition an update adds for optimistic locking: with If-Match, the row must still carry
 * the revision that was checked (a concurrent writer makes the update miss: 412); without it,
 * none, and the last writer wins.
 */
export function ifMatchGuard(c: Context<AppEnv>, revisionColumn: SQLiteColumn, checkedRevision: string): SQL | undefined {
  return ifMatchOf(c) ? eq(revisionColumn, checkedRevision) : undefined;
}

/** ifMatchGuard for a compiled write: the value of its `ifMatch` placeholder (db/compiled.ts ifMatchPlaceholder), null for none. */
export function ifMatchValue(c: Context<AppEnv>, checkedRevision: string): string | null {
  return ifMatchOf(c) ? checkedRevision : null;
}

/** The revisions whose ETags are among `tags` (entity tags as sent, quotes included, `W/` removed if weak comparison applies). */
export function revisionsNamedBy(tags: readonly string[]): string[] {
  return tags.filter((tag) => tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"')).map((tag) => tag.slice(1, -1));
}

/**
 * If-Match for a write that checks it inside its own batch instead of reading first: undefined
 * without the header, "*" for any existing object, else the revisions its tags name (strong
 * comparison, as checkIfMatch: a W/ tag names none). Such a write answers 412 when it finds no
 * object with one of them, the object missing included.
 */
export function ifMatchRevisions(c: Context<AppEnv>): string[] | "*" | undefined {
  const header = ifMatchOf(c);
  if (!header) return undefined;
  if (header.trim() === "*") return "*";
  return revisionsNamedBy(header.split(",").map((tag) => tag.trim()));
}

/** A body may repeat the path's id, never name another object. */
export function assertSameId(bodyId: string | undefined, pathId: string): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw new ApiError("ID_MISMATCH", "Body id differs from the path id", {
      problems: [{ name: "body.id", message: "Must equal the id in the path", level: "ERROR" }],
    });
  }
}

export interface AuditColumns {
  createdByUserId: string;
  createdDate: string;
  lastModifiedByUserId: string;
  lastModifiedDate: string;
}

export function auditForCreate(principal: Principal, now = new Date()): AuditColumns {
  const at = now.toISOString();
  return { createdByUserId: principal.id, createdDate: at, lastModifiedByUserId: principal.id, lastModifiedDate: at };
}

export function auditForUpdate(principal: Principal, now = new Date()) {
  return { lastModifiedByUserId: principal.id, lastModifiedDate: now.toISOString() };
}

/** What a PATCH writes: the members its body sends (those left out are kept), a new revision, the audit of the update. */
export function patchChanges<T extends object>(body: T, principal: Principal) {
  const sent = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as Partial<T>;
  return { ...sent, revision: newRevision(), ...auditForUpdate(principal) };
}

/** The audit members as the API spells them. */
export function auditOut(row: AuditColumns) {
  return {
    createdByUserID: row.createdByUserId,
    createdDate: row.createdDate,
    lastModifiedByUserID: row.lastModifiedByUserId,
    lastModifiedDate: row.lastModifiedDate,
  };
}

/** The URL of an object created by PUT: the request's own path. */
export function ownLocation(c: Context<AppEnv>): string {
  return new URL(c.req.url).pathname.replace(/\/+$/, "");
}

export function locationOf(c: Context<AppEnv>, id: string): string {
  const path = new URL(c.req.url).pathname.replace(/\/+$/, "");
  return `${path}/${encodeURIComponent(id)}`;
}

export interface PageRequest {
  maxResults: number;
  pageToken?: string;
}

export interface Page<T> {
  content: T[];
  pageInfo: { nextPageToken: string | null; previousPageToken: string | null };
}

/**
 * Keyset pagination over a unique key column: the plan gives the key condition, order and limit
 * to add to the caller's scoped query (which the caller may batch with other reads), and turns
 * the rows into the page. One indexed query per page, whatever its depth. Page tokens are sealed
 * and bound to `binding` (the list, its account and filters): see domain/page-token.ts.
 */
export async function keysetPlan<T>(
  c: Context<AppEnv>,
  binding: PageBinding,
  keyColumn: SQLiteColumn,
  keyOf: (row: T) => string,
  page: PageRequest,
  options: { newestFirst?: boolean } = {},
) {
  const tokens = c.get("config").pageTokens;
  const size = page.maxResults;
  const cursor = page.pageToken === undefined ? undefined : await tokens.decode(page.pageToken, binding);
  if (page.pageToken !== undefined && !cursor) {
    throw new ApiError("INVALID_PAGE_TOKEN", "pageToken is not a live token of this list", {
      problems: [{ name: "query.pageToken", message: "Unknown, altered, expired, or issued for another list", level: "ERROR" }],
    });
  }
  const token = (direction: "next" | "previous", row: T | undefined) => (row ? tokens.encode({ direction, key: keyOf(row) }, binding) : null);
  const backwards = cursor?.direction === "previous";
  const shape: PageShape = cursor?.direction ?? "first";
  const { keyCondition, orderBy, descending } = pageClauses(keyColumn, shape, cursor?.key, options.newestFirst);
  return {
    keyCondition,
    orderBy,
    /** Whether `orderBy` is descending: for merging the rows several databases answered (db/shards/read-everywhere.ts). */
    descending,
    limit: size + 1,
    /** For a list compiled per page shape (perPageShape): the template this page runs, and its values. */
    shape,
    pageValues: { pageKey: cursor?.key, pageLimit: size + 1 },
    async toPage(rows: T[]): Promise<Page<T>> {
      const more = rows.length > size;
      const content = backwards ? rows.slice(0, size).reverse() : rows.slice(0, size);
      const [next, previous] = backwards
        ? [token("next", content.at(-1)), more ? token("previous", content[0]) : null]
        : [more ? token("next", content.at(-1)) : null, cursor ? token("previous", content[0]) : null];
      return { content, pageInfo: { nextPageToken: await next, previousPageToken: await previous } };
    },
  };
}

/** A page of a keyset list: the first, or the one after (next) or before (previous) a page token's key. */
export type PageShape = "first" | "next" | "previous";

/** The key condition and order of a page of `shape`, its key a value or (compiled) a placeholder. Descending keys (newest first) walk the other way. */
function pageClauses(keyColumn: SQLiteColumn, shape: PageShape, key: string | Placeholder | undefined, newestFirst = false) {
  const downwards = (shape === "previous") !== newestFirst;
  return {
    keyCondition: shape === "first" || key === undefined ? undefined : downwards ? lt(keyColumn, key) : gt(keyColumn, key),
    orderBy: downwards ? desc(keyColumn) : asc(keyColumn),
    descending: downwards,
  };
}

/**
 * A keyset list's query for each page shape, to compile once per isolate (db/compiled.ts): `make`
 * gets the shape's key condition and order on the placeholder "pageKey", and its limit as
 * "pageLimit"; a request runs `templates[plan.shape]` with `plan.pageValues` (keysetPlan).
 */
export function perPageShape<T>(keyColumn: SQLiteColumn, make: (page: { keyCondition: SQL | undefined; orderBy: SQL; limit: Placeholder }) => T, newestFirst = false): Record<PageShape, T> {
  const of = (shape: PageShape) => ({ ...pageClauses(keyColumn, shape, sql.placeholder("pageKey"), newestFirst), limit: sql.placeholder("pageLimit") });
  return { first: make(of("first")), next: make(of("next")), previous: make(of("previous")) };
}

