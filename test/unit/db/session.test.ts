import { describe, expect, it } from "vitest";
import { describeServedBy, isBookmark, RequestSession, sessionStart } from "../../../src/db/session";

const BOOKMARK = "0000000a-0000001f-00000000-0123456789abcdef0123456789abcdef";

/** A binding that records the constraint of each session it opens. */
function recordingBinding() {
  const opened: string[] = [];
  const binding = {
    withSession(start: string) {
      opened.push(start);
      return { prepare: () => ({}), batch: async () => [], getBookmark: () => BOOKMARK };
    },
  } as unknown as D1Database;
  return { binding, opened };
}

describe("a request's D1 session", () => {
  it("starts anywhere for a read, at the bookmark for a read that sends one, at the primary for anything else", () => {
    expect(sessionStart("GET", undefined)).toBe("first-unconstrained");
    expect(sessionStart("HEAD", BOOKMARK)).toBe(BOOKMARK);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) expect(sessionStart(method, BOOKMARK)).toBe("first-primary");
  });

  it("opens on first use, at the primary if authentication asked before", () => {
    const { binding, opened } = recordingBinding();
    const session = new RequestSession(binding, BOOKMARK);
    expect(session.bookmark()).toBeNull();
    session.requirePrimary();
    session.d1.prepare("SELECT 1");
    session.d1.prepare("SELECT 2");
    expect(opened).toEqual(["first-primary"]);
    expect(session.bookmark()).toBe(BOOKMARK);
    expect(() => session.requirePrimary()).toThrow(/after the request's session opened/);
  });

  it("notes where results were served only when D1 says so", () => {
    const session = new RequestSession(recordingBinding().binding, "first-unconstrained");
    session.record({ duration: 1 });
    session.record({ served_by_primary: true });
    session.record({ served_by_primary: false, served_by_region: "WEUR" });
    expect(describeServedBy(session.servedBy)).toBe("primary, replica@WEUR");
  });

  it("knows a bookmark by D1's shape", () => {
    expect(isBookmark(BOOKMARK)).toBe(true);
    for (const bad of ["", "garbage", BOOKMARK.slice(1), `${BOOKMARK}0`, BOOKMARK.replace("a", "g"), `${BOOKMARK}\n`]) expect(isBookmark(bad)).toBe(false);
  });
});
