import { z } from "@hono/zod-openapi";
import { jsonDepth } from "../domain/json-hygiene";
import { nameRefusal } from "../domain/names";
import { utf8ByteLength } from "../domain/utf8-chunks";

/**
 * The string and free-form JSON members every resource uses, so that the same rules hold
 * everywhere: a name is one line of printable text; a description may also hold tabs and line
 * breaks; free-form JSON is capped in depth and size. (Lone surrogates are refused for every
 * string of every body by the request-body middleware, before validation.)
 */
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001F\u007F-\u009F]*$/;
const NO_CONTROL_CHARACTERS_BUT_WHITESPACE = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/;

/**
 * A name: 1 to `max` characters (0 with `allowEmpty`), no control characters (NUL, tab, line
 * breaks, DEL, C1), and nothing that makes it look like another name: no leading or trailing
 * whitespace (refused, never trimmed away), no bidirectional controls, no zero-width characters
 * (src/domain/names.ts). Every name member of every body is one of these, so the rule holds everywhere.
 */
export function nameString(max = 255, options: { allowEmpty?: boolean } = {}) {
  return z
    .string()
    .min(options.allowEmpty ? 0 : 1)
    .max(max)
    .regex(NO_CONTROL_CHARACTERS, "Must not contain control characters (NUL, tab, line breaks)")
    .superRefine((name, ctx) => {
      const refusal = nameRefusal(name);
      if (refusal) ctx.addIssue({ code: "custom", message: refusal });
    });
}

/** Free text such as a description: tabs and line breaks are kept, other control characters are refused. */
export function textString(max: number) {
  return z.string().max(max).regex(NO_CONTROL_CHARACTERS_BUT_WHITESPACE, "Must not contain control characters other than tab and line breaks");
}

export const FREE_FORM_MAX_DEPTH = 32;
export const FREE_FORM_MAX_BYTES = 64 * 1024;

/** A free-form JSON object member (metadata, raw formats): at most 32 levels deep and 64 KiB as JSON. */
export function freeFormObject(options: { maxDepth?: number; maxBytes?: number } = {}) {
  return z.record(z.string().max(255), z.unknown()).superRefine(freeFormLimits(options));
}

/** The same limits as a refinement, for a free-form member with a more specific shape (an array of anything). */
export function freeFormLimits({ maxDepth = FREE_FORM_MAX_DEPTH, maxBytes = FREE_FORM_MAX_BYTES }: { maxDepth?: number; maxBytes?: number }) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    if (jsonDepth(value, maxDepth) > maxDepth) {
      ctx.addIssue({ code: "custom", message: `Nested more than ${maxDepth} levels deep` });
      return;
    }
    const json = JSON.stringify(value) ?? "";
    // A UTF-16 code unit is at most 3 bytes of UTF-8: a text that short is within the cap unencoded.
    if (json.length * 3 > maxBytes && utf8ByteLength(json) > maxBytes) ctx.addIssue({ code: "custom", message: `Larger than ${maxBytes} bytes as JSON` });
  };
}
