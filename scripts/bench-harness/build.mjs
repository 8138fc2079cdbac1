// Bundles the integration harness (./entry.ts) for Node: `cloudflare:*` and `vitest` become the
// shims beside this file, and harness/worker.ts (how tests reach the Worker) becomes HTTP to the
// Worker that `wrangler dev` serves (globalThis.__BENCH_BASE__).
import { build } from "esbuild";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const shims = {
  "cloudflare:workers": join(here, "shims/cloudflare-workers.mjs"),
  "cloudflare:test": join(here, "shims/cloudflare-test.mjs"),
  vitest: join(here, "shims/vitest.mjs"),
};

export async function loadHarness(outdir, { base, inject }) {
  const outfile = join(outdir, "harness.mjs");
  await build({
    entryPoints: [join(here, "entry.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile,
    logLevel: "warning",
    plugins: [
      {
        name: "bench-shims",
        setup(b) {
          b.onResolve({ filter: /^(cloudflare:workers|cloudflare:test|vitest)$/ }, (args) => ({ path: shims[args.path] }));
          b.onResolve({ filter: /(^|\/)(harness\/)?worker$/ }, (args) =>
            args.importer.includes(`${join("test", "integration")}`) ? { path: join(here, "shims/transport.mjs") } : undefined,
          );
        },
      },
    ],
  });
  globalThis.__BENCH_BASE__ = base;
  globalThis.__BENCH_INJECT__ = inject;
  return import(pathToFileURL(outfile).href);
}
