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
// (9 KiB less gzip, about 8 s of build). Beyond that: library modules the Worker never runs are
// left out (STAND_INS), and the modules are named without esbuild's hashes (withoutHashes).
// The tests run src/ itself (vitest.config.ts `main`).
//
// BUILD_MINIFY=false writes readable modules, each source module marked with a `// path` comment
// (npm run profile charges CPU samples to them).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
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

/**
 * Modules of libraries that a library's own modules import but whose code the Worker never runs,
 * each replaced by a small stand-in: what remains of its exports gives the same answers to every
 * call the Worker makes. Keyed by the module's path under node_modules; a release that moves or
 * changes one fails the build (the stand-in checks what it replaces), never silently.
 */
const STAND_INS = {
  // postgres.js's logical replication (`sql.subscribe`) and large objects (`sql.largeObject`), 5 KiB:
  // the connectors only query. postgres() makes its subscriber at once, as a second client that
  // never connects until `sql.subscribe` is called; without it `sql.end()` has one client fewer to
  // end, which held no connection.
  "postgres/cf/src/subscribe.js": {
    expect: /^export default function Subscribe\(postgres, options\) \{$/m,
    contents: `export default function Subscribe() { return () => { throw new Error("postgres.js's sql.subscribe is not in the deploy build (scripts/build.mjs)"); }; }`,
  },
  "postgres/cf/src/large.js": {
    expect: /^export default function largeObject\(sql, oid, mode/m,
    contents: `export default function largeObject() { throw new Error("postgres.js's sql.largeObject is not in the deploy build (scripts/build.mjs)"); }`,
  },
  // Hono's default router tries RegExpRouter on an app's first request, then TrieRouter when
  // RegExpRouter refuses a path (SmartRouter). It refuses this API's (a static segment beside a
  // parameter: /api/folders/tree and /api/folders/{id}), so every app routes with TrieRouter: the
  // stand-in makes it at once, without RegExpRouter and SmartRouter (2 KiB gzip) and the failed
  // attempt each app's first request made. test/unit/router.test.ts checks SmartRouter's choice.
  "hono/dist/hono.js": {
    expect: /this\.router = options\.router \?\? new SmartRouter\(\{ routers: \[new RegExpRouter\(\), new TrieRouter\(\)\] \}\);/,
    contents: `import { HonoBase } from "./hono-base.js";
import { TrieRouter } from "./router/trie-router/router.js";
export class Hono extends HonoBase {
  constructor(options = {}) {
    super(options);
    this.router = options.router ?? new TrieRouter();
  }
}`,
  },
  // Drizzle's SQL builder asks of every chunk whether it is a PostgreSQL enum (`isPgEnum`), and its
  // module brings PostgreSQL's column classes; the question needs none of them: the same function.
  "drizzle-orm/pg-core/columns/enum.js": {
    expect: /^function isPgEnum\(obj\) \{\n  return !!obj && typeof obj === "function" && isPgEnumSym in obj && obj\[isPgEnumSym\] === true;\n\}$/m,
    contents: `const isPgEnumSym = Symbol.for("drizzle:isPgEnum");
export function isPgEnum(obj) {
  return !!obj && typeof obj === "function" && isPgEnumSym in obj && obj[isPgEnumSym] === true;
}`,
  },
  // Drizzle's relational config asks `is(entry, PrimaryKeyBuilder)` of PostgreSQL's primary key,
  // whose module brings PostgreSQL's tables and columns. is() compares entity kinds along the class
  // chain, so a class of the same kind gets the same answers (and no SQLite entry is one).
  "drizzle-orm/pg-core/primary-keys.js": {
    expect: /^class PrimaryKeyBuilder \{\n  static \[entityKind\] = "PgPrimaryKeyBuilder";$/m,
    contents: `import { entityKind } from "../entity.js";
export class PrimaryKeyBuilder {
  static [entityKind] = "PgPrimaryKeyBuilder";
}`,
  },
};

const standIns = {
  name: "stand-ins",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      const module = /\/node_modules\/(.*)$/.exec(path)?.[1];
      return module && STAND_INS[module] ? { path, namespace: "stand-in", pluginData: module } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "stand-in" }, (args) => {
      const { expect, contents } = STAND_INS[args.pluginData];
      if (!expect.test(readFileSync(args.path, "utf8"))) throw new Error(`${args.pluginData} is not what its stand-in replaces (scripts/build.mjs STAND_INS)`);
      return { contents, loader: "js", resolveDir: dirname(args.path) };
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
  plugins: [zodWithoutJsonSchema, standIns, withoutDocumentationPlugin],
  logLevel: "warning",
  write: false,
});

/**
 * The modules' names without esbuild's content hashes, which nothing here needs (wrangler uploads
 * every module at each deployment; nothing caches one by its name) and which cost 2.6 KiB of the
 * gzipped upload: each route group's module imports from a dozen chunks, and eight random letters
 * in each import do not compress. A route group's module keeps its name (`accounts.index.js`); the
 * chunks they share are numbered in base 36, the most imported first, so most names are one letter.
 */
function withoutHashes(files) {
  // An import of a module of the build, as esbuild writes it: "./chunk-ABCDEFGH.js" between chunks,
  // "./chunks/app-ABCDEFGH.js" from index.js.
  const IMPORTED = /(["'`])\.\/((?:chunks\/)?)([\w.-]+-[A-Z2-7]{8}\.js)\1/g;
  const imports = new Map();
  for (const file of files) for (const [, , , name] of file.text.matchAll(IMPORTED)) imports.set(name, (imports.get(name) ?? 0) + 1);
  const names = new Map();
  const taken = new Set(["index.js"]);
  const name = (file, to) => {
    if (taken.has(to)) throw new Error(`two modules of the build would be named ${to} (scripts/build.mjs withoutHashes)`);
    taken.add(to);
    names.set(basename(file.path), to);
  };
  const stem = (file) => /^(.+)-[A-Z2-7]{8}\.js$/.exec(basename(file.path))?.[1];
  for (const file of files) if (stem(file) && stem(file) !== "chunk") name(file, `${stem(file)}.js`);
  const uses = (file) => imports.get(basename(file.path)) ?? 0;
  const shared = files.filter((file) => stem(file) === "chunk").sort((a, b) => uses(b) - uses(a) || (a.path < b.path ? -1 : 1));
  shared.forEach((file, n) => name(file, `${n.toString(36)}.js`));
  return files.map((file) => ({
    path: names.has(basename(file.path)) ? resolve(dirname(file.path), names.get(basename(file.path))) : file.path,
    text: file.text.replace(IMPORTED, (_, quote, dir, imported) => {
      if (!names.has(imported)) throw new Error(`the build imports ${imported}, which it did not write (scripts/build.mjs withoutHashes)`);
      return `${quote}./${dir}${names.get(imported)}${quote}`;
    }),
  }));
}

for (const file of withoutHashes(outputFiles)) {
  const code = minify ? (await compress(file.text, { module: true, ecma: 2022, compress: { passes: 2 }, format: { comments: false } })).code : file.text;
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, code);
}
