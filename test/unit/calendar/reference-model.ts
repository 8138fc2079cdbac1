/**
 * A deliberately naive model of the calendar rules, written without looking at the module's
 * arithmetic: it walks day by day with Date objects and recognises year-ends, month starts and
 * Mondays by looking at each day. Slow, so it only covers a window around the dates under test.
 */
import type { CalendarDefinition, CalendarPeriod, PeriodType } from "../../../src/domain/calendar";

const MS_PER_DAY = 86_400_000;
const JS_WEEKDAY: Record<string, number> = {
  SUNDAY: 0,
  MONDAY: 1,
  TUESDAY: 2,
  WEDNESDAY: 3,
  THURSDAY: 4,
  FRIDAY: 5,
  SATURDAY: 6,
};
const MONTH_NUMBER: Record<string, number> = Object.fromEntries(
  ["JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"].map(
    (name, index) => [name, index + 1],
  ),
);
/** Which month of each quarter has five weeks. */
const FIVE_WEEK_POSITION: Record<string, number> = { QUARTER_445_WEEKS: 3, QUARTER_454_WEEKS: 2, QUARTER_544_WEEKS: 1 };

/** Test dates stay within years 1000..9999, where toISOString prints a plain YYYY-MM-DD. */
export function dayOf(iso: string): number {
  return Date.parse(`${iso}T00:00:00Z`) / MS_PER_DAY;
}

export function isoOf(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

function look(day: number) {
  const date = new Date(day * MS_PER_DAY);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, dayOfMonth: date.getUTCDate(), weekday: date.getUTCDay() };
}

interface Span {
  year: number;
  number: number;
  start: number;
  end: number;
}

export type ReferencePeriods = Record<PeriodType, CalendarPeriod[]>;

/** Every period of every type that lies inside [from - 800 days, to + 800 days]. */
export function referencePeriods(definition: CalendarDefinition, from: number, to: number): ReferencePeriods {
  const windowStart = from - 800;
  const windowEnd = to + 800;

  // 1. Year-ends, by inspecting every day of the window.
  const yearEnds: { day: number; name: number }[] = [];
  for (let day = windowStart; day <= windowEnd; day++) {
    const name = yearEndName(definition, day);
    if (name !== undefined) yearEnds.push({ day, name });
  }
  const years: Span[] = [];
  for (let i = 1; i < yearEnds.length; i++) {
    years.push({ year: yearEnds[i].name, number: 1, start: yearEnds[i - 1].day + 1, end: yearEnds[i].day + 1 });
  }
  const yearOfDay = (day: number) => years.find((y) => y.start <= day && day < y.end);

  // 2. Months.
  const months: Span[] = [];
  for (const year of years) {
    if (definition.type === "MONTH_SHIFT") {
      let number = 0;
      for (let day = year.start; day < year.end; day++) {
        if (look(day).dayOfMonth === 1) {
          if (number > 0) months[months.length - 1].end = day;
          months.push({ year: year.year, number: ++number, start: day, end: year.end });
        }
      }
    } else {
      const settings = definition.fiscal445;
      const totalWeeks = (year.end - year.start) / 7;
      let start = year.start;
      for (let number = 1; number <= 12; number++) {
        const positionInQuarter = ((number - 1) % 3) + 1;
        let weeks = positionInQuarter === FIVE_WEEK_POSITION[settings.quarterType] ? 5 : 4;
        if (totalWeeks === 53 && number === settings.leapWeekInMonth) weeks++;
        months.push({ year: year.year, number, start, end: start + weeks * 7 });
        start += weeks * 7;
      }
    }
  }

  // 3. Quarters: three months each.
  const quarters: Span[] = [];
  for (let i = 0; i + 2 < months.length; i += 3) {
    quarters.push({ year: months[i].year, number: (months[i].number + 2) / 3, start: months[i].start, end: months[i + 2].end });
  }

  // 4. Weeks.
  const weeks: Span[] = [];
  if (definition.type === "FISCAL_445") {
    for (const year of years) {
      for (let start = year.start, number = 1; start < year.end; start += 7, number++) {
        weeks.push({ year: year.year, number, start, end: start + 7 });
      }
    }
  } else {
    for (let day = windowStart; day + 7 <= windowEnd; day++) {
      if (look(day).weekday !== JS_WEEKDAY.MONDAY) continue;
      const owner = yearOfDay(day + 3); // the year of its Thursday
      if (owner === undefined) continue;
      const previous = weeks[weeks.length - 1];
      const number = previous !== undefined && previous.year === owner.year ? previous.number + 1 : 1;
      weeks.push({ year: owner.year, number, start: day, end: day + 7 });
    }
    // The first week seen may not be its year's week 1: keep weeks from the next week 1 on.
    const firstFullYear = weeks.find((w, index) => index > 0 && w.number === 1)?.year;
    while (weeks.length > 0 && weeks[0].year !== firstFullYear) weeks.shift();
  }

  // 5. Days.
  const days: Span[] = [];
  for (const year of years) {
    for (let day = year.start; day < year.end; day++) days.push({ year: year.year, number: day - year.start + 1, start: day, end: day + 1 });
  }

  const prefix = definition.type === "MONTH_SHIFT" && definition.monthShift === 0 ? "" : "FY";
  const weekBased = definition.type === "FISCAL_445";
  const toPeriod =
    (type: PeriodType) =>
    (span: Span): CalendarPeriod => {
      const yearName = prefix + String(span.year).padStart(4, "0");
      const two = String(span.number).padStart(2, "0");
      const names: Record<PeriodType, string> = {
        YEAR: yearName,
        QUARTER: `${yearName} Q${span.number}`,
        MONTH: `${yearName} M${two}`,
        WEEK: `${yearName} W${two}`,
        DAY: isoOf(span.start),
      };
      const wholeWeeks = type === "WEEK" ? 1 : weekBased && type !== "DAY" ? (span.end - span.start) / 7 : null;
      return {
        type,
        name: names[type],
        start: isoOf(span.start),
        end: isoOf(span.end),
        year: span.year,
        number: span.number,
        weeks: wholeWeeks,
      };
    };
  return {
    YEAR: years.map(toPeriod("YEAR")),
    QUARTER: quarters.map(toPeriod("QUARTER")),
    MONTH: months.map(toPeriod("MONTH")),
    WEEK: weeks.map(toPeriod("WEEK")),
    DAY: days.map(toPeriod("DAY")),
  };
}

/** The name of the fiscal year whose last day is `day`, or undefined when `day` ends no year. */
function yearEndName(definition: CalendarDefinition, day: number): number | undefined {
  const today = look(day);
  if (definition.type === "MONTH_SHIFT") {
    // The day before the 1st of the starting month, named after the year it falls in.
    const startMonth = (((definition.monthShift % 12) + 12) % 12) + 1;
    const tomorrow = look(day + 1);
    return tomorrow.dayOfMonth === 1 && tomorrow.month === startMonth ? today.year : undefined;
  }
  const settings = definition.fiscal445;
  if (today.weekday !== JS_WEEKDAY[settings.yearEndWeekDay]) return undefined;
  const month = MONTH_NUMBER[settings.yearEndIsoMonth];
  if (settings.yearEndsInLastWeek) {
    return today.month === month && look(day + 7).month !== month ? today.year : undefined;
  }
  for (const year of [today.year - 1, today.year]) {
    const lastDayOfMonth = Date.UTC(year, month, 0) / MS_PER_DAY;
    if (Math.abs(day - lastDayOfMonth) <= 3) return year;
  }
  return undefined;
}

/** The reference periods of `type` that overlap [from, to]. */
export function overlapping(periods: CalendarPeriod[], from: number, to: number): CalendarPeriod[] {
  return periods.filter((p) => dayOf(p.start) <= to && dayOf(p.end) > from);
}
