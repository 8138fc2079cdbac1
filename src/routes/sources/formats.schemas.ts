import { z } from "@hono/zod-openapi";

/** Display formats shared by source fields and custom metrics. */
export const GRANULARITIES = ["MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"] as const;
export const GranularitySchema = z.enum(GRANULARITIES).openapi("Granularity");

export const NumberFormatSchema = z
  .strictObject({
    type: z.enum(["PLAIN", "CURRENCY", "PERCENTAGE", "COMPUTER_STORAGE", "SCIENTIFIC_NOTATION", "RATIO"]),
    decimals: z.number().int().min(0).max(9).optional(),
    separator: z.boolean().optional(),
    negative: z.enum(["SIGNED", "PARENTHESIZED"]).optional(),
    standardUnit: z.enum(["NONE", "THOUSANDS", "MILLIONS", "BILLIONS", "TRILLIONS"]).optional(),
    storageUnit: z.enum(["BYTES", "KILOBYTES", "MEGABYTES", "GIGABYTES", "TERABYTES", "PETABYTES", "EXABYTES"]).optional(),
    currencyCode: z
      .string()
      .regex(/^[A-Z]{3}$/, "Must be an ISO 4217 currency code such as USD")
      .optional(),
  })
  .openapi("NumberFormat");

const twoForms = z.enum(["NUMERIC", "TWO_DIGIT"]);
export const TimeFieldFormatOptionsSchema = z
  .strictObject({
    second: twoForms.optional(),
    minute: twoForms.optional(),
    hour: twoForms.optional(),
    day: z.enum(["NUMERIC", "TWO_DIGIT", "NARROW", "SHORT", "NONE"]).optional(),
    weekday: z.enum(["LONG", "SHORT", "NARROW", "NONE"]).optional(),
    week: z.enum(["TWO_DIGIT", "NARROW", "RANGE", "NUMERIC", "WEEK_START", "WEEK_END", "NONE"]).optional(),
    month: z.enum(["NUMERIC", "TWO_DIGIT", "LONG", "SHORT", "NARROW", "NONE"]).optional(),
    quarter: z.enum(["TWO_DIGIT", "RANGE", "NARROW", "NUMERIC", "NONE"]).optional(),
    year: z.enum(["NUMERIC", "TWO_DIGIT", "NARROW", "SHORT", "NONE"]).optional(),
    dayOfYear: z.enum(["NUMERIC", "TWO_DIGIT", "SHORT", "NONE"]).optional(),
    hour12: z.boolean().optional().openapi({ description: "12-hour clock; chosen automatically when unset." }),
  })
  .openapi("TimeFieldFormatOptions", { description: "Experimental." });

/** A real IANA zone, as the runtime's time-zone database knows it. */
export function isTimeZone(zone: string): boolean {
  // The runtime also takes UTC offsets ("+01:00", "-0530"), which are no IANA zone names.
  if (/^[+-]/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

let zonesByLowerCase: Map<string, string> | undefined;

/**
 * The zone in the zone database's own letter case ("europe/paris" becomes "Europe/Paris"). Only the
 * case: ICU's canonical form would turn a correct "Asia/Kolkata" into the legacy "Asia/Calcutta".
 */
function zoneSpelling(zone: string): string {
  zonesByLowerCase ??= new Map(Intl.supportedValuesOf("timeZone").map((z) => [z.toLowerCase(), z]));
  return zonesByLowerCase.get(zone.toLowerCase()) ?? zone;
}

export const TimeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, "Must be an IANA time zone such as Europe/Paris")
  .transform(zoneSpelling)
  .openapi({ type: "string", example: "Europe/Paris", description: "An IANA time zone; matched regardless of letter case." });

export const TimeFormatSchema = z
  .strictObject({
    timeZone: TimeZoneSchema.optional(),
    options: TimeFieldFormatOptionsSchema.optional(),
  })
  .openapi("TimeFormat");
