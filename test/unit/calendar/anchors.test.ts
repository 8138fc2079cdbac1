import { describe, expect, it } from "vitest";
import { countPeriods, GREGORIAN, listPeriods, periodsAt } from "../../../src/domain/calendar";
import { at, brief, fiscal445, list, monthShift } from "./helpers";

/** The NRF 4-5-4 retail calendar. */
const NRF = fiscal445({
  yearEndWeekDay: "SATURDAY",
  yearEndsInLastWeek: false,
  yearEndIsoMonth: "JANUARY",
  quarterType: "QUARTER_454_WEEKS",
  leapWeekInMonth: 12,
});

/** 4-4-5 quarters, the year ending on the last Saturday of December. */
const LAST_SATURDAY_OF_DECEMBER = fiscal445({
  yearEndWeekDay: "SATURDAY",
  yearEndsInLastWeek: true,
  yearEndIsoMonth: "DECEMBER",
  quarterType: "QUARTER_445_WEEKS",
  leapWeekInMonth: 12,
});

describe("FISCAL_445: the NRF 4-5-4 calendar", () => {
  it("has a 53-week year from 2023-01-29 to 2024-02-03, named FY2024, then FY2025 from 2024-02-04", () => {
    expect(list(NRF, "2023-06-01", "2024-06-01", "YEAR").map(brief)).toEqual([
      "FY2024 2023-01-29..2024-02-04 53",
      "FY2025 2024-02-04..2025-02-02 52",
    ]);
  });

  it("splits FY2024 into 4-5-4 months, the leap week going to the 12th month", () => {
    expect(list(NRF, "2023-01-29", "2024-02-03", "MONTH").map(brief)).toEqual([
      "FY2024 M01 2023-01-29..2023-02-26 4",
      "FY2024 M02 2023-02-26..2023-04-02 5",
      "FY2024 M03 2023-04-02..2023-04-30 4",
      "FY2024 M04 2023-04-30..2023-05-28 4",
      "FY2024 M05 2023-05-28..2023-07-02 5",
      "FY2024 M06 2023-07-02..2023-07-30 4",
      "FY2024 M07 2023-07-30..2023-08-27 4",
      "FY2024 M08 2023-08-27..2023-10-01 5",
      "FY2024 M09 2023-10-01..2023-10-29 4",
      "FY2024 M10 2023-10-29..2023-11-26 4",
      "FY2024 M11 2023-11-26..2023-12-31 5",
      "FY2024 M12 2023-12-31..2024-02-04 5",
    ]);
    expect(list(NRF, "2023-01-29", "2024-02-03", "QUARTER").map(brief)).toEqual([
      "FY2024 Q1 2023-01-29..2023-04-30 13",
      "FY2024 Q2 2023-04-30..2023-07-30 13",
      "FY2024 Q3 2023-07-30..2023-10-29 13",
      "FY2024 Q4 2023-10-29..2024-02-04 14",
    ]);
  });

  it("numbers weeks from the first day of the year up to 53", () => {
    const weeks = list(NRF, "2023-01-29", "2024-02-03", "WEEK");
    expect(weeks).toHaveLength(53);
    expect(brief(weeks[0])).toBe("FY2024 W01 2023-01-29..2023-02-05 1");
    expect(brief(weeks[52])).toBe("FY2024 W53 2024-01-28..2024-02-04 1");
  });

  it("answers the periods at the last day of FY2024 and the first of FY2025", () => {
    const last = at(NRF, "2024-02-03");
    expect([last.YEAR, last.QUARTER, last.MONTH, last.WEEK].map(brief)).toEqual([
      "FY2024 2023-01-29..2024-02-04 53",
      "FY2024 Q4 2023-10-29..2024-02-04 14",
      "FY2024 M12 2023-12-31..2024-02-04 5",
      "FY2024 W53 2024-01-28..2024-02-04 1",
    ]);
    const first = at(NRF, "2024-02-04");
    expect([first.YEAR, first.QUARTER, first.MONTH, first.WEEK].map(brief)).toEqual([
      "FY2025 2024-02-04..2025-02-02 52",
      "FY2025 Q1 2024-02-04..2024-05-05 13",
      "FY2025 M01 2024-02-04..2024-03-03 4",
      "FY2025 W01 2024-02-04..2024-02-11 1",
    ]);
    expect(first.WEEK).toMatchObject({ type: "WEEK", year: 2025, number: 1 });
  });
});

describe("FISCAL_445: 4-4-5, ending on the last Saturday of December", () => {
  it("has FY2022 of 53 weeks (ending 2022-12-31) and FY2023 of 52 (ending 2023-12-30)", () => {
    expect(list(LAST_SATURDAY_OF_DECEMBER, "2022-06-01", "2023-06-01", "YEAR").map(brief)).toEqual([
      "FY2022 2021-12-26..2023-01-01 53",
      "FY2023 2023-01-01..2023-12-31 52",
    ]);
  });

  it("gives the five-week month last in each quarter, and 6 weeks to a 5-week leap month", () => {
    expect(list(LAST_SATURDAY_OF_DECEMBER, "2023-01-01", "2023-04-01", "MONTH").map(brief)).toEqual([
      "FY2023 M01 2023-01-01..2023-01-29 4",
      "FY2023 M02 2023-01-29..2023-02-26 4",
      "FY2023 M03 2023-02-26..2023-04-02 5",
    ]);
    expect(list(LAST_SATURDAY_OF_DECEMBER, "2022-10-01", "2022-12-31", "MONTH").map(brief)).toEqual([
      "FY2022 M10 2022-09-25..2022-10-23 4",
      "FY2022 M11 2022-10-23..2022-11-20 4",
      "FY2022 M12 2022-11-20..2023-01-01 6",
    ]);
    expect(at(LAST_SATURDAY_OF_DECEMBER, "2022-12-31").QUARTER.weeks).toBe(14);
  });
});

describe("FISCAL_445: a year-end nearest 31 December that spills into January", () => {
  // 2025-12-31 is a Wednesday, so the Saturday nearest to it is 2026-01-03.
  const nearestDecember = fiscal445({
    yearEndWeekDay: "SATURDAY",
    yearEndsInLastWeek: false,
    yearEndIsoMonth: "DECEMBER",
    quarterType: "QUARTER_445_WEEKS",
    leapWeekInMonth: 3,
  });

  it("names the year after its year-end month, so that no two years share a name", () => {
    expect(at(nearestDecember, "2026-01-03").YEAR.name).toBe("FY2025");
    expect(at(nearestDecember, "2026-01-04").YEAR.name).toBe("FY2026");
    // 2027-12-31 is a Friday (year-end 2028-01-01), 2028-12-31 a Sunday (year-end 2028-12-30).
    expect(list(nearestDecember, "2027-06-01", "2029-06-01", "YEAR").map(brief)).toEqual([
      "FY2027 2027-01-03..2028-01-02 52",
      "FY2028 2028-01-02..2028-12-31 52",
      "FY2029 2028-12-31..2029-12-30 52",
    ]);
  });
});

describe("MONTH_SHIFT", () => {
  it("-11 starts FY2027 on 2026-02-01, like +1", () => {
    const years = list(monthShift(-11), "2026-06-01", "2026-06-01", "YEAR");
    expect(years.map(brief)).toEqual(["FY2027 2026-02-01..2027-02-01 null"]);
    expect(list(monthShift(1), "2020-01-01", "2030-01-01", "MONTH")).toEqual(
      list(monthShift(-11), "2020-01-01", "2030-01-01", "MONTH"),
    );
    const months = list(monthShift(-11), "2026-02-01", "2027-01-31", "MONTH");
    expect(months).toHaveLength(12);
    expect(brief(months[0])).toBe("FY2027 M01 2026-02-01..2026-03-01 null");
    expect(brief(months[11])).toBe("FY2027 M12 2027-01-01..2027-02-01 null");
    expect(brief(at(monthShift(-11), "2026-04-30").QUARTER)).toBe("FY2027 Q1 2026-02-01..2026-05-01 null");
  });

  it("+4 starts FY2028 on 2027-05-01", () => {
    expect(list(monthShift(4), "2027-05-01", "2028-04-30", "YEAR").map(brief)).toEqual([
      "FY2028 2027-05-01..2028-05-01 null",
    ]);
    expect(brief(at(monthShift(4), "2028-04-30").QUARTER)).toBe("FY2028 Q4 2028-02-01..2028-05-01 null");
    expect(brief(at(monthShift(4), "2027-05-01").MONTH)).toBe("FY2028 M01 2027-05-01..2027-06-01 null");
  });

  it("+11 starts FY2028 on 2027-12-01", () => {
    expect(at(monthShift(11), "2027-11-30").YEAR.name).toBe("FY2027");
    expect(brief(at(monthShift(11), "2027-12-01").YEAR)).toBe("FY2028 2027-12-01..2028-12-01 null");
    expect(brief(at(monthShift(11), "2027-12-01").MONTH)).toBe("FY2028 M01 2027-12-01..2028-01-01 null");
  });

  it("numbers Monday weeks in the fiscal year that holds their Thursday", () => {
    // FY2027 (shift -11) starts on Sunday 2026-02-01; its first Thursday is 2026-02-05.
    expect(brief(at(monthShift(-11), "2026-02-01").WEEK)).toBe("FY2026 W52 2026-01-26..2026-02-02 1");
    expect(brief(at(monthShift(-11), "2026-02-02").WEEK)).toBe("FY2027 W01 2026-02-02..2026-02-09 1");
  });
});

describe("the Gregorian calendar", () => {
  it("has calendar years, quarters and months, named without a prefix", () => {
    expect(list(GREGORIAN, "2024-03-15", "2024-03-15", "YEAR").map(brief)).toEqual(["2024 2024-01-01..2025-01-01 null"]);
    expect(list(GREGORIAN, "2024-01-01", "2024-12-31", "QUARTER").map(brief)).toEqual([
      "2024 Q1 2024-01-01..2024-04-01 null",
      "2024 Q2 2024-04-01..2024-07-01 null",
      "2024 Q3 2024-07-01..2024-10-01 null",
      "2024 Q4 2024-10-01..2025-01-01 null",
    ]);
    expect(brief(at(GREGORIAN, "2024-02-29").MONTH)).toBe("2024 M02 2024-02-01..2024-03-01 null");
  });

  it("has exactly the ISO 8601 weeks", () => {
    expect(brief(at(GREGORIAN, "2021-01-03").WEEK)).toBe("2020 W53 2020-12-28..2021-01-04 1");
    expect(brief(at(GREGORIAN, "2024-12-30").WEEK)).toBe("2025 W01 2024-12-30..2025-01-06 1");
  });

  it("lists days by ISO date, numbered in their year", () => {
    expect(list(GREGORIAN, "2024-12-31", "2025-01-01", "DAY")).toEqual([
      { type: "DAY", name: "2024-12-31", start: "2024-12-31", end: "2025-01-01", year: 2024, number: 366, weeks: null },
      { type: "DAY", name: "2025-01-01", start: "2025-01-01", end: "2025-01-02", year: 2025, number: 1, weeks: null },
    ]);
  });
});

describe("refusals", () => {
  it("refuses malformed and impossible dates, naming the parameter", () => {
    for (const bad of ["2023-02-29", "2023-2-01", "20230201", "2023-13-01", "2023-00-10", "2023-04-31", "", "2023-01-01T00:00"]) {
      const result = listPeriods(GREGORIAN, bad, "2030-01-01", "DAY");
      expect(result.ok ? undefined : result.error).toMatchObject({ code: "INVALID_DATE", parameter: "from" });
    }
    const result = periodsAt(GREGORIAN, "2024-02-30");
    expect(result.ok ? undefined : result.error).toMatchObject({ code: "INVALID_DATE", parameter: "date" });
  });

  it("refuses dates outside 0003-01-01..9997-12-31", () => {
    const early = listPeriods(GREGORIAN, "0002-12-31", "2000-01-01", "YEAR");
    expect(early.ok ? undefined : early.error).toMatchObject({ code: "DATE_OUT_OF_RANGE", parameter: "from" });
    const late = periodsAt(NRF, "9998-01-01");
    expect(late.ok ? undefined : late.error).toMatchObject({ code: "DATE_OUT_OF_RANGE", parameter: "date" });
    expect(listPeriods(NRF, "0003-01-01", "9997-12-31", "YEAR").ok).toBe(true);
  });

  it("refuses a range whose end comes before its start", () => {
    const result = listPeriods(GREGORIAN, "2024-01-02", "2024-01-01", "DAY");
    expect(result.ok ? undefined : result.error).toMatchObject({ code: "RANGE_REVERSED" });
  });

  it("lists up to 10,000 periods and refuses one more, counting without listing", () => {
    // 2000-01-01 + 9,999 days = 2027-05-18.
    const tenThousand = listPeriods(GREGORIAN, "2000-01-01", "2027-05-18", "DAY");
    expect(tenThousand.ok && tenThousand.periods.length).toBe(10_000);
    const tooMany = listPeriods(GREGORIAN, "2000-01-01", "2027-05-19", "DAY");
    expect(tooMany.ok ? undefined : tooMany.error).toMatchObject({ code: "TOO_MANY_PERIODS", count: 10_001, maxPeriods: 10_000 });
    expect(listPeriods(NRF, "2024-01-01", "2024-12-31", "WEEK", { maxPeriods: 10 }).ok).toBe(false);
    // Sunday-to-Saturday weeks touching 0003-01-01..9997-12-31, as Python's datetime counts them.
    const everyWeek = countPeriods(NRF, "0003-01-01", "9997-12-31", "WEEK");
    expect(everyWeek.ok && everyWeek.count).toBe(521_515);
  });

  it("throws on a definition the API layer should have refused", () => {
    expect(() => periodsAt(monthShift(12), "2024-01-01")).toThrow(RangeError);
    expect(() => periodsAt(monthShift(1.5), "2024-01-01")).toThrow(RangeError);
    const leapWeekInMonth13 = fiscal445({
      yearEndWeekDay: "SATURDAY",
      yearEndsInLastWeek: true,
      yearEndIsoMonth: "DECEMBER",
      quarterType: "QUARTER_445_WEEKS",
      leapWeekInMonth: 13,
    });
    expect(() => periodsAt(leapWeekInMonth13, "2024-01-01")).toThrow(RangeError);
  });
});
