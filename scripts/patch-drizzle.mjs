// npm's postinstall: makes drizzle-orm's `is(value, type)` remember, per class, the entity kinds of
// its class chain, instead of walking that chain with `in` on every call.
//
// Why: Drizzle asks `is()` several times of every chunk of every query it turns into SQL (is it SQL?
// a Param? a Column? a Table? ...), and most answers are "no", which is the slow path: a failed
// `instanceof`, then a walk up the class chain. Under the Worker's profiler `is()` was the heaviest
// function of routes whose queries are not compiled (10 % of GET /api/connections/{id}'s CPU), and
// in Node it makes a ten-column select's SQL 35 % faster to build (docs/performance.md). Same
// answers: a class chain never changes once its classes are defined, so the kinds met on it are
// the same on every call; test/unit/db/drizzle-entity.test.ts compares the two on Drizzle's own
// entities and checks that this install applied it.
//
// It rewrites only the exact function of the pinned release (package.json pins drizzle-orm); if a
// new release changed it, it says so and leaves it as it is (correct, only slower), and the test fails.
import { readFileSync, writeFileSync } from "node:fs";

const MARK = "/* is(): class chains remembered (scripts/patch-drizzle.mjs) */";
// Both versions begin alike: the checks before the class chain.
const HEAD = `function is(value, type) {
  if (!value || typeof value !== "object") {
    return false;
  }
  if (value instanceof type) {
    return true;
  }
  if (!Object.prototype.hasOwnProperty.call(type, entityKind)) {
    throw new Error(
      \`Class "\${type.name ?? "<unknown>"}" doesn't look like a Drizzle entity. If this is incorrect and the class is provided by Drizzle, please report this as a bug.\`
    );
  }
`;
const ORIGINAL = `${HEAD}  let cls = Object.getPrototypeOf(value).constructor;
  if (cls) {
    while (cls) {
      if (entityKind in cls && cls[entityKind] === type[entityKind]) {
        return true;
      }
      cls = Object.getPrototypeOf(cls);
    }
  }
  return false;
}`;
const REMEMBERING = `${MARK}
const entityKindsOfClass = new WeakMap();
${HEAD}  const start = Object.getPrototypeOf(value).constructor;
  if (!start) {
    return false;
  }
  let kinds = typeof start === "function" ? entityKindsOfClass.get(start) : undefined;
  if (!kinds) {
    kinds = new Set();
    for (let cls = start; cls; cls = Object.getPrototypeOf(cls)) {
      if (entityKind in cls) kinds.add(cls[entityKind]);
    }
    if (typeof start === "function") entityKindsOfClass.set(start, kinds);
  }
  return kinds.has(type[entityKind]);
}`;

for (const file of ["entity.js", "entity.cjs"]) {
  const path = new URL(`../node_modules/drizzle-orm/${file}`, import.meta.url);
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    continue; // drizzle-orm not installed (yet): nothing to do
  }
  if (text.includes(MARK)) continue;
  if (!text.includes(ORIGINAL)) {
    console.warn(`scripts/patch-drizzle.mjs: drizzle-orm/${file} has another is() than the pinned release's; left as it is`);
    continue;
  }
  writeFileSync(path, text.replace(ORIGINAL, REMEMBERING));
}
