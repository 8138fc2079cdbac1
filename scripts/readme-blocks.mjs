// The documentation's generated blocks: the README's table of contents (every page of docs/), the
// endpoint tables of docs/ pages (from the OpenAPI document the Worker serves), and copies of files
// that CI runs or type-checks (the walk-through in the README, the typed-client example in
// docs/typed-client.md), so that what the documentation shows cannot drift from what is tested. A
// block may live in the README or in any page of docs/. `npm run readme` rewrites them;
// test/unit/docs/readme.test.ts fails when a page differs from what this would write.
import { readFileSync, readdirSync } from "node:fs";

const COPIES = {
  walkthrough: { file: "scripts/walkthrough.sh", language: "sh" },
  "typed-client": { file: "examples/typed-client.ts", language: "ts" },
};

/** The Markdown files that make the documentation: the README, then docs/*.md by name. */
export function documentationFiles(list = (dir) => readdirSync(dir)) {
  const pages = list("docs").filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...pages.map((name) => `docs/${name}`)];
}

/** GitHub's anchor of a heading. */
export function anchorOf(title) {
  return title.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

/** A page's text without its fenced code blocks (whose lines are no headings or links). */
export function withoutCode(text) {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** The headings of a page, `level` 1 to 6, with the anchors GitHub gives them (repeats get -1, -2, ...). */
export function headingsOf(text) {
  const seen = new Map();
  return [...withoutCode(text).matchAll(/^(#{1,6}) (.+)$/gm)].map(([, hashes, title]) => {
    const base = anchorOf(title);
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    return { level: hashes.length, title, anchor: repeats ? `${base}-${repeats}` : base };
  });
}

/**
 * The README's contents: one line per page of docs/, its title linked, then its sections. Pages keep
 * the order the block already gives them; pages not yet listed follow by name, so a new page is
 * listed the next time `npm run readme` runs (and the test fails until it has).
 */
function contents(readme, pages) {
  const current = /<!-- contents:begin -->([\s\S]*?)<!-- contents:end -->/.exec(readme)?.[1] ?? "";
  const listed = [...current.matchAll(/^- \[[^\]]*\]\((docs\/[^)#]+\.md)\)/gm)].map((match) => match[1]);
  const order = (file) => (listed.includes(file) ? listed.indexOf(file) : listed.length);
  const files = Object.keys(pages).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  return files
    .map((file) => {
      const headings = headingsOf(pages[file]);
      const title = headings.find((h) => h.level === 1)?.title ?? file;
      const sections = headings.filter((h) => h.level === 2).map((h) => h.title.replace(/`/g, ""));
      return `- [${title.replace(/`/g, "")}](${file})${sections.length ? `: ${sections.join("; ")}` : ""}`;
    })
    .join("\n");
}

/** The `<!-- endpoints:begin TAG, TAG -->` blocks of a page: the tags each lists. */
export function endpointBlocksOf(text) {
  return [...text.matchAll(/<!-- endpoints:begin ([^>]*?) -->/g)].map((match) => match[1].split(",").map((tag) => tag.trim()));
}

const METHODS = ["get", "put", "post", "patch", "delete"];

/** The operations of an OpenAPI document: method, path, tags, summary, access rule, stability mark. */
export function operationsOf(document) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method];
      return { method: method.toUpperCase(), path, tags: operation.tags ?? [], summary: operation.summary ?? "", access: operation["x-access"], stability: operation["x-stability"] };
    }),
  );
}

function endpointTable(tags, document) {
  const known = new Set(operationsOf(document).flatMap((operation) => operation.tags));
  const unknown = tags.filter((tag) => !known.has(tag));
  if (unknown.length) throw new Error(`An endpoints block names tags the OpenAPI document does not have: ${unknown.join(", ")}`);
  const cell = (text) => text.replace(/\|/g, "\\|");
  const rows = operationsOf(document)
    .filter((operation) => operation.tags.some((tag) => tags.includes(tag)))
    .map(({ method, path, summary, access, stability }) => `| \`${method} ${path}\` | ${cell(String(access))} | ${cell(summary)}${stability ? ` (${stability})` : ""} |`);
  return ["| endpoint | access rule | what it does |", "|---|---|---|", ...rows].join("\n");
}

function replaceBlock(text, name, replacement) {
  const block = new RegExp(`<!-- ${name}:begin -->[\\s\\S]*?<!-- ${name}:end -->`);
  return text.replace(block, () => `<!-- ${name}:begin -->\n${replacement}\n<!-- ${name}:end -->`);
}

/** A page with each copy it holds rewritten from its source file. */
export function renderCopies(text, read = (file) => readFileSync(file, "utf8")) {
  let out = text;
  for (const [name, { file, language }] of Object.entries(COPIES)) {
    if (out.includes(`<!-- ${name}:begin -->`)) out = replaceBlock(out, name, `\`\`\`${language}\n${read(file).trimEnd()}\n\`\`\``);
  }
  return out;
}

/** A page with each endpoints block rewritten from the OpenAPI document. */
export function renderEndpoints(text, document) {
  return text.replace(/<!-- endpoints:begin ([^>]*?) -->[\s\S]*?<!-- endpoints:end -->/g, (block, list) => {
    if (!document) throw new Error("Endpoints blocks need the OpenAPI document");
    const tags = list.split(",").map((tag) => tag.trim());
    return `<!-- endpoints:begin ${list} -->\n${endpointTable(tags, document)}\n<!-- endpoints:end -->`;
  });
}

/**
 * Every page of the documentation with its generated blocks rewritten: `files` maps each file
 * (README.md, docs/*.md) to its text; `document` is the OpenAPI document (for endpoints blocks); the
 * answer maps each file to what it should be.
 */
export function renderDocumentation(files, document, read = (file) => readFileSync(file, "utf8")) {
  const out = Object.fromEntries(Object.entries(files).map(([file, text]) => [file, renderEndpoints(renderCopies(text, read), document)]));
  for (const name of ["contents", ...Object.keys(COPIES)]) {
    const holders = Object.keys(out).filter((file) => out[file].includes(`<!-- ${name}:begin -->`));
    if (holders.length !== 1) throw new Error(`The <!-- ${name}:begin --> ... <!-- ${name}:end --> block must be in exactly one page, not ${holders.length ? holders.join(", ") : "none"}`);
  }
  if (!out["README.md"].includes("<!-- contents:begin -->")) throw new Error("The contents block belongs in README.md");
  const pages = Object.fromEntries(Object.entries(out).filter(([file]) => file.startsWith("docs/")));
  out["README.md"] = replaceBlock(out["README.md"], "contents", contents(out["README.md"], pages));
  return out;
}
