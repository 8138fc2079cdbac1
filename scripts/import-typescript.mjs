// The service's TypeScript modules in a Node script: esbuild bundles `contents` (a module that
// imports from ./src/..., resolved from the repository root) into `outfile`, which is imported.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export async function importTypeScript(contents, outfile) {
  await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile,
    // The connectors' sockets are imported when a connection is opened, never here.
    external: ["cloudflare:*"],
    logLevel: "warning",
  });
  return import(pathToFileURL(outfile).href);
}

/** importTypeScript into a temporary directory, removed once the module is loaded (the bench's measures of src/domain work). */
export async function importTypeScriptOnce(contents) {
  const dir = mkdtempSync(join(tmpdir(), "amapi-module-"));
  try {
    return await importTypeScript(contents, join(dir, "module.mjs"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
