/**
 * The catalogue queries. Names given by the caller are only ever bound as parameters,
 * except in the preview's SELECT, where they are quoted whole (sql-identifiers.ts) after
 * the catalogue has confirmed the table exists.
 */
import type { ColumnDescription, PreviewResult, TableDescription } from "../connector";
import { ConnectorError } from "../connector-error";
import { qualifiedName, quoteIdentifier } from "../../domain/connectors/sql-identifiers";
import type { Sql } from "./session";
import { toJsonValue } from "./values";

// pg_catalog, information_schema, and every pg_* schema (pg_toast, pg_temp_3, ...): names
// starting with pg_ are reserved for the system. Only schemas the user may use are shown.
const USER_SCHEMAS = `nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%' AND has_schema_privilege(n.oid, 'USAGE')`;

export async function listSchemas(sql: Sql): Promise<string[]> {
  const rows = await sql.unsafe<{ name: string }[]>(`SELECT nspname AS name FROM pg_catalog.pg_namespace n WHERE ${USER_SCHEMAS} ORDER BY nspname`);
  return rows.map((row) => row.name);
}

interface ColumnRow {
  table_name: string;
  kind: "TABLE" | "VIEW";
  column_name: string | null;
  native_type: string | null;
  nullable: boolean | null;
}

// Tables, partitioned tables, views, materialized views and foreign tables (not the
// partitions themselves), each with the columns the user may SELECT, in table order.
const COLUMNS_QUERY = `
SELECT c.relname AS table_name,
       CASE WHEN c.relkind IN ('v', 'm') THEN 'VIEW' ELSE 'TABLE' END AS kind,
       a.attname AS column_name,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS native_type,
       NOT a.attnotnull AS nullable
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a
  ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 AND has_column_privilege(c.oid, a.attnum, 'SELECT')
WHERE n.nspname = $1 AND ${USER_SCHEMAS}
  AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND has_any_column_privilege(c.oid, 'SELECT')
  AND ($2::text IS NULL OR c.relname = $2::text)
ORDER BY c.relname, a.attnum`;

export async function describeSchema(sql: Sql, schema: string, user: string): Promise<TableDescription[]> {
  await assertSchemaVisible(sql, schema, user);
  return groupByTable(await sql.unsafe<ColumnRow[]>(COLUMNS_QUERY, [schema, null]));
}

export async function previewTable(sql: Sql, schema: string, table: string, limit: number, user: string): Promise<PreviewResult> {
  const [described] = groupByTable(await sql.unsafe<ColumnRow[]>(COLUMNS_QUERY, [schema, table]));
  if (!described) {
    await assertSchemaVisible(sql, schema, user);
    throw new ConnectorError("NOT_FOUND", `Table "${table}" does not exist in schema "${schema}", or user "${user}" may not read it.`);
  }
  const { columns } = described;
  if (columns.length === 0) return { columns, rows: [] };
  const select = `SELECT ${columns.map((c) => quoteIdentifier(c.name)).join(", ")} FROM ${qualifiedName(schema, table)} LIMIT $1`;
  const rows = await sql.unsafe(select, [limit]).values();
  return { columns, rows: rows.map((row) => row.map(toJsonValue)) };
}

async function assertSchemaVisible(sql: Sql, schema: string, user: string): Promise<void> {
  const found = await sql.unsafe(`SELECT 1 FROM pg_catalog.pg_namespace n WHERE nspname = $1 AND ${USER_SCHEMAS}`, [schema]);
  if (found.length === 0) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" does not exist, or user "${user}" may not use it.`);
}

function groupByTable(rows: readonly ColumnRow[]): TableDescription[] {
  const tables = new Map<string, TableDescription>();
  for (const row of rows) {
    let table = tables.get(row.table_name);
    if (!table) tables.set(row.table_name, (table = { name: row.table_name, kind: row.kind, columns: [] }));
    if (row.column_name !== null) {
      const column: ColumnDescription = { name: row.column_name, nativeType: row.native_type ?? "unknown", nullable: row.nullable ?? true };
      table.columns.push(column);
    }
  }
  return [...tables.values()];
}
