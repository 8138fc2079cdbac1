import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

describe("the OpenAPI document's component names", () => {
  // zod-to-openapi keeps one schema per name and silently drops the other: two resources naming a
  // schema alike would document one's body with the other's shape.
  it("name one schema each", () => {
    const places = new Map<string, string[]>();
    for (const file of sources("src")) {
      for (const [, name] of readFileSync(file, "utf8").matchAll(/\.openapi\(\s*"([^"]+)"/g)) places.set(name!, [...(places.get(name!) ?? []), file]);
    }
    expect(places.size).toBeGreaterThan(50);
    expect([...places].filter(([, files]) => files.length > 1)).toEqual([]);
  });
});
