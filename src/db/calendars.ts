import { and, asc, eq, sql, type Placeholder } from "drizzle-orm";
import type { AccessibleObjectUsage } from "../lib/errors";
import type { UserPrincipal } from "../domain/principal";
import { COUNT_LIMIT_GUARD, refuseWhen } from "./batch-guards";
import type { Database } from "./client";
import { compiled, inBatch } from "./compiled";
import { calendarReferences, calendars, sourceItems, sources } from "./schema";
import { scoped, type QueryScope } from "./scope";
import { readableByEach } from "./source-access";

/**
 * Storage helpers for calendars that other resources share: derived fields name a calendar of
 * their source's account, and a calendar in use cannot be deleted. The query builders return
 * unexecuted queries so handlers can put them in one D1 batch.
 */

/** The id under which the built-in Gregorian calendar answers; stored calendars have UUIDs. */
export const DEFAULT_CALENDAR_ID = "default";

/** The most calendars an account may hold: the list (E9) is unpaged, so it stays bounded. */
export const MAX_CALENDARS_PER_ACCOUNT = 1000;

/** One calendar in the caller's scope (another account's is simply not found). Batchable. */
export function selectCalendar(db: Database, scope: QueryScope, calendarId: string | Placeholder) {
  return db
    .select()
    .from(calendars)
    .where(scoped(calendars.accountId, scope, eq(calendars.id, calendarId)));
}

// Compiled once per isolate (db/compiled.ts): every field write reads it (Drizzle built its SQL on every request).
const calendarOfSource = compiled((db) =>
  db
    .select({ id: calendars.id })
    .from(calendars)
    .where(and(eq(calendars.id, sql.placeholder("calendarId")), sql`${calendars.accountId} = (SELECT account_id FROM sources WHERE id = ${sql.placeholder("sourceId")})`)),
);

/** The calendar `calendarId` if it belongs to the account of source `sourceId`. Batchable. */
export function selectCalendarOfSource(db: Database, sourceId: string, calendarId: string) {
  return inBatch(calendarOfSource(db), { sourceId, calendarId });
}

/**
 * The first statement of a batch that creates a calendar: it fails the batch (COUNT_LIMIT_GUARD)
 * when the account already holds MAX_CALENDARS_PER_ACCOUNT. Counted inside the write's own
 * transaction, so concurrent creates cannot pass the limit together.
 */
export function calendarLimitGuard(db: Database, accountId: string) {
  return inBatch(limitGuard(db), { accountId });
}
// Compiled once per isolate (db/compiled.ts): every create runs it.
const limitGuard = compiled((db) =>
  refuseWhen(db, COUNT_LIMIT_GUARD, sql`(SELECT count(*) FROM calendars WHERE account_id = ${sql.placeholder("accountId")}) >= ${MAX_CALENDARS_PER_ACCOUNT}`, "CALENDAR"),
);

/**
 * The derived fields that use a calendar, with their sources and whether the caller may READ each
 * source, in the caller's account (the routes that ask admit users only). Batchable.
 */
export function selectCalendarUsers(db: Database, principal: UserPrincipal, calendarId: string) {
  const { query, values } = calendarUsers(db, principal);
  return inBatch(query, { ...values, calendarId });
}

/** selectCalendarUsers, read on its own. */
export function readCalendarUsers(db: Database, principal: UserPrincipal, calendarId: string): Promise<CalendarUser[]> {
  const { query, values } = calendarUsers(db, principal);
  return query.all({ ...values, calendarId });
}

// Compiled once per isolate (db/compiled.ts) for each kind of reader: every calendar's DELETE reads it.
const calendarUsers = readableByEach((db, readable) =>
  db
    // Distinct column names: D1 answers a batch's rows as objects, where two columns named `id` would collide.
    .select({
      id: sourceItems.id,
      name: sourceItems.name,
      sourceId: sql<string>`${sources.id}`.as("source_id"),
      sourceName: sql<string>`${sources.name}`.as("source_name"),
      readable: sql<number>`CASE WHEN ${readable} THEN 1 ELSE 0 END`.as("readable"),
    })
    .from(calendarReferences)
    .innerJoin(sourceItems, and(eq(sourceItems.sourceId, calendarReferences.sourceId), eq(sourceItems.name, calendarReferences.itemName)))
    .innerJoin(sources, eq(sources.id, calendarReferences.sourceId))
    .where(scoped(calendarReferences.accountId, { kind: "account", accountId: sql.placeholder("accountId") }, eq(calendarReferences.calendarId, sql.placeholder("calendarId"))))
    .orderBy(asc(sources.name), asc(sourceItems.name)),
);

export type CalendarUser = { id: string; name: string; sourceId: string; sourceName: string; readable: number };

/**
 * A calendar's users as ObjectUsage: the derived fields of sources the caller may READ, each with
 * its source as parent; the others only raise `hasOtherUsages` (their names are not the caller's to see).
 */
export function calendarUsage(users: readonly CalendarUser[]): { accessible: AccessibleObjectUsage[]; hasOtherUsages: boolean } {
  return {
    accessible: users
      .filter((u) => u.readable === 1)
      .map((u) => ({ id: u.id, name: u.name, type: "DERIVED_FIELD", parent: { id: u.sourceId, name: u.sourceName, type: "SOURCE" } })),
    hasOtherUsages: users.some((u) => u.readable !== 1),
  };
}
