/**
 * Checks a parsed JSON request body before anything stores it:
 *  - no string (value or member name) may hold a lone surrogate: I-JSON (RFC 7493) forbids
 *    them, and storage would turn them into U+FFFD, so what was accepted would not be what is
 *    read back;
 *  - nesting stays under a depth limit, so neither the validators nor later readers walk
 *    arbitrarily deep trees.
 * The walk is iterative: a 500,000-level body must not overflow the stack of the checker itself.
 */
export type JsonFlaw = { kind: "LONE_SURROGATE" | "TOO_DEEP"; path: (string | number)[] };

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * Whether the JSON text of a body can have a flaw at all, read from the text alone: a string of the
 * parsed value holds a surrogate only through a `\uD800`-`\uDFFF` escape (text decoded as strict
 * UTF-8 has none of its own), and a value is no deeper than the text has `{` and `[`. Most bodies
 * have neither, and are spared the walk of findJsonFlaw.
 */
export function mayHaveJsonFlaw(text: string, maxDepth: number): boolean {
  if (SURROGATE_ESCAPE.test(text)) return true;
  let openings = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code === 0x7b || code === 0x5b) && ++openings > maxDepth) return true;
  }
  return false;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A value met by the walk: its container's frame and its key there, not a copy of its whole path. */
type Frame = { value: unknown; parent: Frame | undefined; key: string | number; depth: number };

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/** The first flaw found in document order (depth is counted in containers: `{}` is depth 1), or undefined. */
export function findJsonFlaw(value: unknown, maxDepth: number): JsonFlaw | undefined {
  // Each frame: the value, where it sits, its depth (number of containers it sits in, itself included).
  const stack: Frame[] = [{ value, parent: undefined, key: "", depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === "string") {
      if (hasLoneSurrogate(current)) return { kind: "LONE_SURROGATE", path: pathOf(frame) };
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    const depth = frame.depth + 1;
    if (depth > maxDepth) return { kind: "TOO_DEEP", path: pathOf(frame) };
    // Pushed in reverse so that the first member is inspected first.
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: frame, key: i, depth });
    } else {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (hasLoneSurrogate(key)) return { kind: "LONE_SURROGATE", path: [...pathOf(frame), key] };
        stack.push({ value: (current as Record<string, unknown>)[key], parent: frame, key, depth });
      }
    }
  }
  return undefined;
}

/** Depth of a JSON value in containers (a scalar is 0, `{}` and `[]` are 1), counted up to `limit + 1`. */
export function jsonDepth(value: unknown, limit = Number.MAX_SAFE_INTEGER): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, outer] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    const depth = outer + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth]);
  }
  return deepest;
}

/** A member path as the API names it in a Problem: `body.fields[0].origin`. */
export function memberName(root: string, path: readonly (string | number)[], maxSegments = 40): string {
  const shown = path.length > maxSegments ? [...path.slice(0, maxSegments), "…"] : path;
  let name = root;
  for (const segment of shown) name += typeof segment === "number" ? `[${segment}]` : segment === "…" ? "…" : `.${segment}`;
  return name;
}
