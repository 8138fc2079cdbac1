import type { DayNumber } from "./day-numbers";

/**
 * How one kind of calendar lays out its fiscal years. Everything else (quarters, names,
 * listing, counting) is derived from these answers in periods.ts, the same way for every kind.
 *
 * A fiscal year is identified by its number, the calendar year in which it ends.
 */
export interface CalendarKind {
  /** The fiscal year that contains `day`. */
  yearContaining(day: DayNumber): number;

  /**
   * The first days of the year's 12 fiscal months, then the first day of the next year
   * (13 entries). Month i is [starts[i], starts[i + 1]). Quarters are 3 of these months.
   */
  monthStarts(fiscalYear: number): readonly DayNumber[];

  /**
   * The weeks that belong to a fiscal year: the start day of its week 1 and how many weeks
   * it has. The weeks of consecutive years must follow each other without gap or overlap.
   */
  weeksOf(fiscalYear: number): { firstWeekStart: DayNumber; count: number };

  /** Whether years, quarters and months are made of whole weeks (then they report `weeks`). */
  readonly monthsAreWholeWeeks: boolean;

  /** "FY2027" for fiscal calendars. */
  yearName(fiscalYear: number): string;
}
