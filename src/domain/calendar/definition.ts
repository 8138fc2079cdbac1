/** What a stored calendar says about its years, as the API spells it. */
export const CALENDAR_TYPES = ["MONTH_SHIFT", "FISCAL_445"] as const;
export type CalendarType = (typeof CALENDAR_TYPES)[number];

/** In ISO order: index + 1 is the ISO weekday number (MONDAY = 1). */
export const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** In calendar order: index + 1 is the month number (JANUARY = 1). */
export const ISO_MONTHS = [
  "JANUARY",
  "FEBRUARY",
  "MARCH",
  "APRIL",
  "MAY",
  "JUNE",
  "JULY",
  "AUGUST",
  "SEPTEMBER",
  "OCTOBER",
  "NOVEMBER",
  "DECEMBER",
] as const;
export type IsoMonth = (typeof ISO_MONTHS)[number];

export const QUARTER_TYPES = ["QUARTER_445_WEEKS", "QUARTER_454_WEEKS", "QUARTER_544_WEEKS"] as const;
export type QuarterType = (typeof QUARTER_TYPES)[number];

export interface MonthShiftDefinition {
  type: "MONTH_SHIFT";
  /** -11..11. The API refuses 0 for stored calendars; here 0 is the Gregorian calendar. */
  monthShift: number;
}

export interface Fiscal445Settings {
  yearEndWeekDay: Weekday;
  /** true: the last such weekday of the month; false: the one nearest the month's last day. */
  yearEndsInLastWeek: boolean;
  yearEndIsoMonth: IsoMonth;
  quarterType: QuarterType;
  /** 1..12: the fiscal month that receives the 53rd week of a 53-week year. */
  leapWeekInMonth: number;
}

export interface Fiscal445Definition {
  type: "FISCAL_445";
  fiscal445: Fiscal445Settings;
}

export type CalendarDefinition = MonthShiftDefinition | Fiscal445Definition;

/** The built-in calendar (id `default`): calendar years, ISO weeks. */
export const GREGORIAN: CalendarDefinition = Object.freeze({ type: "MONTH_SHIFT", monthShift: 0 });

export const PERIOD_TYPES = ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY"] as const;
export type PeriodType = (typeof PERIOD_TYPES)[number];
