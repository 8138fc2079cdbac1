import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { openObjectsOf, withReadOnlyMembers } from "../../../src/lib/closed-bodies";
import { problemsFromZod, UNKNOWN_MEMBER_MESSAGE } from "../../../src/lib/errors";

describe("openObjectsOf", () => {
  it("names every object of a body that would strip unknown members, through wrappers, arrays and unions", () => {
    const schema = z.strictObject({
      a: z.object({ b: z.string() }).optional(),
      list: z.array(z.object({ c: z.string() })).nullable(),
      either: z.union([z.strictObject({ d: z.string() }), z.object({ e: z.string() })]),
      map: z.record(z.string(), z.object({ f: z.string() })),
    });
    expect(openObjectsOf(schema)).toEqual(["body.a", "body.list[]", "body.either", "body.map.*"]);
  });

  it("accepts strict objects and open records", () => {
    expect(openObjectsOf(z.strictObject({ meta: z.record(z.string(), z.unknown()), x: z.strictObject({}).default({}) }))).toEqual([]);
  });
});

describe("unknown members are Problems named by their path", () => {
  const schema = z.strictObject({
    name: z.string(),
    account: z.strictObject({ name: z.string() }).optional(),
    items: z.array(z.strictObject({ id: z.string() })).optional(),
    shape: z.union([z.strictObject({ kind: z.literal("a") }), z.strictObject({ kind: z.literal("b"), size: z.number() })]).optional(),
  });
  const problems = (body: unknown) => problemsFromZod(schema.safeParse(body).error!, "json");

  it("one per member, at the top level, nested and in array elements", () => {
    const found = problems({ name: "x", privilegs: [], account: { name: "y", nmae: "z" }, items: [{ id: "1" }, { id: "2", idd: 3 }] });
    expect(found.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "body.account.nmae", message: UNKNOWN_MEMBER_MESSAGE, level: "ERROR" },
      { name: "body.items[1].idd", message: UNKNOWN_MEMBER_MESSAGE, level: "ERROR" },
      { name: "body.privilegs", message: UNKNOWN_MEMBER_MESSAGE, level: "ERROR" },
    ]);
  });

  it("in a union whose shape fits but for them", () => {
    expect(problems({ name: "x", shape: { kind: "a", colour: "red" } }).map((p) => p.name)).toEqual(["body.shape.colour"]);
  });
});

describe("withReadOnlyMembers", () => {
  it("adds the representation's other members as optional, read-only and ignored", () => {
    const shape = withReadOnlyMembers({ shape: { id: z.string(), name: z.string(), createdDate: z.string() } }, { name: z.string() });
    const schema = z.strictObject(shape);
    expect(Object.keys(shape)).toEqual(["name", "id", "createdDate"]);
    expect(schema.safeParse({ name: "x", createdDate: 5, id: null }).success).toBe(true);
    expect(schema.safeParse({ name: "x", other: 1 }).success).toBe(false);
  });
});
