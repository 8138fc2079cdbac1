import { expect } from "vitest";
import { as, call, type CallResult, type TestUser } from "./helpers";

/** Helpers for the calendar tests: bodies of each type, and calls made as a given user. */
export const calendarsPath = "/api/calendars";
export const calendarPath = (id: string) => `${calendarsPath}/${encodeURIComponent(id)}`;

export const FISCAL_445_SETTINGS = {
  yearEndWeekDay: "SATURDAY",
  yearEndsInLastWeek: true,
  yearEndIsoMonth: "DECEMBER",
  quarterType: "QUARTER_445_WEEKS",
  leapWeekInMonth: 12,
} as const;

export const monthShiftCalendar = (name: string, monthShift = -3) => ({ type: "MONTH_SHIFT", name, monthShift });
export const fiscalCalendar = (name: string, settings: Record<string, unknown> = FISCAL_445_SETTINGS) => ({ type: "FISCAL_445", name, fiscal445: settings });

/** Creates a calendar as `user` and answers its body; fails the test on anything but 201. */
export async function createCalendar(user: TestUser, body: unknown): Promise<{ id: string; name: string; [member: string]: unknown }> {
  const res = await call("POST", calendarsPath, { as: as(user), body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The X-D1-Round-Trips count of a response. */
export function roundTrips(res: CallResult): number {
  const header = res.headers.get("X-D1-Round-Trips");
  expect(header, "X-D1-Round-Trips").toMatch(/^\d+$/);
  return Number(header);
}
