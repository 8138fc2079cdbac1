import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError, handleError } from "../../src/lib/errors";
import type { AppEnv } from "../../src/lib/types";
import { stability } from "../../src/middleware/stability";

/** A tiny app with one route per mark, wired like the real one: the error module answers every error. */
function markedApp() {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.use("*", async (c, next) => {
    c.set("requestId", "test-request");
    await next();
  });
  app.get("/experimental", stability("experimental"), (c) => c.json({ ok: true }));
  app.get("/preview", stability("preview"), (c) => c.json({ ok: true }));
  app.get("/deprecated", stability("deprecated"), (c) => c.json({ ok: true }));
  app.get("/stable", stability(undefined), (c) => c.json({ ok: true }));
  app.get("/experimental-failing", stability("experimental"), () => {
    throw new ApiError("NOT_FOUND", "Nothing here");
  });
  app.get("/deprecated-failing", stability("deprecated"), () => {
    throw new ApiError("NOT_FOUND", "Nothing here");
  });
  return app;
}

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await markedApp().request(path, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
};

describe("stability marks", () => {
  it("experimental: X-API-Stability: experimental, no header needed", async () => {
    const res = await get("/experimental");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
    expect(res.headers.get("Deprecation")).toBeNull();
  });

  it("experimental: error responses carry the mark too", async () => {
    const res = await get("/experimental-failing");
    expect(res.status).toBe(404);
    expect(res.json.errorCode).toBe("NOT_FOUND");
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
  });

  it("preview without X-Enable-Preview: 400 PREVIEW_NOT_ENABLED, still marked experimental", async () => {
    const variants: Record<string, string>[] = [{}, { "X-Enable-Preview": "false" }, { "X-Enable-Preview": "yes" }, { "X-Enable-Preview": "" }];
    for (const headers of variants) {
      const res = await get("/preview", headers);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ status: "400", code: "BAD_REQUEST", errorCode: "PREVIEW_NOT_ENABLED", path: "/preview" });
      expect(res.headers.get("X-API-Stability")).toBe("experimental");
    }
  });

  it.each(["true", "TRUE", "True", " true "])("preview with X-Enable-Preview: %j passes", async (value) => {
    const res = await get("/preview", { "X-Enable-Preview": value });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
  });

  it("deprecated: Deprecation and Sunset headers, on errors too", async () => {
    const ok = await get("/deprecated");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Deprecation")).toBe("true");
    expect(ok.headers.get("Sunset")).toBe("Fri, 31 Dec 2027 23:59:59 GMT");
    expect(ok.headers.get("X-API-Stability")).toBeNull();
    const failing = await get("/deprecated-failing");
    expect(failing.status).toBe(404);
    expect(failing.headers.get("Deprecation")).toBe("true");
    expect(failing.headers.get("Sunset")).toBe("Fri, 31 Dec 2027 23:59:59 GMT");
  });

  it("no mark: neither header", async () => {
    const res = await get("/stable");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-API-Stability")).toBeNull();
    expect(res.headers.get("Deprecation")).toBeNull();
    expect(res.headers.get("Sunset")).toBeNull();
  });
});
