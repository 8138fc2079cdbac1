import { and, asc, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import { COUNT_LIMIT_GUARD, refusedBy } from "../../db/batch-guards";
import { calendarLimitGuard, calendarUsage, DEFAULT_CALENDAR_ID, MAX_CALENDARS_PER_ACCOUNT, readCalendarUsers, selectCalendar, selectCalendarUsers } from "../../db/calendars";
import { ROW_CHANGED } from "../../db/audit-trail";
import type { Database } from "../../db/client";
import { boundAsGiven, compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import type { UserPrincipal } from "../../domain/principal";
import { diffMembers } from "../../domain/audit/changes";
import { calendars } from "../../db/schema";
import { accountForWrite, accountIdOf, compiledPerScope, scopeOf, scoped, type AccountScope } from "../../db/scope";
import { inUse } from "../../db/source-items";
import { GREGORIAN, listPeriods, periodsAt, type CalendarDefinition } from "../../domain/calendar";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, duplicated, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, ifMatchOf, auditForCreate, auditForUpdate, checkIfMatch, etagOf, ifMatchValue, locationOf, newRevision } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import { definitionColumns, definitionOf, periodQueryError, toCalendar, toPeriodsAt, type CalendarRow } from "./calendars.model";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./calendars.routes";

/**
 * Every calendar route admits users of an account only (access `accountMember`, or a privilege the
 * supervisor lacks), so the caller's scope is always its own account.
 */
const scopeOfCaller = (c: Context<AppEnv>) => scopeOf(c.get("principal"));

/** The writes need ROLE_ADMINISTER_CALENDARS, which the supervisor lacks: their caller is a user. */
const userOf = (c: Context<AppEnv>) => c.get("principal") as UserPrincipal;

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

// The writes' statements, compiled once per isolate (db/compiled.ts): Drizzle built them on every
// request (13 % of a PATCH's CPU). fiscal445 is bound as its JSON text, or NULL (boundAsGiven).
const DEFINITION = { ...placeholders("name", "type", "monthShift"), fiscal445: boundAsGiven("fiscal445Json") };
const definitionValues = <Row extends Pick<CalendarRow, "fiscal445">>(row: Row) => ({ ...row, fiscal445Json: row.fiscal445 === null ? null : JSON.stringify(row.fiscal445) });
const insertCalendar = compiled((db) =>
  db.insert(calendars).values({
    ...DEFINITION,
    ...placeholders("id", "revision", "accountId", "createdByUserName", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
  }),
);
/** The calendar `id`, while it has the revision `ifMatch` names (none: any). */
const calendarTargeted = () => and(eq(calendars.id, sql.placeholder("id")), ifMatchPlaceholder(calendars.revision));
const updateCalendar = compiled((db) =>
  db
    .update(calendars)
    .set({ ...DEFINITION, ...placeholders("revision", "lastModifiedByUserId", "lastModifiedDate") })
    .where(calendarTargeted())
    .returning(),
);
const deleteCalendar = compiled((db) => db.delete(calendars).where(calendarTargeted()).returning({ id: calendars.id }));

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
    await db.batch([calendarLimitGuard(db, accountId), inBatch(insertCalendar(db), definitionValues(row))]);
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
    updated = await updateCalendar(db).get({ ...definitionValues(changes), id: current.id, ifMatch: ifMatchValue(c, current.revision) });
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
  const principal = userOf(c);
  const scope = scopeOf(principal);
  const [rows, users] = await db.batch([inBatch(calendarById(db, scope), { accountId: accountIdOf(scope), calendarId }), selectCalendarUsers(db, principal, calendarId)]);
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
    deleted = await deleteCalendar(db).all({ id: current.id, ifMatch: ifMatchValue(c, current.revision) });
  } catch (err) {
    // A derived field took the calendar up meanwhile: its reference row's foreign key refused the delete.
    if (isConstraintError(err, "FOREIGN KEY")) refuseInUse(await readCalendarUsers(db, principal, calendarId));
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
