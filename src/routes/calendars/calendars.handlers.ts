import { and, asc, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import { COUNT_LIMIT_GUARD, refusedBy } from "../../db/batch-guards";
import { calendarLimitGuard, calendarUsage, DEFAULT_CALENDAR_ID, MAX_CALENDARS_PER_ACCOUNT, selectCalendar, selectCalendarUsers } from "../../db/calendars";
import { ROW_CHANGED } from "../../db/audit-trail";
import type { Database } from "../../db/client";
import { diffMembers } from "../../domain/audit/changes";
import { calendars } from "../../db/schema";
import { accountForWrite, accountIdOf, compiledPerScope, scopeOf, scoped, type AccountScope } from "../../db/scope";
import { inUse } from "../../db/source-items";
import { GREGORIAN, listPeriods, periodsAt, type CalendarDefinition } from "../../domain/calendar";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, duplicated, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, ifMatchOf, auditForCreate, auditForUpdate, checkIfMatch, etagOf, ifMatchGuard, locationOf, newRevision } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import { definitionColumns, definitionOf, periodQueryError, toCalendar, toPeriodsAt, type CalendarRow } from "./calendars.model";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./calendars.routes";

/**
 * Every calendar route admits users of an account only (access `accountMember`, or a privilege the
 * supervisor lacks), so the caller's scope is always its own account.
 */
const scopeOfCaller = (c: Context<AppEnv>) => scopeOf(c.get("principal"));

// Compiled once per isolate (db/compiled.ts): E8 and the periods routes read a calendar on every request.
const calendarById = compiledPerScope((db, scope) => selectCalendar(db, scope, sql.placeholder("calendarId")));

async function findCalendar(db: Database, scope: AccountScope, calendarId: string): Promise<CalendarRow> {
  const row = await calendarById(db, scope).get({ accountId: accountIdOf(scope), calendarId });
  if (!row) throw notFound("Calendar");
  return row;
}

const calendarTarget = (row: CalendarRow) => ({ type: "calendar" as const, id: row.id, name: row.name });

const changedConcurrently = () => new ApiError("PRECONDITION_FAILED", "The calendar was changed concurrently; reload it and retry");

function mapWriteError(err: unknown, name: string): never {
  if (isConstraintError(err, "UNIQUE")) throw duplicated(`A calendar named '${name}' already exists in the account`);
  if (refusedBy(err, COUNT_LIMIT_GUARD)) {
    throw new ApiError("TOO_MANY_CALENDARS", `The account already has ${MAX_CALENDARS_PER_ACCOUNT} calendars, the most it may have`);
  }
  throw err;
}

// Compiled once per isolate (db/compiled.ts): E9 reads the list on every request.
const calendarsInNameOrder = compiledPerScope((db, scope) => db.select().from(calendars).where(scoped(calendars.accountId, scope)).orderBy(asc(calendars.name)));

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const scope = scopeOfCaller(c);
  const rows = await calendarsInNameOrder(c.get("db"), scope).all({ accountId: accountIdOf(scope) });
  return c.json({ content: rows.map(toCalendar) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  const principal = c.get("principal");
  const accountId = accountForWrite(principal, undefined);
  const row: CalendarRow = {
    id: crypto.randomUUID(),
    revision: newRevision(),
    accountId,
    name: body.name,
    ...definitionColumns(body),
    createdByUserName: principal.name,
    ...auditForCreate(principal),
  };
  c.get("audit").record({ accountId, action: "calendar.create", target: calendarTarget(row) });
  try {
    await db.batch([calendarLimitGuard(db, accountId), db.insert(calendars).values(row)]);
  } catch (err) {
    mapWriteError(err, body.name);
  }
  c.header("Location", locationOf(c, row.id));
  c.header("ETag", etagOf(row.revision));
  return c.json(toCalendar(row), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findCalendar(c.get("db"), scopeOfCaller(c), c.req.valid("param").calendarId);
  c.header("ETag", etagOf(row.revision));
  return c.json(toCalendar(row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { calendarId } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, calendarId);
  const db = c.get("db");
  const principal = c.get("principal");
  const current = await findCalendar(db, scopeOf(principal), calendarId);
  checkIfMatch(c, current.revision);
  const changes = { name: body.name, ...definitionColumns(body), revision: newRevision(), ...auditForUpdate(principal) };
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: current.accountId,
    action: "calendar.update",
    target: calendarTarget(current),
    changes: diffMembers(toCalendar(current), toCalendar({ ...current, ...changes })),
  });
  let updated: CalendarRow | undefined;
  try {
    updated = await db
      .update(calendars)
      .set(changes)
      .where(and(eq(calendars.id, current.id), ifMatchGuard(c, calendars.revision, current.revision)))
      .returning()
      .get();
  } catch (err) {
    mapWriteError(err, body.name);
  }
  // Missed: with If-Match, another write came first; without it, only a concurrent delete can explain it.
  if (!updated) throw ifMatchOf(c) ? changedConcurrently() : notFound("Calendar");
  c.header("ETag", etagOf(updated.revision));
  return c.json(toCalendar(updated), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { calendarId } = c.req.valid("param");
  const db = c.get("db");
  const principal = c.get("principal");
  const [rows, users] = await db.batch([selectCalendar(db, scopeOf(principal), calendarId), selectCalendarUsers(db, principal, calendarId)]);
  const current = rows[0];
  if (!current) throw notFound("Calendar");
  checkIfMatch(c, current.revision);
  const refuseInUse = (found: typeof users): never => {
    const { accessible, hasOtherUsages } = calendarUsage(found);
    throw inUse(current.name, accessible, "delete the calendar", hasOtherUsages);
  };
  if (users.length > 0) refuseInUse(users);
  c.get("audit").recordIf(ROW_CHANGED, { accountId: current.accountId, action: "calendar.delete", target: calendarTarget(current) });
  let deleted: { id: string }[];
  try {
    deleted = await db
      .delete(calendars)
      .where(and(eq(calendars.id, current.id), ifMatchGuard(c, calendars.revision, current.revision)))
      .returning({ id: calendars.id });
  } catch (err) {
    // A derived field took the calendar up meanwhile: its reference row's foreign key refused the delete.
    if (isConstraintError(err, "FOREIGN KEY")) refuseInUse(await selectCalendarUsers(db, principal, calendarId).all());
    throw err;
  }
  if (deleted.length === 0 && ifMatchOf(c)) throw changedConcurrently();
  return c.body(null, 204);
};

/** The definition behind a periods route's id: the built-in calendar costs no round trip, a stored one a single read. */
async function definitionFor(c: Context<AppEnv>, calendarId: string): Promise<CalendarDefinition> {
  if (calendarId === DEFAULT_CALENDAR_ID) return GREGORIAN;
  return definitionOf(await findCalendar(c.get("db"), scopeOfCaller(c), calendarId));
}

export const periods: AppRouteHandler<typeof routes.periods> = async (c) => {
  const { from, to, type } = c.req.valid("query");
  const result = listPeriods(await definitionFor(c, c.req.valid("param").calendarId), from, to, type);
  if (!result.ok) throw periodQueryError(result.error);
  return c.json({ content: result.periods }, 200);
};

export const periodsAtDate: AppRouteHandler<typeof routes.periodsAt> = async (c) => {
  const { date } = c.req.valid("query");
  const result = periodsAt(await definitionFor(c, c.req.valid("param").calendarId), date);
  if (!result.ok) throw periodQueryError(result.error);
  return c.json(toPeriodsAt(date, result.periods), 200);
};

/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update }) as unknown as AppRouteHandler<typeof routes.patch>;
