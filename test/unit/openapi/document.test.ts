import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { buildDocument } from "../../../src/routes/meta/openapi-document";

// The document the Worker serves at /api/openapi.json, built the same way, checked against the
// OpenAPI 3.1 schema by a standard validator (the integration tests compare it with the routes).
// The apps are built before the tests: loading every route module takes seconds on a busy machine.
const [app, composerApp] = await Promise.all([createApp(), createApp("/composer")]);

// Generating and validating the whole document is CPU work of seconds on a loaded machine.
describe("the OpenAPI document", { timeout: 30_000 }, () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const document = structuredClone(buildDocument(app)) as Record<string, unknown>;
    const result = await validate(document as never);
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2).slice(0, 4000));
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
  });

  it("is valid behind a context path too, its paths carrying the prefix", async () => {
    const document = structuredClone(buildDocument(composerApp)) as { paths: Record<string, unknown> };
    expect((await validate(document as never)).valid).toBe(true);
    expect(Object.keys(document.paths)).toContain("/composer/api/user");
    expect(Object.keys(document.paths).every((path) => path === "/composer" || path.startsWith("/composer/"))).toBe(true);
  });
});
