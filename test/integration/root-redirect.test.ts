import { describe, expect, it } from "vitest";
import { call } from "./helpers";

describe("the service's root", () => {
  it("redirects to the API reference page, which is there", async () => {
    const res = await call("GET", "/", { as: null });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/docs");
    expect((await call("GET", "/docs", { as: null })).status).toBe(200);
  });

  it("redirects to the context path's reference page behind a context path", async () => {
    for (const path of ["/composer", "/composer/"]) {
      // The document names the root once, without the trailing slash: the other spelling is not in it.
      const res = await call("GET", path, { as: null, contextPath: "/composer", unchecked: path.endsWith("/") });
      expect(res.status, path).toBe(302);
      expect(res.headers.get("Location"), path).toBe("/composer/docs");
    }
    expect((await call("GET", "/composer/docs", { as: null, contextPath: "/composer" })).status).toBe(200);
  });
});
