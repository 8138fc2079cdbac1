import { civilDateOf, dayNumberOf, type DayNumber } from "./day-numbers";

/**
 * ISO `YYYY-MM-DD` at the API edge, day numbers inside.
 *
 * Supported dates keep a two-year margin inside years 0001..9999: a period that contains
 * a supported date (a fiscal year can start up to a year before it or end up to a year
 * after it, plus the few days a 4-4-5 year-end may spill into the next month) then starts
 * and ends within 0001-01-01..9999-12-31, so every date we print has a four-digit year.
 */
export const MIN_SUPPORTED_DATE = "0003-01-01";
export const MAX_SUPPORTED_DATE = "9997-12-31";
const MIN_SUPPORTED_DAY = dayNumberOf(3, 1, 1);
const MAX_SUPPORTED_DAY = dayNumberOf(9997, 12, 31);

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a well-formed, real calendar date; undefined for anything else ("2023-02-29" included). */
export function parseIsoDate(text: string): DayNumber | undefined {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const dayNumber = dayNumberOf(year, month, day);
  // A day past the month's end rolls into the next month; the round trip catches it.
  const back = civilDateOf(dayNumber);
  return back.month === month && back.day === day ? dayNumber : undefined;
}

export function isSupportedDay(dayNumber: DayNumber): boolean {
  return dayNumber >= MIN_SUPPORTED_DAY && dayNumber <= MAX_SUPPORTED_DAY;
}

/** "00".."99": formatting runs once or twice per listed day, and table lookups beat padStart. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, value) => (value < 10 ? "0" : "") + value);

/** Years 0000..9999 (what supported dates produce); others print their plain year number. */
export function formatIsoDate(dayNumber: DayNumber): string {
  const { year, month, day } = civilDateOf(dayNumber);
  const century = Math.floor(year / 100);
  const yearText = year >= 0 && year <= 9999 ? TWO_DIGITS[century] + TWO_DIGITS[year - century * 100] : String(year);
  return yearText + "-" + TWO_DIGITS[month] + "-" + TWO_DIGITS[day];
}
