import { describe, expect, it } from "vitest";
import { eventIdFloor, newEventId, timeOfEventId } from "../../../src/domain/audit/event-id";

const CROCKFORD_ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe("audit event ids", () => {
  it("carry their millisecond, and sort by it", () => {
    const earlier = newEventId(1_700_000_000_000);
    const later = newEventId(1_700_000_000_001);
    expect(earlier).toMatch(CROCKFORD_ULID);
    expect(timeOfEventId(earlier)).toBe(1_700_000_000_000);
    expect(earlier < later).toBe(true);
    expect(eventIdFloor(1_700_000_000_001) <= later).toBe(true);
    expect(eventIdFloor(1_700_000_000_001) > earlier).toBe(true);
  });

  it("increase within one millisecond, and differ between milliseconds in their random part", () => {
    const ids = Array.from({ length: 1000 }, () => newEventId(1_800_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const randomParts = new Set(Array.from({ length: 200 }, (_, i) => newEventId(1_900_000_000_000 + i).slice(10)));
    expect(randomParts.size).toBe(200);
  });
});
