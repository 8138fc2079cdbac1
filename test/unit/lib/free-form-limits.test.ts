import { describe, expect, it } from "vitest";
import { FREE_FORM_MAX_BYTES, freeFormObject } from "../../../src/lib/text-schemas";

describe("a free-form JSON member's size cap counts UTF-8 bytes of its JSON", () => {
  const schema = freeFormObject();
  const refused = (value: unknown) => !schema.safeParse(value).success;
  // The JSON of { v: "<text>" } is the text and 8 more characters.
  const withText = (text: string) => ({ v: text });

  it("takes a member of one-byte characters up to the cap, and refuses one past it", () => {
    expect(refused(withText("a".repeat(FREE_FORM_MAX_BYTES - 8)))).toBe(false);
    expect(refused(withText("a".repeat(FREE_FORM_MAX_BYTES - 7)))).toBe(true);
  });

  it("counts a character of three bytes as three: fewer characters than the cap can be past it", () => {
    const euros = Math.ceil(FREE_FORM_MAX_BYTES / 3);
    expect(refused(withText("€".repeat(euros)))).toBe(true);
    expect(refused(withText("€".repeat(Math.floor((FREE_FORM_MAX_BYTES - 8) / 3))))).toBe(false);
  });

  it("counts a character outside the BMP (two UTF-16 units) as four bytes", () => {
    const emoji = "\u{1F600}";
    expect(refused(withText(emoji.repeat((FREE_FORM_MAX_BYTES - 8) / 4)))).toBe(false);
    expect(refused(withText(emoji.repeat((FREE_FORM_MAX_BYTES - 8) / 4 + 1)))).toBe(true);
  });
});
