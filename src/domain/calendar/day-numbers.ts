/**
 * Dates as integer day numbers (days since 1970-01-01, negative before), on the proleptic
 * Gregorian calendar. Plain integer arithmetic, no Date objects: this runs once per listed day.
 * The conversions are Howard Hinnant's `days_from_civil` / `civil_from_days`, which count
 * years from 1 March so that the leap day is the last day of the counted year.
 */
export type DayNumber = number;

export interface CivilDate {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
}

const DAYS_PER_400_YEARS = 146_097;
/** Day number of 0000-03-01, the start of the first 400-year era. */
const ERA_ZERO_OFFSET = 719_468;

export function dayNumberOf(year: number, month: number, day: number): DayNumber {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfMarchYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfMarchYear;
  return era * DAYS_PER_400_YEARS + dayOfEra - ERA_ZERO_OFFSET;
}

export function civilDateOf(dayNumber: DayNumber): CivilDate {
  const shifted = dayNumber + ERA_ZERO_OFFSET;
  const era = Math.floor(shifted / DAYS_PER_400_YEARS);
  const dayOfEra = shifted - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfMarchYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfMarchYear + 2) / 153);
  const day = dayOfMarchYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** ISO weekday: 1 = Monday .. 7 = Sunday. Day 0 (1970-01-01) was a Thursday. */
export function isoWeekdayOf(dayNumber: DayNumber): number {
  return ((((dayNumber + 3) % 7) + 7) % 7) + 1;
}

/** The last day on or before `dayNumber` that falls on `isoWeekday`. */
export function weekdayOnOrBefore(dayNumber: DayNumber, isoWeekday: number): DayNumber {
  return dayNumber - ((isoWeekdayOf(dayNumber) - isoWeekday + 7) % 7);
}

/**
 * Months counted on one axis: index = year * 12 + (month - 1). Lets month-based calendars
 * shift years by whole months without caring about calendar-year boundaries.
 */
export function firstDayOfMonthIndex(monthIndex: number): DayNumber {
  const year = Math.floor(monthIndex / 12);
  return dayNumberOf(year, monthIndex - year * 12 + 1, 1);
}

export function monthIndexOf(dayNumber: DayNumber): number {
  const { year, month } = civilDateOf(dayNumber);
  return year * 12 + month - 1;
}

/** The last day of a month (month 1..12). */
export function lastDayOfMonth(year: number, month: number): DayNumber {
  return firstDayOfMonthIndex(year * 12 + month) - 1;
}
