// zod/v4/classic/external.js (zod 4.6) less `export * as locales`, `fromJSONSchema`, the compiler (`compile`, `withParser`, `INVALID`, its errors)
// and `export * as core` (`z.core`, zod's internals as one namespace object of some 300 members: 2.6 KiB of the gzipped upload): see ./zod.js.
export * from "../../node_modules/zod/v4/classic/schemas.js";
export * from "../../node_modules/zod/v4/classic/checks.js";
export * from "../../node_modules/zod/v4/classic/errors.js";
export * from "../../node_modules/zod/v4/classic/parse.js";
export * from "../../node_modules/zod/v4/classic/compat.js";
export { globalRegistry, registry, config, memoizer, $output, $input, $brand, clone, regexes, treeifyError, prettifyError, formatError, flattenError, TimePrecision, util, NEVER, toZod, getDiscriminatedOption } from "./zod-core.js";
export { toJSONSchema } from "../../node_modules/zod/v4/core/json-schema-processors.js";
export { deepPartial } from "../../node_modules/zod/v4/classic/deep-partial.js";
export { input, output } from "../../node_modules/zod/v4/classic/in-out.js";
export { ZodISODateTime, ZodISODate, ZodISOTime, ZodISODuration } from "../../node_modules/zod/v4/classic/iso.js";
export * as iso from "../../node_modules/zod/v4/classic/iso.js";
export * as coerce from "../../node_modules/zod/v4/classic/coerce.js";
