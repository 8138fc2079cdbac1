import type { calendars } from "../../db/schema";
import type { CalendarDefinition, CalendarQueryError, PeriodsAtDate } from "../../domain/calendar";
import { ApiError, invalid } from "../../lib/errors";
import type { CalendarInput } from "./calendars.schemas";

/** A calendar between its stored row, its API shape and the definition the period arithmetic takes. */
export type CalendarRow = typeof calendars.$inferSelect;

/** The columns that say what the calendar's years are: exactly one of month_shift and fiscal445 (a CHECK holds it). */
export function definitionColumns(input: CalendarInput) {
  return input.type === "MONTH_SHIFT"
    ? { type: input.type, monthShift: input.monthShift!, fiscal445: null }
    : { type: input.type, monthShift: null, fiscal445: input.fiscal445! };
}

export function definitionOf(row: Pick<CalendarRow, "type" | "monthShift" | "fiscal445">): CalendarDefinition {
  return row.type === "FISCAL_445" ? { type: "FISCAL_445", fiscal445: row.fiscal445! } : { type: "MONTH_SHIFT", monthShift: row.monthShift! };
}

/** In the spec's member order; each type shows its own member only. */
export function toCalendar(row: CalendarRow) {
  return {
    type: row.type as CalendarDefinition["type"],
    name: row.name,
    id: row.id,
    ...(row.type === "MONTH_SHIFT" ? { monthShift: row.monthShift! } : { fiscal445: row.fiscal445! }),
    auditable: {
      createdByUserId: row.createdByUserId,
      createdByUserName: row.createdByUserName,
      createdDate: row.createdDate,
      lastModifiedByUserId: row.lastModifiedByUserId,
      lastModifiedDate: row.lastModifiedDate,
    },
  };
}

export function toPeriodsAt(date: string, periods: PeriodsAtDate) {
  return { date, year: periods.YEAR, quarter: periods.QUARTER, month: periods.MONTH, week: periods.WEEK };
}

/** A refused period query as a 400 naming the query member at fault (the range's end for a range as a whole). */
export function periodQueryError(error: CalendarQueryError): ApiError {
  switch (error.code) {
    case "INVALID_DATE":
    case "DATE_OUT_OF_RANGE":
      return invalid(`query.${error.parameter}`, error.message);
    case "RANGE_REVERSED":
      return invalid("query.to", error.message);
    case "TOO_MANY_PERIODS":
      return new ApiError("TOO_MANY_PERIODS", error.message, {
        problems: [{ name: "query.to", message: `${error.message}: narrow the range or ask for longer periods`, level: "ERROR" }],
      });
  }
}
