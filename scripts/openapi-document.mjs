// The OpenAPI document, generated at build time from the same Zod schemas that validate requests
// (src/routes/meta/openapi-document.ts over every route of src/app.ts), and written to
// assets/openapi/openapi.json, from where the Worker serves it (GET /api/openapi.json, with its own
// headers and the configured CONTEXT_PATH; src/routes/meta/served-document.ts). Built here, a
// deployment neither generates a 1.5 MB document in each isolate nor carries the generator.
// Run by scripts/build.mjs (wrangler dev, deploy) and scripts/prepare-assets.mjs (npm test, start,
// deploy); test/integration/openapi.test.ts checks that the served document is what the schemas give.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importTypeScript } from "./import-typescript.mjs";

export const DOCUMENT_ASSET = "assets/openapi/openapi.json";
const root = fileURLToPath(new URL("..", import.meta.url));

export async function writeOpenApiDocument() {
  const work = mkdtempSync(join(tmpdir(), "amapi-openapi-"));
  try {
    const outfile = join(work, "document.mjs");
    const { documentText } = await importTypeScript(
      `import { createApp } from "./src/app"; import { buildDocument } from "./src/routes/meta/openapi-document";
        export const documentText = async () => JSON.stringify(buildDocument(await createApp("")));`,
      outfile,
    );
    mkdirSync(join(root, "assets/openapi"), { recursive: true });
    writeFileSync(join(root, DOCUMENT_ASSET), await documentText());
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await writeOpenApiDocument();
