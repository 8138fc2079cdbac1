// npm run readme: rewrites the README's generated blocks (contents, walk-through, typed-client
// example) from their sources; see scripts/readme-blocks.mjs.
import { readFileSync, writeFileSync } from "node:fs";
import { renderReadme } from "./readme-blocks.mjs";

writeFileSync("README.md", renderReadme(readFileSync("README.md", "utf8")));
console.log("README.md: contents, walk-through and typed-client example rewritten.");
