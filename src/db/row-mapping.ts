import { Column, getTableName, is, SQL, Subquery } from "drizzle-orm";

/**
 * Drizzle's mapping of result rows (drizzle-orm/utils.js `mapResultRow`), with everything that
 * depends only on the query worked out once, for the compiled queries (db/compiled.ts) that run on
 * every request. Drizzle asks of each column of each row which kind of field it is (`is()`, three
 * times for an expression), walks its path with an iterator and builds the result through
 * `reduce`: per row, the same answers again and a few allocations per column, most of the mapping's
 * cost and of the garbage it leaves. The answers are the same: test/unit/db/row-mapping.test.ts
 * compares the two on selects, joins (a left join's absent side is null) and returned writes.
 */

type Decoder = { mapFromDriverValue(value: unknown): unknown };
type SelectedField = { path: string[]; field: unknown };
type JoinsNotNullable = Record<string, boolean> | undefined;
type Mapped = Record<string, unknown>;

interface ColumnPlan {
  parents: string[];
  name: string;
  decoder: Decoder;
  /** A joined table's column (path [object, member]): its table, for the left join's "all null" test. */
  table?: string;
}

/** A function mapping one raw row (values in select order) as Drizzle's mapResultRow maps it. */
export function rowMapper(fields: readonly SelectedField[], joinsNotNullableMap: JoinsNotNullable): (row: readonly unknown[]) => Mapped {
  const plans: ColumnPlan[] = fields.map(({ path, field }) => ({
    parents: path.slice(0, -1),
    name: path[path.length - 1]!,
    decoder: decoderOf(field),
    table: joinsNotNullableMap && is(field, Column) && path.length === 2 ? getTableName(field.table) : undefined,
  }));
  if (plans.every((plan) => plan.parents.length === 0 && plan.table === undefined)) return flatRowMapper(plans);
  return (row) => {
    const result: Mapped = {};
    let nullify: Record<string, string | false> | undefined;
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i]!;
      let node = result;
      for (const parent of plan.parents) {
        if (!(parent in node)) node[parent] = {};
        node = node[parent] as Mapped;
      }
      const raw = row[i];
      const value = (node[plan.name] = raw === null ? null : plan.decoder.mapFromDriverValue(raw));
      if (plan.table !== undefined) {
        nullify ??= {};
        const objectName = plan.parents[0]!;
        if (!(objectName in nullify)) nullify[objectName] = value === null ? plan.table : false;
        else if (typeof nullify[objectName] === "string" && nullify[objectName] !== plan.table) nullify[objectName] = false;
      }
    }
    if (nullify) {
      for (const [objectName, table] of Object.entries(nullify)) if (typeof table === "string" && !joinsNotNullableMap![table]) result[objectName] = null;
    }
    return result;
  };
}

/** The mapper of a select of one table's columns (no nested objects, no join): the loop alone. */
function flatRowMapper(plans: readonly ColumnPlan[]): (row: readonly unknown[]) => Mapped {
  const names = plans.map((plan) => plan.name);
  const decoders = plans.map((plan) => plan.decoder);
  return (row) => {
    const result: Mapped = {};
    for (let i = 0; i < names.length; i++) {
      const raw = row[i];
      result[names[i]!] = raw === null ? null : decoders[i]!.mapFromDriverValue(raw);
    }
    return result;
  };
}

// `decoder` is internal to Drizzle's SQL (its mapWith), hence the casts.
const decoderOfSql = (query: unknown) => (query as { decoder: Decoder }).decoder;

function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field;
  if (is(field, SQL)) return decoderOfSql(field);
  if (is(field, Subquery)) return decoderOfSql(field._.sql);
  return decoderOfSql((field as SQL.Aliased).sql);
}

/** What of Drizzle's D1 prepared query the mapping replaces and reads (drizzle-orm/d1/session.js). */
interface D1Prepared {
  fields?: SelectedField[];
  customResultMapper?: unknown;
  joinsNotNullableMap?: JoinsNotNullable;
  values(placeholderValues?: Record<string, unknown>): Promise<unknown[][]>;
  mapAllResult(rows: unknown, isFromBatch?: boolean): unknown;
  mapGetResult(result: unknown, isFromBatch?: boolean): unknown;
  get(placeholderValues?: Record<string, unknown>): Promise<unknown>;
}

/**
 * Makes a prepared query (a compiled template) map its rows with rowMapper: `all`, `get` and its
 * answers inside a batch. A query Drizzle maps otherwise (no fields, a relational query's own
 * mapper) is left as it is.
 */
export function mapRowsOnce(prepared: object): void {
  const query = prepared as D1Prepared;
  if (!query.fields || query.customResultMapper) return;
  const mapRow = rowMapper(query.fields, query.joinsNotNullableMap);
  // A batch answers objects, which Drizzle turns back into values in column order (d1ToRawMapping).
  const rowsOf = (result: unknown, isFromBatch?: boolean) =>
    isFromBatch ? (result as { results: Record<string, unknown>[] }).results.map((row) => Object.values(row)) : (result as unknown[][]);
  query.mapAllResult = (rows, isFromBatch) => rowsOf(rows, isFromBatch).map(mapRow);
  query.mapGetResult = (result, isFromBatch) => {
    const row = isFromBatch ? rowsOf(result, true)[0] : (result as unknown[]);
    return mapRow(row as unknown[]);
  };
  query.get = async function (this: D1Prepared, placeholderValues) {
    const [row] = await this.values(placeholderValues);
    return row ? mapRow(row) : undefined;
  };
}
