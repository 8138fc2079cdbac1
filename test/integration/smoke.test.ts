import { describe, expect, it } from "vitest";
import { call, DEFAULT_ACCOUNT_ID, VENDOR_JSON } from "./helpers";

describe("the Worker", () => {
  it("answers the health probe without credentials", async () => {
    const res = await call("GET", "/api/health", { as: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "ok" });
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("has the default account from the first migration", async () => {
    const res = await call("GET", "/api/accounts/name/Default");
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(DEFAULT_ACCOUNT_ID);
  });
});
