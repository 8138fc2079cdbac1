import type { CalendarKind } from "./calendar-kind";
import type { CalendarDefinition } from "./definition";
import { fiscal445Kind } from "./fiscal-445";
import { monthShiftKind } from "./month-shift";

/**
 * The one place that maps a definition to its kind. Throws RangeError for a definition the
 * API layer should have refused (a shift out of range, an unknown weekday, ...).
 */
export function calendarKindFor(definition: CalendarDefinition): CalendarKind {
  switch (definition.type) {
    case "MONTH_SHIFT":
      return monthShiftKind(definition);
    case "FISCAL_445":
      return fiscal445Kind(definition);
  }
}
