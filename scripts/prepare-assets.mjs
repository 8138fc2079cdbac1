// Copies the API reference's browser bundle (the @scalar/api-reference package) next to
// assets/docs/init.js, where Workers static assets serve it from the Worker's own origin:
// /docs must render with no internet (no CDN). Run by npm start, npm test, deploy and the
// browser test; the copy is not committed (.gitignore).
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The package exports no path to its browser bundle; it sits in its dist/ beside the main entry.
const bundle = fileURLToPath(new URL("./browser/standalone.js", import.meta.resolve("@scalar/api-reference")));
mkdirSync("assets/docs", { recursive: true });
copyFileSync(bundle, "assets/docs/scalar.js");
