// Copies the API reference's browser bundle (the @scalar/api-reference package) next to
// assets/docs/init.js, where Workers static assets serve it from the Worker's own origin:
// /docs must render with no internet (no CDN); and writes the OpenAPI document into
// assets/openapi/ (scripts/openapi-document.mjs). Run by npm start, npm test, deploy and the
// browser test; neither is committed (.gitignore).
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeOpenApiDocument } from "./openapi-document.mjs";

// The package exports no path to its browser bundle; it sits in its dist/ beside the main entry.
const bundle = fileURLToPath(new URL("./browser/standalone.js", import.meta.resolve("@scalar/api-reference")));
mkdirSync("assets/docs", { recursive: true });
copyFileSync(bundle, "assets/docs/scalar.js");
await writeOpenApiDocument();
