import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import * as drizzleUtils from "drizzle-orm/utils";
import { describe, expect, it } from "vitest";
import { rowMapper } from "../../../src/db/row-mapping";
import { accounts, connections, connectionTypes, folders, users } from "../../../src/db/schema";

// Drizzle's own mapping, which its types do not export.
const { mapResultRow } = drizzleUtils as unknown as { mapResultRow(fields: unknown, row: unknown[], joinsNotNullableMap?: Record<string, boolean>): unknown };

// Queries are only built here, never run: the proxy's callback is never called.
const db = drizzle(async () => ({ rows: [] }));

type Prepared = { fields: { path: string[]; field: unknown }[]; joinsNotNullableMap?: Record<string, boolean> };
const preparedOf = (query: { prepare(): unknown }) => query.prepare() as unknown as Prepared;

const QUERIES: Record<string, Prepared> = {
  "a table's every column (JSON, booleans, timestamps, nullable text)": preparedOf(db.select().from(connections)),
  "picked columns and an expression": preparedOf(db.select({ id: users.id, name: users.name, count: sql<number>`count(*)`.mapWith(Number) }).from(users)),
  "an inner join as nested objects": preparedOf(
    db.select({ connection: connections, type: connectionTypes }).from(connections).innerJoin(connectionTypes, eq(connectionTypes.id, connections.connectionTypeId)),
  ),
  "left joins: an absent side is null": preparedOf(
    db
      .select({ connection: connections, folder: folders, account: { id: accounts.id, name: accounts.name } })
      .from(connections)
      .leftJoin(folders, eq(folders.id, connections.folderId))
      .leftJoin(accounts, eq(accounts.id, connections.accountId)),
  ),
  "a write's returned row": preparedOf(db.update(folders).set({ name: "x" }).where(eq(folders.id, "f")).returning()),
};

/** A raw value of the kind SQLite answers for a column: null sometimes, else text, a number or JSON text. */
function rawValue(random: () => number, kind: number): unknown {
  if (random() < 0.3) return null;
  switch (kind % 4) {
    case 0:
      return `text-${Math.floor(random() * 1000)}`;
    case 1:
      return Math.floor(random() * 2);
    case 2:
      return Math.floor(random() * 2_000_000_000_000);
    default:
      return JSON.stringify([{ key: "k", value: String(random()) }]);
  }
}

function seeded(seed: number) {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe("rowMapper: Drizzle's row mapping, worked out once per query", () => {
  for (const [name, query] of Object.entries(QUERIES)) {
    it(`maps rows as Drizzle's mapResultRow does: ${name}`, () => {
      const random = seeded(name.length);
      const mapRow = rowMapper(query.fields, query.joinsNotNullableMap);
      for (let n = 0; n < 300; n++) {
        // Every fourth row: all of a joined side null, as a left join answers a missing row.
        const row = query.fields.map((_, i) => (n % 4 === 0 && i >= query.fields.length / 2 ? null : rawValue(random, i + n)));
        let expected: unknown;
        let thrown: unknown;
        try {
          expected = mapResultRow(query.fields, row, query.joinsNotNullableMap);
        } catch (err) {
          thrown = err;
        }
        // A value a decoder refuses (JSON.parse of plain text) fails alike.
        if (thrown) expect(() => mapRow(row)).toThrow((thrown as Error).message);
        else expect(mapRow(row)).toEqual(expected);
      }
    });
  }

  it("answers null for a left join's side whose columns are all null, and keeps an inner join's", () => {
    const query = QUERIES["left joins: an absent side is null"]!;
    const row = query.fields.map(({ path }) => (path[0] === "connection" ? (path[1] === "parameters" ? "[]" : "x") : null));
    const mapped = rowMapper(query.fields, query.joinsNotNullableMap)(row);
    expect(mapped.folder).toBeNull();
    expect(mapped.account).toBeNull();
    expect(mapped.connection).not.toBeNull();
  });
});
