import { z } from "@hono/zod-openapi";

/**
 * Request bodies are closed: a member that no schema of the operation knows is a 400 naming it
 * (`body.privilegs`), never silently dropped. Zod fixes an object's handling of unknown keys when
 * the object is made, so the body schemas are built with `z.strictObject`; `defineRoute` calls
 * `openObjectsOf` on every body schema and refuses to declare a route whose body has an object that
 * would strip unknown members. Records (free maps: fieldMetadata, a dataset's data) stay open.
 */
export function openObjectsOf(schema: z.ZodType): string[] {
  const open: string[] = [];
  const seen = new Set<unknown>();
  const visit = (node: z.ZodType | undefined, path: string) => {
    if (!node || seen.has(node)) return;
    seen.add(node);
    const def = (node as unknown as { _zod: { def: Record<string, any> } })._zod.def;
    switch (def.type) {
      case "object":
        if (def.catchall?._zod?.def?.type !== "never") open.push(path);
        for (const [key, member] of Object.entries(def.shape as Record<string, z.ZodType>)) visit(member, `${path}.${key}`);
        return;
      case "array":
        return visit(def.element, `${path}[]`);
      case "record":
        return visit(def.valueType, `${path}.*`);
      case "union":
        return (def.options as z.ZodType[]).forEach((option) => visit(option, path));
      case "intersection":
        visit(def.left, path);
        return visit(def.right, path);
      case "tuple":
        (def.items as z.ZodType[]).forEach((item, i) => visit(item, `${path}[${i}]`));
        return visit(def.rest, `${path}[]`);
      case "pipe":
        return visit(def.in, path);
      case "lazy":
        return visit(def.getter(), path);
      default:
        // optional, nullable, default, prefault, nonoptional, readonly, catch: the wrapped schema.
        if (def.innerType) visit(def.innerType, path);
    }
  };
  visit(schema, "body");
  return open;
}

const READ_ONLY_DESCRIPTION = "Read-only: accepted so that a representation read can be sent back as it is, and ignored.";

/**
 * A body that carries an object's representation (a create, a full replace) also accepts that
 * representation's read-only members, so that a client may read an object, change it and send it
 * back: `shape` plus every other member of `representation`, each documented `readOnly` and ignored.
 * PATCH bodies and requests that are not representations take only their own members.
 */
export function withReadOnlyMembers<R extends z.ZodRawShape, S extends z.ZodRawShape>(representation: { shape: R }, shape: S) {
  const readOnly = Object.fromEntries(
    Object.keys(representation.shape)
      .filter((key) => !(key in shape))
      .map((key) => [key, ignoredMember(READ_ONLY_DESCRIPTION, { readOnly: true })]),
  ) as { [K in Exclude<keyof R, keyof S>]: ReturnType<typeof ignoredMember> };
  return { ...shape, ...readOnly };
}

/** A member the service accepts and ignores (the reason is its description in the document, with `x-ignored: true`). */
export function ignoredMember(description: string, options: { readOnly?: boolean } = {}) {
  return z.unknown().optional().openapi({ description, ...options, "x-ignored": true } as never);
}
