import { expect } from "vitest";
import {
  listPeriods,
  periodsAt,
  type CalendarDefinition,
  type CalendarPeriod,
  type Fiscal445Settings,
  type PeriodsAtDate,
  type PeriodType,
} from "../../../src/domain/calendar";

export function fiscal445(settings: Fiscal445Settings): CalendarDefinition {
  return { type: "FISCAL_445", fiscal445: settings };
}

export function monthShift(shift: number): CalendarDefinition {
  return { type: "MONTH_SHIFT", monthShift: shift };
}

/** The list, failing the test on an error answer. */
export function list(definition: CalendarDefinition, from: string, to: string, type: PeriodType): CalendarPeriod[] {
  const result = listPeriods(definition, from, to, type);
  if (!result.ok) expect.fail(`listPeriods failed: ${result.error.message}`);
  return result.periods;
}

export function at(definition: CalendarDefinition, date: string): PeriodsAtDate {
  const result = periodsAt(definition, date);
  if (!result.ok) expect.fail(`periodsAt failed: ${result.error.message}`);
  return result.periods;
}

/** A compact view for hand-checked expectations: "name start..end weeks". */
export function brief(period: CalendarPeriod): string {
  return `${period.name} ${period.start}..${period.end} ${period.weeks}`;
}
