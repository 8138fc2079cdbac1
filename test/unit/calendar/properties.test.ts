import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countPeriods,
  formatIsoDate,
  GREGORIAN,
  ISO_MONTHS,
  listPeriods,
  MAX_SUPPORTED_DATE,
  MIN_SUPPORTED_DATE,
  parseIsoDate,
  PERIOD_TYPES,
  periodsAt,
  QUARTER_TYPES,
  WEEKDAYS,
  type CalendarDefinition,
  type CalendarPeriod,
  type PeriodType,
} from "../../../src/domain/calendar";
import { at, list } from "./helpers";
import { dayOf, isoOf, overlapping, referencePeriods } from "./reference-model";

const SETTINGS = { seed: 20_260_417, numRuns: 150 };

const calendar: fc.Arbitrary<CalendarDefinition> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(GREGORIAN) },
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: -11, max: 11 })
      .filter((shift) => shift !== 0)
      .map((monthShift): CalendarDefinition => ({ type: "MONTH_SHIFT", monthShift })),
  },
  {
    weight: 5,
    arbitrary: fc
      .record({
        yearEndWeekDay: fc.constantFrom(...WEEKDAYS),
        yearEndsInLastWeek: fc.boolean(),
        yearEndIsoMonth: fc.constantFrom(...ISO_MONTHS),
        quarterType: fc.constantFrom(...QUARTER_TYPES),
        leapWeekInMonth: fc.integer({ min: 1, max: 12 }),
      })
      .map((fiscal445): CalendarDefinition => ({ type: "FISCAL_445", fiscal445 })),
  },
);

const FIRST_TEST_DAY = dayOf("1900-01-01");
const LAST_TEST_DAY = dayOf("2200-12-31");
const testDay = fc.integer({ min: FIRST_TEST_DAY, max: LAST_TEST_DAY });
/** A range of up to about three years: long enough to cross year boundaries, short enough for the reference. */
const testRange = fc
  .tuple(testDay, fc.integer({ min: 0, max: 1200 }))
  .map(([from, length]) => ({ from, to: Math.min(from + length, LAST_TEST_DAY) }));
const periodType = fc.constantFrom(...PERIOD_TYPES);

const isFiscal445 = (definition: CalendarDefinition) => definition.type === "FISCAL_445";

describe("against the naive day-by-day reference model", () => {
  it("lists the same periods, with the same names, numbers and weeks", () => {
    fc.assert(
      fc.property(calendar, testRange, periodType, (definition, { from, to }, type) => {
        const expected = overlapping(referencePeriods(definition, from, to)[type], from, to);
        expect(list(definition, isoOf(from), isoOf(to), type)).toEqual(expected);
      }),
      SETTINGS,
    );
  });

  it("answers the same periods at a date, each one listed for that single day", () => {
    fc.assert(
      fc.property(calendar, testDay, (definition, day) => {
        const reference = referencePeriods(definition, day, day);
        const found = at(definition, isoOf(day));
        for (const type of ["YEAR", "QUARTER", "MONTH", "WEEK"] as const) {
          expect(overlapping(reference[type], day, day)).toEqual([found[type]]);
          expect(list(definition, isoOf(day), isoOf(day), type)).toEqual([found[type]]);
        }
      }),
      SETTINGS,
    );
  });
});

describe("structure", () => {
  it("periods of one type tile the range: back to back, covering both ends, numbered in order", () => {
    fc.assert(
      fc.property(calendar, testRange, periodType, (definition, { from, to }, type) => {
        const periods = list(definition, isoOf(from), isoOf(to), type);
        expect(periods[0].start <= isoOf(from) && isoOf(from) < periods[0].end).toBe(true);
        const last = periods[periods.length - 1];
        expect(last.start <= isoOf(to) && isoOf(to) < last.end).toBe(true);
        for (let i = 1; i < periods.length; i++) {
          const [before, after] = [periods[i - 1], periods[i]];
          expect(after.start).toBe(before.end);
          const nextInYear = after.year === before.year && after.number === before.number + 1;
          const firstOfNextYear = after.year === before.year + 1 && after.number === 1;
          expect(nextInYear || firstOfNextYear).toBe(true);
        }
        const count = countPeriods(definition, isoOf(from), isoOf(to), type);
        expect(count.ok && count.count).toBe(periods.length);
      }),
      SETTINGS,
    );
  });

  it("years have 52 or 53 weeks and 12 months; 4-4-5 quarters 13 or 14 weeks; every week 7 days", () => {
    fc.assert(
      fc.property(calendar, testDay, (definition, day) => {
        const { YEAR: year, WEEK: week } = at(definition, isoOf(day));
        const inYear = (type: PeriodType) => list(definition, year.start, isoOf(dayOf(year.end) - 1), type);
        const months = inYear("MONTH");
        expect(months.map((m) => [m.year, m.number])).toEqual(months.map((_, i) => [year.year, i + 1]));
        expect(inYear("QUARTER").map((q) => q.number)).toEqual([1, 2, 3, 4]);
        expect(dayOf(week.end) - dayOf(week.start)).toBe(7);

        const weeksNumberedInYear = list(definition, isoOf(dayOf(year.start) - 7), isoOf(dayOf(year.end) + 7), "WEEK").filter(
          (w) => w.year === year.year,
        );
        expect([52, 53]).toContain(weeksNumberedInYear.length);
        if (isFiscal445(definition)) {
          expect(year.weeks).toBe(weeksNumberedInYear.length);
          expect(dayOf(year.end) - dayOf(year.start)).toBe(7 * (year.weeks ?? 0));
          for (const quarter of inYear("QUARTER")) expect([13, 14]).toContain(quarter.weeks);
          expect(months.filter((m) => m.weeks !== 4 && m.weeks !== 5).length).toBeLessThanOrEqual(1);
        } else {
          expect(year.weeks).toBeNull();
        }
      }),
      SETTINGS,
    );
  });

  it("every period around the supported limits starts and ends on a four-digit-year date", () => {
    const edges = [
      [MIN_SUPPORTED_DATE, formatIsoDate(parseIsoDate(MIN_SUPPORTED_DATE)! + 30)],
      [formatIsoDate(parseIsoDate(MAX_SUPPORTED_DATE)! - 30), MAX_SUPPORTED_DATE],
    ];
    fc.assert(
      fc.property(calendar, periodType, fc.constantFrom(...edges), (definition, type, [from, to]) => {
        const periods: CalendarPeriod[] = list(definition, from, to, type);
        for (const { start, end } of periods) {
          for (const date of [start, end]) {
            expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect(parseIsoDate(date)).toBeDefined();
            expect(date >= "0001-01-01" && date <= "9999-12-31").toBe(true);
          }
        }
      }),
      SETTINGS,
    );
  });
});

describe("ISO dates", () => {
  it("format and parse agree with Date over years 0001..9999", () => {
    const first = parseIsoDate("0001-01-01")!;
    const last = parseIsoDate("9999-12-31")!;
    expect(first).toBe(-719_162); // 1969 years of 365 days plus 477 leap days before 1970
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), (day) => {
        const date = new Date(0);
        date.setUTCFullYear(1970, 0, 1 + day); // setUTCFullYear, unlike Date.UTC, keeps years 0..99 as given
        const expected = date.toISOString().slice(0, 10);
        expect(formatIsoDate(day)).toBe(expected);
        expect(parseIsoDate(expected)).toBe(day);
      }),
      { ...SETTINGS, numRuns: 2000 },
    );
  });

  it("refuses every day-of-month past the month's end", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const text = `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
        const real = new Date(0);
        real.setUTCFullYear(y, m - 1, d);
        const exists = real.getUTCMonth() === m - 1;
        expect(parseIsoDate(text) !== undefined).toBe(exists);
      }),
      { ...SETTINGS, numRuns: 1000 },
    );
  });

  it("periodsAt refuses what parseIsoDate refuses", () => {
    expect(periodsAt(GREGORIAN, "1900-02-29").ok).toBe(false);
    expect(periodsAt(GREGORIAN, "2000-02-29").ok).toBe(true);
    expect(listPeriods(GREGORIAN, "2000-02-29", "2100-02-29", "YEAR").ok).toBe(false);
  });
});
