// npm run readme: rewrites the documentation's generated blocks (the README's contents of docs/, the
// walk-through, the typed-client example) from their sources; see scripts/readme-blocks.mjs.
import { readFileSync, writeFileSync } from "node:fs";
import { documentationFiles, renderDocumentation } from "./readme-blocks.mjs";

const files = Object.fromEntries(documentationFiles().map((file) => [file, readFileSync(file, "utf8")]));
const rendered = renderDocumentation(files);
const changed = Object.keys(files).filter((file) => rendered[file] !== files[file]);
for (const file of changed) writeFileSync(file, rendered[file]);
console.log(changed.length ? `Rewritten: ${changed.join(", ")}.` : "The generated blocks were up to date.");
