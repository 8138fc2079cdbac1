/**
 * Calendar period arithmetic: which years, quarters, months, weeks and days a calendar has.
 * Pure TypeScript, no HTTP, database or Date objects. The rules:
 *
 * Years. A fiscal year is named after the calendar year in which it ends: "FY2027".
 *  - MONTH_SHIFT s (-11..11): the year starts on the 1st of the month s months after January
 *    (before it when negative) and has 12 calendar months. -11 → FY2027 = 2026-02-01..2027-01-31,
 *    +4 → FY2028 = 2027-05-01..2028-04-30, +11 → FY2028 starts 2027-12-01. Shifts s and s - 12
 *    therefore give the same years (+1 and -11 both start on 1 February).
 *  - The built-in Gregorian calendar (GREGORIAN, id `default`) is MONTH_SHIFT 0; its years are
 *    calendar years and are named without the prefix: "2027", "2027 Q1".
 *  - FISCAL_445: 52/53-week years ending on `yearEndWeekDay`, the last one of `yearEndIsoMonth`
 *    or the one nearest that month's last day (up to 3 days into the next month). The year is
 *    named after the year-end month: a December year-end that falls on 2026-01-03 closes FY2025.
 *
 * Quarters are 3 fiscal months. FISCAL_445 months have 4 or 5 weeks following `quarterType`,
 * and fiscal month `leapWeekInMonth` gets the 53rd week of a 53-week year.
 *
 * Weeks. FISCAL_445: week 1 starts on the year's first day. Month-based calendars: weeks
 * start on Monday and belong to the fiscal year that contains their Thursday (ISO 8601 weeks
 * with the year boundaries shifted; exactly the ISO weeks for the Gregorian calendar). Either
 * way weeks are 7 days back to back and a year has 52 or 53 of them.
 *
 * Period fields. `name`: "FY2027", "FY2027 Q1", "FY2027 M01" (first fiscal month), "FY2027 W01",
 * and the ISO date for DAY. `year`: the fiscal year (for a week, the year it is numbered in).
 * `number`: 1-based inside that year (quarter 1-4, month 1-12, week 1-53, day of the fiscal
 * year 1-371). `start`, `end`: ISO dates, `end` exclusive. `weeks`: the number of whole weeks:
 * FISCAL_445 years 52/53, quarters 13/14, months 4/5 (6 when the leap week lands on a 5-week
 * month), any WEEK 1; null for DAY, and for years, quarters and months of month-based calendars.
 *
 * Dates. ISO YYYY-MM-DD from MIN_SUPPORTED_DATE (0003-01-01) to MAX_SUPPORTED_DATE (9997-12-31):
 * a two-year margin keeps every period around them inside four-digit years. A range lists the
 * periods that overlap [from, to], both inclusive; more than `maxPeriods` (10,000) is refused,
 * and countPeriods answers the count in constant time.
 */
export type { CalendarKind } from "./calendar-kind";
export type {
  CalendarDefinition,
  CalendarType,
  Fiscal445Definition,
  Fiscal445Settings,
  IsoMonth,
  MonthShiftDefinition,
  PeriodType,
  QuarterType,
  Weekday,
} from "./definition";
export { CALENDAR_TYPES, GREGORIAN, ISO_MONTHS, PERIOD_TYPES, QUARTER_TYPES, WEEKDAYS } from "./definition";
export type { DayNumber } from "./day-numbers";
export { formatIsoDate, isSupportedDay, MAX_SUPPORTED_DATE, MIN_SUPPORTED_DATE, parseIsoDate } from "./iso-date";
export { calendarKindFor } from "./kinds";
export type { CalendarPeriod, CalendarQueryError, Outcome, PeriodsAtDate } from "./periods";
export { countPeriods, DEFAULT_MAX_PERIODS, listPeriods, periodsAt } from "./periods";
