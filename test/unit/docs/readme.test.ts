import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the scripts, without types.
import { renderReadme } from "../../../scripts/readme-blocks.mjs";

const readme = readFileSync("README.md", "utf8");

describe("README", () => {
  it("shows the walk-through CI runs and the typed-client example tsc checks, as they are, and a full table of contents (npm run readme rewrites them)", () => {
    expect(readme).toContain("<!-- walkthrough:begin -->");
    expect(readme).toContain("<!-- typed-client:begin -->");
    expect(renderReadme(readme)).toBe(readme);
  });

  it("links to nothing outside the repository", () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]);
    const outside = links.filter((href) => !href.startsWith("#") && (/^[a-z]+:/i.test(href) || href.startsWith("../") || href.startsWith("/")));
    expect(outside).toEqual([]);
    expect(readme).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost|[\w.-]*example\.(?:com|test))[^\s)`'"]+/);
    expect(readme).not.toContain("../shared");
  });
});
