// npm run types / npm run types:check: worker-configuration.d.ts (the bindings' types) from
// wrangler.toml by `wrangler types`, with one change: wrangler types the main module as the deploy
// build's dist/index.js (wrangler.toml `main`), which exists only after a build and has no types;
// the file names src/index.ts instead, which that build is made from. --check: fail when the file
// is stale, leaving it as it was.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { assertNode22, runWranglerQuietly } from "./wrangler.mjs";

assertNode22();
const FILE = "worker-configuration.d.ts";
const committed = existsSync(FILE) ? readFileSync(FILE, "utf8") : "";
const said = await runWranglerQuietly(["types", "--include-runtime=false", "--strict-vars=false", "--env-file", ".dev.vars.example"]);
const written = existsSync(FILE) ? readFileSync(FILE, "utf8") : "";
if (!written.includes('typeof import("./dist/index")')) throw new Error(`wrangler types did not write the expected ${FILE}:\n${said}`);
const generated = written.replace('typeof import("./dist/index")', 'typeof import("./src/index")');
if (!process.argv.includes("--check")) writeFileSync(FILE, generated);
else {
  writeFileSync(FILE, committed);
  if (committed !== generated) {
    console.error(`${FILE} is stale: run npm run types and commit it.`);
    process.exitCode = 1;
  }
}
