import { withReadOnlyMembers } from "../../lib/closed-bodies";
import { z } from "@hono/zod-openapi";
import { CALENDAR_TYPES, ISO_MONTHS, MAX_SUPPORTED_DATE, MIN_SUPPORTED_DATE, PERIOD_TYPES, QUARTER_TYPES, WEEKDAYS } from "../../domain/calendar";
import { nameString } from "../../lib/text-schemas";

const calendarIdParam = (description: string, example: string) =>
  z.object({ calendarId: z.string().min(1).max(64).openapi({ param: { name: "calendarId", in: "path" }, description, example }) });

export const CalendarIdParamSchema = calendarIdParam("A stored calendar's id.", "7b0c5b1e-0d1a-4e8e-9f55-3f4c5d6e7f80");

/** The periods routes also answer the built-in Gregorian calendar, under the id `default`. */
export const PeriodsParamSchema = calendarIdParam("A calendar's id, or `default` for the built-in Gregorian calendar.", "default");

export const Fiscal445Schema = z
  .strictObject({
    yearEndWeekDay: z.enum(WEEKDAYS).openapi({ description: "The weekday on which every year ends." }),
    yearEndsInLastWeek: z.boolean().openapi({
      description: "true: the year ends on the last such weekday of yearEndIsoMonth; false: on the one nearest that month's last day (up to 3 days into the next month).",
    }),
    yearEndIsoMonth: z.enum(ISO_MONTHS).openapi({ description: "The month in which (or nearest whose end) the year ends; the fiscal year is named after its year." }),
    quarterType: z.enum(QUARTER_TYPES).openapi({ description: "Weeks of the three months of every quarter: 4-4-5, 4-5-4 or 5-4-4." }),
    leapWeekInMonth: z.number().int().min(1).max(12).openapi({ description: "The fiscal month (1-12) that receives the 53rd week of a 53-week year." }),
  })
  .openapi("CalendarFiscal445");

const MONTH_SHIFT_DESCRIPTION =
  "MONTH_SHIFT only: months between January and the first month of this calendar's years, -11 to 11, zero excluded (zero is the built-in calendar). " +
  "Years are named after the calendar year in which they end: -11 starts FY2027 on 2026-02-01, 4 starts FY2028 on 2027-05-01, 11 starts FY2028 on 2027-12-01.";

const readOnlyText = (description: string) => z.string().openapi({ readOnly: true, description });

export const AuditableSchema = z
  .strictObject({
    createdByUserId: readOnlyText("Id of the user who created the object."),
    createdByUserName: readOnlyText("Name of that user when it created the object."),
    createdDate: readOnlyText("When the object was created.").openapi({ format: "date-time" }),
    lastModifiedByUserId: readOnlyText("Id of the user who changed the object last."),
    lastModifiedDate: readOnlyText("When the object was changed last.").openapi({ format: "date-time" }),
  })
  .openapi("Auditable");

export const CalendarSchema = z
  .strictObject({
    type: z.enum(CALENDAR_TYPES),
    name: z.string(),
    id: z.string(),
    monthShift: z.number().int().optional().openapi({ description: MONTH_SHIFT_DESCRIPTION }),
    fiscal445: Fiscal445Schema.optional().openapi({ description: "FISCAL_445 only." }),
    auditable: AuditableSchema,
  })
  .openapi("Calendar");

export const CalendarWriteSchema = z
  .strictObject(withReadOnlyMembers(CalendarSchema, {
    id: z.string().optional().openapi({ description: "Ignored on create; on update it must match the path." }),
    type: z.enum(CALENDAR_TYPES),
    name: nameString(255).openapi({ description: "Unique in the account." }),
    monthShift: z
      .number()
      .int()
      .min(-11)
      .max(11)
      .refine((shift) => shift !== 0, "0 is the built-in calendar (id `default`): give -11..-1 or 1..11")
      .optional()
      .openapi({ description: MONTH_SHIFT_DESCRIPTION }),
    fiscal445: Fiscal445Schema.optional().openapi({ description: "FISCAL_445 only: all five members are required." }),
  }))
  .superRefine((body, ctx) => {
    // Each type has exactly its own member: a missing one is required, the other type's one is refused, never dropped.
    const own = body.type === "MONTH_SHIFT" ? "monthShift" : "fiscal445";
    const foreign = body.type === "MONTH_SHIFT" ? "fiscal445" : "monthShift";
    if (body[own] === undefined) ctx.addIssue({ code: "custom", path: [own], message: `Required for a ${body.type} calendar` });
    if (body[foreign] !== undefined) ctx.addIssue({ code: "custom", path: [foreign], message: `A ${body.type} calendar has no ${foreign}: remove it` });
  })
  .openapi("CalendarWrite", {
    example: { type: "MONTH_SHIFT", name: "Fiscal year from February", monthShift: 1 },
    description: "A calendar as a client writes it: `monthShift` for type MONTH_SHIFT, `fiscal445` for type FISCAL_445, never both.",
  });

export type CalendarInput = z.infer<typeof CalendarWriteSchema>;


export const CalendarListSchema = z.strictObject({ content: z.array(CalendarSchema) }).openapi("CalendarList");

const IsoDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Must be a date as YYYY-MM-DD")
  .openapi({ format: "date", description: `A date as YYYY-MM-DD, from ${MIN_SUPPORTED_DATE} to ${MAX_SUPPORTED_DATE}.`, example: "2027-01-01" });

export const PeriodsQuerySchema = z.object({
  from: IsoDateSchema.openapi({ description: `The first day of the range (inclusive), from ${MIN_SUPPORTED_DATE} to ${MAX_SUPPORTED_DATE}.` }),
  to: IsoDateSchema.openapi({ description: `The last day of the range (inclusive), from ${MIN_SUPPORTED_DATE} to ${MAX_SUPPORTED_DATE}; at most 10,000 periods may overlap the range.` }),
  type: z.enum(PERIOD_TYPES).openapi({ description: "The kind of periods to list." }),
});

export const PeriodsAtQuerySchema = z.object({ date: IsoDateSchema });

export const CalendarPeriodSchema = z
  .strictObject({
    type: z.enum(PERIOD_TYPES),
    name: z.string().openapi({ example: "FY2027 Q1", description: "FY2027, FY2027 Q1, FY2027 M01, FY2027 W01, or the date of a DAY (the Gregorian calendar names years 2027, 2027 Q1, ...)." }),
    start: z.string().openapi({ format: "date", description: "The period's first day." }),
    end: z.string().openapi({ format: "date", description: "The day after the period's last day (exclusive)." }),
    year: z.number().int().openapi({ description: "The fiscal year the period belongs to (a week: the year it is numbered in)." }),
    number: z.number().int().openapi({ description: "1-based position in that year: quarter 1-4, month 1-12, week 1-53, day 1-371." }),
    weeks: z.number().int().nullable().openapi({ description: "Whole weeks in the period (FISCAL_445 periods, and any WEEK); null otherwise." }),
  })
  .openapi("CalendarPeriod");

export const CalendarPeriodListSchema = z.strictObject({ content: z.array(CalendarPeriodSchema) }).openapi("CalendarPeriodList");

export const CalendarPeriodsAtSchema = z
  .strictObject({
    date: z.string().openapi({ format: "date" }),
    year: CalendarPeriodSchema,
    quarter: CalendarPeriodSchema,
    month: CalendarPeriodSchema,
    week: CalendarPeriodSchema,
  })
  .openapi("CalendarPeriodsAt");
