import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { buildDocument } from "../../../src/routes/meta/openapi-document";
// @ts-expect-error: a plain ES module of the scripts, without types.
import * as blocks from "../../../scripts/readme-blocks.mjs";

const { documentationFiles, endpointBlocksOf, headingsOf, operationsOf, renderDocumentation, withoutCode } = blocks;

const files: string[] = documentationFiles();
const text: Record<string, string> = Object.fromEntries(files.map((file) => [file, readFileSync(file, "utf8")]));
const readme = text["README.md"]!;
const pages = files.filter((file) => file.startsWith("docs/"));
// The document the Worker serves, built the same way (test/unit/openapi/document.test.ts).
const document = buildDocument(await createApp());

/** Every Markdown link and image of a page outside code: [text](href) and ![alt](href). */
function linksOf(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** Where a relative link of `from` points: the file (relative to the repository) and its anchor. */
function targetOf(from: string, href: string): { file: string; anchor: string | undefined } {
  const [path, anchor] = href.split("#", 2) as [string, string | undefined];
  return { file: path === "" ? from : normalize(join(dirname(from), decodeURIComponent(path))), anchor };
}

describe("README and docs/", () => {
  it("show the walk-through CI runs, the typed-client example tsc checks and the endpoints the Worker serves, as they are, and the README lists every page of docs/ (npm run readme rewrites them)", () => {
    expect(readme).toContain("<!-- walkthrough:begin -->");
    expect(pages).toContain("docs/typed-client.md");
    expect(text["docs/typed-client.md"]).toContain("<!-- typed-client:begin -->");
    expect(renderDocumentation(text, document)).toEqual(text);
  });

  it("document every operation: in a generated endpoints table, or by its path in a page's own table", () => {
    const tabled = new Set(pages.flatMap((page) => endpointBlocksOf(text[page]!).flat()));
    const prose = pages.map((page) => text[page]).join("\n");
    const missing = operationsOf(document)
      .filter((operation: { tags: string[]; path: string }) => !operation.tags.some((tag) => tabled.has(tag)) && !prose.includes(operation.path))
      .map((operation: { method: string; path: string }) => `${operation.method} ${operation.path}`);
    expect(missing).toEqual([]);
  });

  it("reach every page of docs/ from the README", () => {
    const linked = new Set(linksOf(readme).map((href) => targetOf("README.md", href).file.split(sep).join("/")));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it("keep the README short: under 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(300);
  });

  it.each(files)("%s links to nothing outside the repository, and every relative link finds its file and heading", (file) => {
    const markdown = text[file]!;
    const links = linksOf(markdown);
    expect(links.filter((href) => /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("/"))).toEqual([]);
    expect(markdown).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost|[\w.-]*example\.(?:com|test))[^\s)`'"]+/);
    expect(markdown).not.toContain("../shared");

    const broken = links.filter((href) => {
      const { file: target, anchor } = targetOf(file, href);
      if (relative(".", target).startsWith("..") || !existsSync(target)) return true;
      if (anchor === undefined) return false;
      if (!target.endsWith(".md") || statSync(target).isDirectory()) return true;
      return !headingsOf(readFileSync(target, "utf8")).some((heading: { anchor: string }) => heading.anchor === anchor);
    });
    expect(broken).toEqual([]);
  });
});
