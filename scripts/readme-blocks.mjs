// The README's generated blocks: its table of contents, and copies of files that CI runs or
// type-checks (the walk-through, the typed-client example), so that what the README shows cannot
// drift from what is tested. `npm run readme` rewrites them; test/unit/docs/readme.test.ts fails
// when the README differs from what this would write.
import { readFileSync } from "node:fs";

const COPIES = {
  walkthrough: { file: "scripts/walkthrough.sh", language: "sh" },
  "typed-client": { file: "examples/typed-client.ts", language: "ts" },
};

/** GitHub's anchor of a heading. */
export function anchorOf(title) {
  return title.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function contents(readme) {
  const body = readme.replace(/^```[\s\S]*?^```/gm, "");
  const sections = [...body.matchAll(/^## (.+)$/gm)].map((match) => match[1]).filter((title) => title !== "Contents");
  return sections.map((title) => `- [${title.replace(/`/g, "")}](#${anchorOf(title)})`).join("\n");
}

function replaceBlock(readme, name, text) {
  const block = new RegExp(`<!-- ${name}:begin -->[\\s\\S]*?<!-- ${name}:end -->`);
  if (!block.test(readme)) throw new Error(`README.md has no <!-- ${name}:begin --> ... <!-- ${name}:end --> block`);
  return readme.replace(block, () => `<!-- ${name}:begin -->\n${text}\n<!-- ${name}:end -->`);
}

/** The README with every generated block rewritten from its source. */
export function renderReadme(readme, read = (file) => readFileSync(file, "utf8")) {
  let out = readme;
  for (const [name, { file, language }] of Object.entries(COPIES)) {
    out = replaceBlock(out, name, `\`\`\`${language}\n${read(file).trimEnd()}\n\`\`\``);
  }
  return replaceBlock(out, "contents", contents(out));
}
