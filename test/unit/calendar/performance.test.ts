import { describe, expect, it } from "vitest";
import { GREGORIAN, listPeriods, type CalendarDefinition } from "../../../src/domain/calendar";
import { fiscal445 } from "./helpers";

/** Prints the figure only: timings vary by machine, so they are never asserted. */
describe("performance (printed, not asserted)", () => {
  const NRF = fiscal445({
    yearEndWeekDay: "SATURDAY",
    yearEndsInLastWeek: false,
    yearEndIsoMonth: "JANUARY",
    quarterType: "QUARTER_454_WEEKS",
    leapWeekInMonth: 12,
  });

  it.each([
    ["Gregorian", GREGORIAN],
    ["NRF 4-5-4", NRF],
  ] as [string, CalendarDefinition][])("lists 3,650 DAY periods (%s)", (label, definition) => {
    // 2015-01-01 + 3,649 days = 2024-12-28.
    const run = () => listPeriods(definition, "2015-01-01", "2024-12-28", "DAY");
    const first = run();
    expect(first.ok && first.periods.length).toBe(3650);
    for (let i = 0; i < 20; i++) run(); // let the JIT settle
    const timings: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      run();
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const median = timings[timings.length >> 1];
    console.log(`listPeriods, 3,650 DAY periods, ${label}: median ${median.toFixed(3)} ms, best ${timings[0].toFixed(3)} ms`);
  });
});
