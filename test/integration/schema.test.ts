import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { applicationTables } from "./helpers";

/**
 * The migrations in drizzle/ create the database; src/db/schema/ tells Drizzle what it holds.
 * Migrations may be written by hand, so this checks, table by table, that the two agree:
 * columns (type, NOT NULL, primary key), indexes (with uniqueness) and foreign keys.
 */
const tables = (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

async function pragma<T>(statement: string): Promise<T[]> {
  return (await env.DB.prepare(statement).all<T>()).results;
}

describe("the schema definitions match the migrated database", () => {
  it("every table the migrations create is defined, and every defined table exists", async () => {
    const defined = tables.map((t) => getTableConfig(t).name).sort();
    expect(defined).toEqual(await applicationTables());
  });

  it.each(tables.map((t) => [getTableConfig(t).name, t] as const))("%s: columns, indexes and foreign keys", async (name, table) => {
    const config = getTableConfig(table);
    const columns = await pragma<ColumnInfo>(`PRAGMA table_info("${name}")`);
    const primaryKeyColumns = new Set([
      ...config.columns.filter((c) => c.primary).map((c) => c.name),
      ...config.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)),
    ]);
    expect(
      columns.map((c) => ({ name: c.name, type: c.type.toLowerCase(), notNull: c.notnull === 1 || c.pk > 0, primaryKey: c.pk > 0 })).sort(byName),
    ).toEqual(
      config.columns
        .map((c) => ({ name: c.name, type: c.getSQLType().toLowerCase(), notNull: c.notNull || primaryKeyColumns.has(c.name), primaryKey: primaryKeyColumns.has(c.name) }))
        .sort(byName),
    );

    const indexes = (await pragma<{ name: string; unique: number; origin: string }>(`PRAGMA index_list("${name}")`)).filter((i) => i.origin === "c");
    expect(indexes.map((i) => ({ name: i.name, unique: i.unique === 1 })).sort(byName)).toEqual(
      config.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique })).sort(byName),
    );

    const keys = await pragma<{ id: number; table: string; from: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list("${name}")`);
    const actual = Object.values(
      keys.reduce<Record<number, { table: string; from: string[]; to: string[]; onDelete: string }>>((all, k) => {
        (all[k.id] ??= { table: k.table, from: [], to: [], onDelete: k.on_delete.toLowerCase() }).from.push(k.from);
        all[k.id]!.to.push(k.to);
        return all;
      }, {}),
    );
    const expected = config.foreignKeys.map((fk) => {
      const reference = fk.reference();
      return {
        table: getTableConfig(reference.foreignTable).name,
        from: reference.columns.map((c) => c.name),
        to: reference.foreignColumns.map((c) => c.name),
        onDelete: (fk.onDelete ?? "no action").toLowerCase(),
      };
    });
    expect(actual.sort(byJson)).toEqual(expected.sort(byJson));
  });
});

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
