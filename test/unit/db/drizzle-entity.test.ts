import { Column, entityKind, is, Param, Placeholder, SQL, sql, Subquery, Table, View } from "drizzle-orm";
import { integer, SQLiteColumn, SQLiteTable, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";

/** drizzle-orm 0.45.4's own is(), as released: what scripts/patch-drizzle.mjs replaces. */
function releasedIs(value: unknown, type: { [entityKind]?: string; name?: string }): boolean {
  if (!value || typeof value !== "object") return false;
  if (value instanceof (type as unknown as new () => unknown)) return true;
  if (!Object.prototype.hasOwnProperty.call(type, entityKind)) throw new Error(`Class "${type.name ?? "<unknown>"}" doesn't look like a Drizzle entity.`);
  let cls = Object.getPrototypeOf(value).constructor;
  while (cls) {
    if (entityKind in cls && cls[entityKind] === type[entityKind]) return true;
    cls = Object.getPrototypeOf(cls);
  }
  return false;
}

describe("drizzle-orm's is(), as installed (scripts/patch-drizzle.mjs)", () => {
  it("is the version that remembers class chains: npm install applied the patch", () => {
    expect(is.toString()).toContain("entityKindsOfClass");
  });

  it("answers as the released is() for Drizzle's entities, plain values and look-alikes, twice", () => {
    const things = sqliteTable("things", { id: text("id").primaryKey(), count: integer("count") });
    const { id } = things;
    class LooksLikeSql {
      static readonly [entityKind] = "SQL";
    }
    const values: unknown[] = [
      sql`select 1`,
      sql.placeholder("x"),
      new Param(1),
      id,
      things,
      things.count,
      {},
      [],
      "text",
      42,
      null,
      undefined,
      new Date(),
      new LooksLikeSql(),
      Object.assign(Object.create(SQL.prototype), {}),
    ];
    const types = [SQL, Param, Placeholder, Column, SQLiteColumn, Table, SQLiteTable, View, Subquery];
    for (let round = 0; round < 2; round++) {
      for (const value of values) {
        for (const type of types) expect([value, type.name, is(value, type)]).toEqual([value, type.name, releasedIs(value, type)]);
      }
    }
  });

  it("still refuses a class that is not an entity, as released", () => {
    class NotAnEntity {}
    expect(() => is({}, NotAnEntity as never)).toThrow(/doesn't look like a Drizzle entity/);
  });
});
