import type { CalendarKind } from "./calendar-kind";
import type { CalendarDefinition, PeriodType } from "./definition";
import type { DayNumber } from "./day-numbers";
import { formatIsoDate, isSupportedDay, MAX_SUPPORTED_DATE, MIN_SUPPORTED_DATE, parseIsoDate } from "./iso-date";
import { calendarKindFor } from "./kinds";

/** One period as the API shows it. `end` is exclusive: the first day after the period. */
export interface CalendarPeriod {
  type: PeriodType;
  name: string;
  start: string;
  end: string;
  /** The fiscal year the period belongs to (for weeks of month-based calendars: the year of their Thursday). */
  year: number;
  /** 1-based position inside that year: quarter 1-4, month 1-12, week 1-53, day of the year. */
  number: number;
  /** Whole weeks in the period, or null when it is not made of whole weeks. */
  weeks: number | null;
}

export type CalendarQueryError =
  | { code: "INVALID_DATE"; parameter: string; message: string }
  | { code: "DATE_OUT_OF_RANGE"; parameter: string; message: string }
  | { code: "RANGE_REVERSED"; message: string }
  | { code: "TOO_MANY_PERIODS"; count: number; maxPeriods: number; message: string };

export type Outcome<T> = ({ ok: true } & T) | { ok: false; error: CalendarQueryError };

export const DEFAULT_MAX_PERIODS = 10_000;

/** The periods containing one date. */
export interface PeriodsAtDate {
  YEAR: CalendarPeriod;
  QUARTER: CalendarPeriod;
  MONTH: CalendarPeriod;
  WEEK: CalendarPeriod;
}

/** A period in day numbers, before it is named and formatted. */
interface PeriodSpan {
  type: PeriodType;
  year: number;
  number: number;
  start: DayNumber;
  end: DayNumber;
  weeks: number | null;
}

/**
 * How many periods of `type` overlap [from, to] (both inclusive), without listing them:
 * constant time whatever the range, so a caller can refuse a huge range up front.
 */
export function countPeriods(
  definition: CalendarDefinition,
  fromIso: string,
  toIso: string,
  type: PeriodType,
): Outcome<{ count: number }> {
  const range = parseRange(fromIso, toIso);
  if (!range.ok) return range;
  const kind = calendarKindFor(definition);
  return { ok: true, count: countBetween(kind, type, range.from, range.to) };
}

/** The periods of `type` that overlap [from, to] (both inclusive), in order; refused past `maxPeriods`. */
export function listPeriods(
  definition: CalendarDefinition,
  fromIso: string,
  toIso: string,
  type: PeriodType,
  { maxPeriods = DEFAULT_MAX_PERIODS }: { maxPeriods?: number } = {},
): Outcome<{ periods: CalendarPeriod[] }> {
  const range = parseRange(fromIso, toIso);
  if (!range.ok) return range;
  const { from, to } = range;
  const kind = calendarKindFor(definition);
  const count = countBetween(kind, type, from, to);
  if (count > maxPeriods) {
    const message = `${count} ${type} periods between ${fromIso} and ${toIso}; at most ${maxPeriods} may be listed at once`;
    return { ok: false, error: { code: "TOO_MANY_PERIODS", count, maxPeriods, message } };
  }
  const periods: CalendarPeriod[] = [];
  const format = formatterRememberingLastDay();
  const lastYear = groupingYearOf(kind, type, to);
  for (let year = groupingYearOf(kind, type, from); year <= lastYear; year++) {
    for (const span of spansOfYear(kind, type, year, from, to)) periods.push(toPeriod(kind, span, format));
  }
  return { ok: true, periods };
}

/** The year, quarter, month and week that contain `dateIso`. */
export function periodsAt(definition: CalendarDefinition, dateIso: string): Outcome<{ periods: PeriodsAtDate }> {
  const parsed = parseDate(dateIso, "date");
  if (!parsed.ok) return parsed;
  const kind = calendarKindFor(definition);
  const at = (type: PeriodType) => toPeriod(kind, spanContaining(kind, type, parsed.day));
  return { ok: true, periods: { YEAR: at("YEAR"), QUARTER: at("QUARTER"), MONTH: at("MONTH"), WEEK: at("WEEK") } };
}

function parseDate(text: string, parameter: string): Outcome<{ day: DayNumber }> {
  const day = parseIsoDate(text);
  if (day === undefined) {
    return { ok: false, error: { code: "INVALID_DATE", parameter, message: `${parameter} must be a real calendar date as YYYY-MM-DD` } };
  }
  if (!isSupportedDay(day)) {
    const message = `${parameter} must be between ${MIN_SUPPORTED_DATE} and ${MAX_SUPPORTED_DATE}`;
    return { ok: false, error: { code: "DATE_OUT_OF_RANGE", parameter, message } };
  }
  return { ok: true, day };
}

function parseRange(fromIso: string, toIso: string): Outcome<{ from: DayNumber; to: DayNumber }> {
  const from = parseDate(fromIso, "from");
  if (!from.ok) return from;
  const to = parseDate(toIso, "to");
  if (!to.ok) return to;
  if (to.day < from.day) {
    return { ok: false, error: { code: "RANGE_REVERSED", message: `to (${toIso}) is before from (${fromIso})` } };
  }
  return { ok: true, from: from.day, to: to.day };
}

/**
 * Periods are produced one "grouping year" at a time: the fiscal year, except for weeks,
 * which are grouped by the year they are numbered in (for month-based calendars a week can
 * straddle two fiscal years and belongs to the one holding its Thursday).
 */
function groupingYearOf(kind: CalendarKind, type: PeriodType, day: DayNumber): number {
  const fiscalYear = kind.yearContaining(day);
  if (type !== "WEEK") return fiscalYear;
  const { firstWeekStart, count } = kind.weeksOf(fiscalYear);
  if (day < firstWeekStart) return fiscalYear - 1;
  if (day >= firstWeekStart + count * 7) return fiscalYear + 1;
  return fiscalYear;
}

/** The periods of `type` numbered in grouping year `year` that overlap [from, to]. */
function spansOfYear(kind: CalendarKind, type: PeriodType, year: number, from: DayNumber, to: DayNumber): PeriodSpan[] {
  const overlaps = (span: PeriodSpan) => span.start <= to && span.end > from;
  if (type === "WEEK") {
    const { firstWeekStart, count } = kind.weeksOf(year);
    const spans: PeriodSpan[] = [];
    for (let week = 1; week <= count; week++) {
      const start = firstWeekStart + (week - 1) * 7;
      spans.push({ type, year, number: week, start, end: start + 7, weeks: 1 });
    }
    return spans.filter(overlaps);
  }
  const months = kind.monthStarts(year);
  const wholeWeeks = (start: DayNumber, end: DayNumber) => (kind.monthsAreWholeWeeks ? (end - start) / 7 : null);
  const split = (monthsPerPeriod: number): PeriodSpan[] => {
    const spans: PeriodSpan[] = [];
    for (let first = 0, number = 1; first < 12; first += monthsPerPeriod, number++) {
      const start = months[first];
      const end = months[first + monthsPerPeriod];
      spans.push({ type, year, number, start, end, weeks: wholeWeeks(start, end) });
    }
    return spans.filter(overlaps);
  };
  switch (type) {
    case "YEAR":
      return split(12);
    case "QUARTER":
      return split(3);
    case "MONTH":
      return split(1);
    case "DAY": {
      // Only the days asked for: a whole year of spans would be wasted on a short range.
      const yearStart = months[0];
      const spans: PeriodSpan[] = [];
      const last = Math.min(to, months[12] - 1);
      for (let day = Math.max(from, yearStart); day <= last; day++) {
        spans.push({ type, year, number: day - yearStart + 1, start: day, end: day + 1, weeks: null });
      }
      return spans;
    }
  }
}

function spanContaining(kind: CalendarKind, type: PeriodType, day: DayNumber): PeriodSpan {
  return spansOfYear(kind, type, groupingYearOf(kind, type, day), day, day)[0];
}

function countBetween(kind: CalendarKind, type: PeriodType, from: DayNumber, to: DayNumber): number {
  const first = spanContaining(kind, type, from);
  const last = spanContaining(kind, type, to);
  switch (type) {
    case "YEAR":
      return last.year - first.year + 1;
    case "QUARTER":
      return (last.year - first.year) * 4 + last.number - first.number + 1;
    case "MONTH":
      return (last.year - first.year) * 12 + last.number - first.number + 1;
    case "WEEK": // every kind's weeks are 7 consecutive days, back to back
      return (last.start - first.start) / 7 + 1;
    case "DAY":
      return to - from + 1;
  }
}

/** A period's end is the next one's start: remembering one date halves the formatting of a list. */
function formatterRememberingLastDay(): (day: DayNumber) => string {
  let lastDay = Number.NaN;
  let lastText = "";
  return (day) => {
    if (day !== lastDay) {
      lastDay = day;
      lastText = formatIsoDate(day);
    }
    return lastText;
  };
}

function toPeriod(kind: CalendarKind, span: PeriodSpan, format: (day: DayNumber) => string = formatIsoDate): CalendarPeriod {
  const start = format(span.start);
  return {
    type: span.type,
    name: span.type === "DAY" ? start : nameOf(kind, span),
    start,
    end: format(span.end),
    year: span.year,
    number: span.number,
    weeks: span.weeks,
  };
}

function nameOf(kind: CalendarKind, span: PeriodSpan): string {
  const year = kind.yearName(span.year);
  const number = String(span.number).padStart(2, "0");
  switch (span.type) {
    case "YEAR":
      return year;
    case "QUARTER":
      return `${year} Q${span.number}`;
    case "MONTH":
      return `${year} M${number}`;
    case "WEEK":
      return `${year} W${number}`;
    case "DAY":
      return formatIsoDate(span.start);
  }
}
