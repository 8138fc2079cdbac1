import { describe, expect, it } from "vitest";
import { formatRequestLine, logFormatOf, type RequestLine } from "../../../src/middleware/request-log/format";

const line: RequestLine = {
  time: Date.UTC(2026, 0, 2, 14, 2, 3, 123),
  method: "GET",
  path: "/api/users",
  status: 200,
  durationMs: 12,
  requestId: "req-1",
  accountId: "acc-1",
  userId: "user-1",
  d1RoundTrips: 2,
};

describe("the request log's line", () => {
  it("is one readable line when LOG_FORMAT is pretty", () => {
    expect(formatRequestLine(line, "pretty")).toBe("14:02:03.123 GET /api/users 200 12 ms d1=2 account=acc-1 user=user-1 id=req-1");
    expect(formatRequestLine({ ...line, accountId: undefined, userId: undefined, status: 401 }, "pretty")).toBe("14:02:03.123 GET /api/users 401 12 ms d1=2 id=req-1");
  });

  it("is one JSON object otherwise, with an ISO time and a level Workers Logs can filter on", () => {
    expect(JSON.parse(formatRequestLine(line, "json"))).toEqual({ ...line, level: "info", message: "request", time: "2026-01-02T14:02:03.123Z" });
    expect(JSON.parse(formatRequestLine({ ...line, status: 503 }, "json")).level).toBe("error");
  });

  it("reads LOG_FORMAT leniently, JSON unless pretty or none is asked for", () => {
    expect([logFormatOf("pretty"), logFormatOf(" Pretty "), logFormatOf("json"), logFormatOf(undefined), logFormatOf("text"), logFormatOf("NONE")]).toEqual(["pretty", "pretty", "json", "json", "json", "none"]);
  });

  it("says where D1 served the calls when it said", () => {
    const served = { ...line, d1ServedBy: "primary@WNAM, replica@WEUR" };
    expect(formatRequestLine(served, "pretty")).toBe("14:02:03.123 GET /api/users 200 12 ms d1=2 served=primary@WNAM,replica@WEUR account=acc-1 user=user-1 id=req-1");
    expect(JSON.parse(formatRequestLine(served, "json")).d1ServedBy).toBe("primary@WNAM, replica@WEUR");
  });

  it("is JSON under none too: the 5xx lines none still writes", () => {
    expect(JSON.parse(formatRequestLine({ ...line, status: 500 }, "none")).level).toBe("error");
  });
});
