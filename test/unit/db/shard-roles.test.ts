import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { ACCOUNT_OWNED_TABLES } from "../../../src/db/account-owned";
import * as schema from "../../../src/db/schema";
import { DIRECTORY_TABLES, EVERY_DATABASE_TABLES, GUARD_TABLES, SHARD_TABLES, SPLIT_TABLES } from "../../../src/db/shards/roles";

const nameOf = (t: SQLiteTable) => getTableConfig(t).name;
const names = (tables: readonly SQLiteTable[]) => tables.map(nameOf);
const allTables = (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
const roles = { directory: DIRECTORY_TABLES, shard: SHARD_TABLES, split: SPLIT_TABLES, guard: GUARD_TABLES, everyDatabase: EVERY_DATABASE_TABLES };

describe("where each table lives once accounts are sharded", () => {
  it("places every table of the schema in exactly one role", () => {
    // A table in two roles shows up twice, a table in none is missing.
    const placed = Object.values(roles).flatMap((tables) => names(tables));
    expect(placed.sort()).toEqual(names(allTables).sort());
  });

  it("keeps every account-owned table on the shard but those the directory needs and the split webhooks", () => {
    const owned = names(ACCOUNT_OWNED_TABLES);
    expect(owned.filter((n) => !names(SHARD_TABLES).includes(n)).sort()).toEqual(["account_moves", "connection_type_accounts", "user_names", "webhooks"]);
    expect(names(SHARD_TABLES).every((n) => owned.includes(n))).toBe(true);
  });

  it("puts in the directory or splits only tables whose rows are not all an account's", () => {
    // A table with an account_id column outside the shard role must be one the roles explain.
    const withAccount = allTables.filter((t) => getTableConfig(t).columns.some((c) => c.name === "account_id")).map(nameOf);
    const offShard = withAccount.filter((n) => !names(SHARD_TABLES).includes(n)).sort();
    expect(offShard).toEqual(["account_moves", "audit_events", "connection_type_accounts", "user_names", "webhooks"]);
  });
});
