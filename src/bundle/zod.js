// What the deploy bundle gets for `import { z } from "zod"` (wrangler.toml [alias]). @hono/zod-openapi
// extends zod's whole namespace object, so a bundler cannot drop any member of it, and one member,
// `z.locales`, holds the error messages of fifty languages: 360 KiB, a fifth of the bundle, that
// nothing here uses. This is zod's own entry point (zod/index.js) over its own modules, without that
// member, nor `z.fromJSONSchema` (JSON Schema to zod, 12 KiB), zod 4.6's schema compiler
// (`z.compile`, `z.withParser`, 29 KiB) and `z.core` (zod's internals as a namespace object, whose
// members zod's own modules import directly), which nothing here calls or reads either;
// English stays the default locale (zod's schemas module sets it). The tests and tsc use
// zod itself. A zod upgrade that moves these modules fails the deploy build loudly, never silently.
import * as z from "./zod-external.js";
export * from "./zod-external.js";
export { z, z as default };
