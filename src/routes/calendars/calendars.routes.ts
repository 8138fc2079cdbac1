import { mergePatchRouteOf } from "../../lib/merge-patch-route";
import { defineRoute, jsonBody, jsonContent, noContent , routeDeclaration } from "../../lib/openapi";
import {
  CalendarIdParamSchema,
  CalendarListSchema,
  CalendarPeriodListSchema,
  CalendarPeriodsAtSchema,
  CalendarSchema,
  CalendarWriteSchema,
  PeriodsAtQuerySchema,
  PeriodsParamSchema,
  PeriodsQuerySchema,
} from "./calendars.schemas";

const tags = ["Calendars"];
// Calendars live inside an account: any of its users reads them; the supervisor, in none, is refused.
const read = { kind: "accountMember" } as const;
const write = { kind: "privilege", privilege: "ROLE_ADMINISTER_CALENDARS" } as const;
const stability = "experimental" as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "E9 List calendars (the caller's account's, by name)",
  access: read,
  stability,
  responses: { 200: jsonContent(CalendarListSchema, "The calendars") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a calendar (ROLE_ADMINISTER_CALENDARS)",
  access: write,
  stability,
  errors: ["DUPLICATED", "TOO_MANY_CALENDARS"],
  request: { body: jsonBody(CalendarWriteSchema) },
  responses: { 201: jsonContent(CalendarSchema, "The calendar was created") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{calendarId}",
  tags,
  summary: "E8 Load a calendar",
  access: read,
  stability,
  errors: ["NOT_FOUND"],
  request: { params: CalendarIdParamSchema },
  responses: { 200: jsonContent(CalendarSchema, "The calendar was retrieved") },
});

const replace = routeDeclaration({
  method: "put",
  path: "/{calendarId}",
  tags,
  summary: "Replace a calendar (ROLE_ADMINISTER_CALENDARS)",
  access: write,
  stability,
  errors: ["NOT_FOUND", "DUPLICATED", "ID_MISMATCH", "PRECONDITION_FAILED"],
  request: { params: CalendarIdParamSchema, body: jsonBody(CalendarWriteSchema) },
  responses: { 200: jsonContent(CalendarSchema, "The calendar was updated") },
});

export const update = defineRoute(replace);

export const patch = defineRoute(mergePatchRouteOf(replace, "Change some members of a calendar (ROLE_ADMINISTER_CALENDARS)", "CalendarMergePatch"));

export const remove = defineRoute({
  method: "delete",
  path: "/{calendarId}",
  tags,
  summary: "Delete a calendar that no derived field uses (ROLE_ADMINISTER_CALENDARS)",
  access: write,
  stability,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: CalendarIdParamSchema },
  responses: { 204: noContent },
});

export const periods = defineRoute({
  method: "get",
  path: "/{calendarId}/periods",
  tags,
  summary: "The calendar's periods of one type that overlap a range of days (at most 10,000)",
  access: read,
  stability,
  errors: ["NOT_FOUND", "TOO_MANY_PERIODS"],
  request: { params: PeriodsParamSchema, query: PeriodsQuerySchema },
  responses: { 200: jsonContent(CalendarPeriodListSchema, "The periods, in order") },
});

export const periodsAt = defineRoute({
  method: "get",
  path: "/{calendarId}/periods/at",
  tags,
  summary: "The year, quarter, month and week of the calendar that contain a date",
  access: read,
  stability,
  errors: ["NOT_FOUND"],
  request: { params: PeriodsParamSchema, query: PeriodsAtQuerySchema },
  responses: { 200: jsonContent(CalendarPeriodsAtSchema, "The periods containing the date") },
});
