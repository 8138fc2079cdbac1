import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";

// The deploy build's Hono routes with TrieRouter alone (scripts/build.mjs, STAND_INS): the router
// Hono's default SmartRouter settles on for this API, RegExpRouter refusing one of its paths.
// Should a later set of routes suit RegExpRouter, this fails, and the stand-in is to be revisited.
describe("Hono's router", () => {
  it("is TrieRouter for every route of the API, at the root and behind a context path", async () => {
    const env = { LOG_FORMAT: "none", PAGE_TOKEN_KEY: "x".repeat(43), DB: { prepare() {}, withSession() {} } };
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
    for (const contextPath of ["", "/composer"]) {
      const app = await createApp(contextPath);
      const res = await app.fetch(new Request(`http://localhost${contextPath}/api/health`), env as never, ctx as never);
      expect(res.status).toBe(200);
      expect((app.router as unknown as { activeRouter: { name: string } }).activeRouter.name).toBe("TrieRouter");
    }
  });
});
