// The Worker's build (wrangler.toml [build]: wrangler dev, wrangler deploy and `wrangler check
// startup` run it): src/index.ts bundled by esbuild into dist/, split into one module per route
// group (the dynamic imports of src/routes/index.ts and src/index.ts) and the chunks they share.
//
// Why not wrangler's own bundler: it writes one script, which V8 must parse whole before the Worker
// serves anything, 800 KiB of it (the largest share of start-up). Split, the start-up module is a
// few KiB and a route group's code is compiled on the group's first request (workerd compiles a
// module when it is first imported). wrangler uploads every module of dist/ (find_additional_modules).
//
// What wrangler's bundler did and this keeps: minified without kept names (a smaller upload, a faster
// parse), zod without its fifty locales (src/bundle/zod.js says why), `node:*` and `cloudflare:*`
// left to the runtime (nodejs_compat). Beyond it: the OpenAPI document is written at build time
// (scripts/openapi-document.mjs) and the bundle gets zod-to-openapi without its generator
// (src/bundle/zod-to-openapi.js); terser compresses each module after esbuild
// (9 KiB less gzip, about 8 s of build). The tests run src/ itself (vitest.config.ts `main`).
//
// BUILD_MINIFY=false writes readable modules, each source module marked with a `// path` comment
// (npm run profile charges CPU samples to them).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import * as esbuild from "esbuild";
import { minify as compress } from "terser";
import { withoutDocumentationPlugin } from "./build-without-docs.mjs";
import { writeOpenApiDocument } from "./openapi-document.mjs";

const minify = process.env.BUILD_MINIFY !== "false";
const outdir = new URL("../dist/", import.meta.url).pathname;

/**
 * zod's JSON Schema conversion (z.toJSONSchema, a schema's .toJSONSchema(), 21 KiB) left out: the
 * Worker never converts a schema (the document is built at build time by the real zod). zod's
 * modules import it, so each of its exports becomes a function that throws, and the methods that
 * zod's schemas make from it (createToJSONSchemaMethod) make such functions.
 */
const zodWithoutJsonSchema = {
  name: "zod-without-json-schema",
  setup(build) {
    build.onResolve({ filter: /\/(json-schema-processors|to-json-schema|json-schema-generator)\.js$/ }, (args) =>
      /node_modules\/zod\/|src\/bundle\//.test(args.importer) ? { path: resolve(args.resolveDir, args.path), namespace: "zod-json-schema" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-json-schema" }, (args) => {
      const real = readFileSync(args.path, "utf8");
      const names = [...real.matchAll(/^export (?:const|function|class) (\w+)/gm)].map((m) => m[1]);
      for (const [, list] of real.matchAll(/^export \{([^}]*)\}/gm)) names.push(...list.split(",").map((n) => n.trim().split(/\s+as\s+/).at(-1)).filter(Boolean));
      const stub = names.map((n) => `export const ${n} = ${n.startsWith("create") ? "() => unavailable" : "unavailable"};`);
      return {
        contents: `const unavailable = () => { throw new Error("zod's JSON Schema conversion is not in the deploy build (scripts/build.mjs)"); };\n${stub.join("\n")}`,
        loader: "js",
      };
    });
  },
};

// The document first: the Worker serves it from its static assets, and it changes with the routes.
await writeOpenApiDocument();
rmSync(outdir, { recursive: true, force: true });
const { outputFiles } = await esbuild.build({
  entryPoints: { index: new URL("../src/index.ts", import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  minify,
  keepNames: false,
  alias: {
    zod: new URL("../src/bundle/zod.js", import.meta.url).pathname,
    "@asteasolutions/zod-to-openapi": new URL("../src/bundle/zod-to-openapi.js", import.meta.url).pathname,
  },
  external: ["node:*", "cloudflare:*"],
  chunkNames: "chunks/[name]-[hash]",
  define: { "process.env.NODE_ENV": '"production"' },
  plugins: [zodWithoutJsonSchema, withoutDocumentationPlugin],
  logLevel: "warning",
  write: false,
});
for (const file of outputFiles) {
  const code = minify ? (await compress(file.text, { module: true, ecma: 2022, compress: { passes: 2 }, format: { comments: false } })).code : file.text;
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, code);
}
