// npm run readme: rewrites the documentation's generated blocks (the README's contents of docs/, the
// endpoint tables, the walk-through, the typed-client example) from their sources; see
// scripts/readme-blocks.mjs. The endpoint tables come from the OpenAPI document the app builds,
// bundled here with esbuild since the app is TypeScript.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { documentationFiles, renderDocumentation } from "./readme-blocks.mjs";

const outfile = resolve(".wrangler/readme/openapi-document.mjs");
await build({
  stdin: {
    contents: 'import { createApp } from "./src/app"; import { buildDocument } from "./src/routes/meta/openapi-document"; export const document = buildDocument(await createApp());',
    resolveDir: process.cwd(),
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  external: ["cloudflare:*"],
  logLevel: "warning",
  outfile,
});
const { document } = await import(pathToFileURL(outfile).href);

const files = Object.fromEntries(documentationFiles().map((file) => [file, readFileSync(file, "utf8")]));
const rendered = renderDocumentation(files, document);
const changed = Object.keys(files).filter((file) => rendered[file] !== files[file]);
for (const file of changed) writeFileSync(file, rendered[file]);
console.log(changed.length ? `Rewritten: ${changed.join(", ")}.` : "The generated blocks were up to date.");
