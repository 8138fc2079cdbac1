import type { CalendarKind } from "./calendar-kind";
import { ISO_MONTHS, QUARTER_TYPES, WEEKDAYS, type Fiscal445Definition, type QuarterType } from "./definition";
import { civilDateOf, lastDayOfMonth, weekdayOnOrBefore, type DayNumber } from "./day-numbers";

/** Weeks of the three months of every quarter. */
const QUARTER_PATTERNS: Record<QuarterType, readonly number[]> = {
  QUARTER_445_WEEKS: [4, 4, 5],
  QUARTER_454_WEEKS: [4, 5, 4],
  QUARTER_544_WEEKS: [5, 4, 4],
};

/**
 * 52/53-week years (4-4-5 and friends). A year ends on `yearEndWeekDay`: the last one in
 * `yearEndIsoMonth` (yearEndsInLastWeek) or the one nearest that month's last day, which may
 * be up to 3 days into the next month. FY y is the year whose year-end belongs to that month
 * of calendar year y, even when it spills over (a December year-end on 2026-01-03 closes FY2025):
 * naming by the literal end date would give two years the same name.
 *
 * A year holds the weeks after the previous year-end, week 1 starting the day after it.
 * Months take 4 or 5 weeks following `quarterType`; in a 53-week year the extra week goes to
 * fiscal month `leapWeekInMonth` (so a month can have 6 weeks if that month already had 5).
 */
export function fiscal445Kind(definition: Fiscal445Definition): CalendarKind {
  const settings = definition.fiscal445;
  const endWeekday = WEEKDAYS.indexOf(settings.yearEndWeekDay) + 1;
  const endMonth = ISO_MONTHS.indexOf(settings.yearEndIsoMonth) + 1;
  if (endWeekday === 0) throw new RangeError(`unknown yearEndWeekDay ${settings.yearEndWeekDay}`);
  if (endMonth === 0) throw new RangeError(`unknown yearEndIsoMonth ${settings.yearEndIsoMonth}`);
  if (!QUARTER_TYPES.includes(settings.quarterType)) throw new RangeError(`unknown quarterType ${settings.quarterType}`);
  const { leapWeekInMonth, yearEndsInLastWeek } = settings;
  if (!Number.isInteger(leapWeekInMonth) || leapWeekInMonth < 1 || leapWeekInMonth > 12) {
    throw new RangeError(`leapWeekInMonth must be an integer from 1 to 12, got ${leapWeekInMonth}`);
  }
  const pattern = QUARTER_PATTERNS[settings.quarterType];

  /** The last day of FY `fiscalYear`. */
  const yearEnd = (fiscalYear: number): DayNumber => {
    const monthEnd = lastDayOfMonth(fiscalYear, endMonth);
    const onOrBefore = weekdayOnOrBefore(monthEnd, endWeekday);
    if (yearEndsInLastWeek) return onOrBefore;
    // Nearest: at most 3 days before the month's end, otherwise at most 3 days after it.
    return monthEnd - onOrBefore <= 3 ? onOrBefore : onOrBefore + 7;
  };

  return {
    yearContaining(day) {
      // A year ends within days of its month's end, so the answer is the day's calendar year or a neighbour.
      let fiscalYear = civilDateOf(day).year;
      while (day > yearEnd(fiscalYear)) fiscalYear++;
      while (day <= yearEnd(fiscalYear - 1)) fiscalYear--;
      return fiscalYear;
    },
    monthStarts(fiscalYear) {
      const start = yearEnd(fiscalYear - 1) + 1;
      const hasLeapWeek = yearEnd(fiscalYear) - start + 1 === 53 * 7;
      const starts: DayNumber[] = [start];
      let next = start;
      for (let month = 1; month <= 12; month++) {
        const weeks = pattern[(month - 1) % 3] + (hasLeapWeek && month === leapWeekInMonth ? 1 : 0);
        next += weeks * 7;
        starts.push(next);
      }
      return starts;
    },
    weeksOf(fiscalYear) {
      const start = yearEnd(fiscalYear - 1) + 1;
      return { firstWeekStart: start, count: (yearEnd(fiscalYear) + 1 - start) / 7 };
    },
    monthsAreWholeWeeks: true,
    yearName(fiscalYear) {
      return "FY" + String(fiscalYear).padStart(4, "0");
    },
  };
}
