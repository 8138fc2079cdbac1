import type { CalendarKind } from "./calendar-kind";
import type { MonthShiftDefinition } from "./definition";
import { firstDayOfMonthIndex, monthIndexOf, weekdayOnOrBefore, type DayNumber } from "./day-numbers";

const MONDAY = 1;
const THURSDAY_OFFSET = 3;

/**
 * Years of 12 calendar months that start on the 1st of the month `monthShift` months after
 * January (before it when negative), named after the calendar year in which they end:
 * shift -11 → FY2027 = 2026-02-01..2027-01-31; +4 → FY2028 = 2027-05-01..2028-04-30.
 * So shifts s and s - 12 (say +1 and -11) give the same years. Shift 0 is the Gregorian calendar.
 *
 * Weeks follow ISO 8601 with the year boundaries moved: they start on Monday and belong to
 * the fiscal year that contains their Thursday (for shift 0 they are exactly the ISO weeks).
 */
export function monthShiftKind(definition: MonthShiftDefinition): CalendarKind {
  const { monthShift } = definition;
  if (!Number.isInteger(monthShift) || monthShift < -11 || monthShift > 11) {
    throw new RangeError(`monthShift must be an integer from -11 to 11, got ${monthShift}`);
  }
  // FY y starts at month index y * 12 + firstMonthOffset (month index = year * 12 + month - 1).
  // A positive shift starts in the previous calendar year, since the year is named by its end.
  const firstMonthOffset = monthShift > 0 ? monthShift - 12 : monthShift;
  const yearPrefix = monthShift === 0 ? "" : "FY";

  const yearStart = (fiscalYear: number): DayNumber => firstDayOfMonthIndex(fiscalYear * 12 + firstMonthOffset);
  // Week 1 is the week that holds the year's first Thursday, i.e. the week of its 4th day.
  const firstWeekStart = (fiscalYear: number): DayNumber =>
    weekdayOnOrBefore(yearStart(fiscalYear) + THURSDAY_OFFSET, MONDAY);

  return {
    yearContaining(day) {
      return Math.floor((monthIndexOf(day) - firstMonthOffset) / 12);
    },
    monthStarts(fiscalYear) {
      const first = fiscalYear * 12 + firstMonthOffset;
      const starts: DayNumber[] = [];
      for (let i = 0; i <= 12; i++) starts.push(firstDayOfMonthIndex(first + i));
      return starts;
    },
    weeksOf(fiscalYear) {
      const start = firstWeekStart(fiscalYear);
      return { firstWeekStart: start, count: (firstWeekStart(fiscalYear + 1) - start) / 7 };
    },
    monthsAreWholeWeeks: false,
    yearName(fiscalYear) {
      return yearPrefix + String(fiscalYear).padStart(4, "0");
    },
  };
}
