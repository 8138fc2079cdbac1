import { describe, expect, it } from "vitest";
import {
  ansiDialect,
  materializedViewQuery,
  postgresqlDialect,
  type FieldReference,
  type MaterializedViewDefinition,
  type SqlErrorReason,
  type ViewFilter,
} from "../../../src/domain/sql";
import { expectSqlError, flightsSource } from "./helpers";

const source = flightsSource();

/** A definition with every kind of aggregation, metric and a few filters. */
const FULL_DEFINITION: MaterializedViewDefinition = {
  type: "AGG",
  sourceId: "src-1",
  filters: [
    { path: { name: "carrier" }, operation: "IN", value: ["LH", "AF"] },
    { path: { name: "price_per_seat" }, operation: "GT", value: 10 },
    { path: { name: "departure" }, operation: "BETWEEN", value: ["2024-01-01", "2024-12-31"] },
  ],
  aggregations: [
    { type: "TERMS", field: { name: "carrier" } },
    { type: "TERMS", field: { name: "label" } },
  ],
  metrics: [
    { type: "COUNT", rollup: true },
    { type: "SUM", field: { name: "price" } },
    { type: "COUNTD", field: { name: "route" } },
    { type: "AVG", field: { name: "discounted" } },
    { type: "COUNT", formulaName: "long_flights", formula: "COUNT(*) WHERE TIME_DIFF(HOUR, departure, arrival) > 8" },
    { formulaName: "Revenue per flight" },
  ],
};

describe("a full definition, per dialect", () => {
  const ansiFriendly: MaterializedViewDefinition = {
    ...FULL_DEFINITION,
    metrics: FULL_DEFINITION.metrics?.map((metric) =>
      metric.formulaName === "long_flights" ? { ...metric, formula: "COUNT(*) WHERE arrival > TIME_ADD(HOUR, 8, departure)" } : metric,
    ),
  };

  it("ANSI", () => {
    expect(materializedViewQuery(ansiFriendly, source)).toBe(
      [
        `SELECT "carrier_code" AS "carrier", ("carrier_code" || '-' || "route") AS "label", COUNT(*) AS "count", SUM("price_eur") AS "sum_price", ` +
          `COUNT(DISTINCT "route") AS "countd_route", AVG(CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0) * 0.9) AS "avg_discounted", ` +
          `COUNT(CASE WHEN "arrives_at" > ("departs_at" + 8 * INTERVAL '1' HOUR) THEN 1 END) AS "long_flights", ` +
          `CAST(SUM("price_eur") AS DOUBLE PRECISION) / NULLIF(COUNT(*), 0) AS "Revenue per flight"`,
        `FROM "travel"."flights"`,
        `WHERE "carrier_code" IN ('LH', 'AF') AND CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0) > 10 AND "departs_at" BETWEEN '2024-01-01' AND '2024-12-31'`,
        `GROUP BY "carrier_code", ("carrier_code" || '-' || "route")`,
      ].join("\n"),
    );
  });

  it("PostgreSQL", () => {
    expect(materializedViewQuery(FULL_DEFINITION, source, postgresqlDialect)).toBe(
      [
        `SELECT "carrier_code" AS "carrier", CONCAT("carrier_code", '-', "route") AS "label", COUNT(*) AS "count", SUM("price_eur") AS "sum_price", ` +
          `COUNT(DISTINCT "route") AS "countd_route", AVG(CAST("price_eur" AS NUMERIC) / NULLIF("seat_count", 0) * 0.9) AS "avg_discounted", ` +
          `COUNT(*) FILTER (WHERE CAST(TRUNC((EXTRACT(EPOCH FROM "arrives_at") - EXTRACT(EPOCH FROM "departs_at")) / 3600) AS BIGINT) > 8) AS "long_flights", ` +
          `CAST(SUM("price_eur") AS NUMERIC) / NULLIF(COUNT(*), 0) AS "Revenue per flight"`,
        `FROM "travel"."flights"`,
        `WHERE "carrier_code" IN ('LH', 'AF') AND CAST("price_eur" AS NUMERIC) / NULLIF("seat_count", 0) > 10 AND "departs_at" BETWEEN '2024-01-01' AND '2024-12-31'`,
        `GROUP BY "carrier_code", CONCAT("carrier_code", '-', "route")`,
      ].join("\n"),
    );
  });

  it("ANSI refuses a formula it cannot say, naming the formula", () => {
    const error = expectSqlError(() => materializedViewQuery(FULL_DEFINITION, source, ansiDialect), "UNSUPPORTED_FUNCTION");
    expect(error.member).toBe("definition.metrics[4].formula");
    expect(error.message).toBe("Function TIME_DIFF is not supported in ANSI SQL");
  });
});

describe("shape of the query", () => {
  it("without filters there is no WHERE, without aggregations no GROUP BY, without a schema a bare table", () => {
    const sql = materializedViewQuery({ type: "AGG", metrics: [{ type: "COUNT" }] }, { ...source, table: { name: "flights" } });
    expect(sql).toBe(`SELECT COUNT(*) AS "count"\nFROM "flights"`);
  });

  it("aggregations alone group without metrics", () => {
    const sql = materializedViewQuery({ type: "AGG", aggregations: [{ type: "TERMS", field: { name: "route" } }] }, source);
    expect(sql).toBe(`SELECT "route" AS "route"\nFROM "travel"."flights"\nGROUP BY "route"`);
  });
});

/** The WHERE line for one filter on `route` (or the named field). */
function whereOf(filter: Omit<ViewFilter, "path">, field = "route", dialect = ansiDialect): string {
  const sql = materializedViewQuery({ type: "AGG", metrics: [{ type: "COUNT" }], filters: [{ path: { name: field }, ...filter }] }, source, dialect);
  return sql.split("\n")[2].replace(/^WHERE /, "");
}

describe("filter operations", () => {
  it.each<[Omit<ViewFilter, "path">, string]>([
    [{ operation: "EQUALS", value: "FRA-JFK" }, `"route" = 'FRA-JFK'`],
    [{ operation: "NOT_EQUALS", value: "it's" }, `"route" <> 'it''s'`],
    [{ operation: "GT", value: 5 }, `"route" > 5`],
    [{ operation: "GTE", value: -2.5 }, `"route" >= -2.5`],
    [{ operation: "LT", value: 1e21 }, `"route" < 1e+21`],
    [{ operation: "LTE", value: true }, `"route" <= TRUE`],
    [{ operation: "IN", value: ["a", 1, false] }, `"route" IN ('a', 1, FALSE)`],
    [{ operation: "NOT_IN", value: ["a"] }, `"route" NOT IN ('a')`],
    [{ operation: "BETWEEN", value: [-1, 1] }, `"route" BETWEEN -1 AND 1`],
    [{ operation: "IS_NULL" }, `"route" IS NULL`],
    [{ operation: "IS_NOT_NULL", value: null }, `"route" IS NOT NULL`],
    [{ operation: "CONTAINS", value: "50%_off!" }, `"route" LIKE '%50!%!_off!!%' ESCAPE '!'`],
  ])("%j", (filter, sql) => {
    expect(whereOf(filter)).toBe(sql);
  });

  it("a derived field is parenthesised where an operator needs it", () => {
    expect(whereOf({ operation: "CONTAINS", value: "x" }, "label")).toBe(`("carrier_code" || '-' || "route") LIKE '%x%' ESCAPE '!'`);
    expect(whereOf({ operation: "IS_NULL" }, "price_per_seat")).toBe(`CAST("price_eur" AS DOUBLE PRECISION) / NULLIF("seat_count", 0) IS NULL`);
  });

  it("PostgreSQL: a value with a backslash becomes a U& literal", () => {
    expect(whereOf({ operation: "CONTAINS", value: "a\\b" }, "route", postgresqlDialect)).toBe(String.raw`"route" LIKE U&'%a\\b%' ESCAPE '!'`);
  });

  it.each<[Omit<ViewFilter, "path">, string, SqlErrorReason]>([
    [{ operation: "LIKE", value: "x" }, "definition.filters[0].operation", "INVALID_DEFINITION"],
    [{ operation: "EQUALS" }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "EQUALS", value: null }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "EQUALS", value: { a: 1 } }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "EQUALS", value: Number.NaN }, "definition.filters[0].value", "INVALID_NUMBER"],
    [{ operation: "GT", value: Number.POSITIVE_INFINITY }, "definition.filters[0].value", "INVALID_NUMBER"],
    [{ operation: "EQUALS", value: "a\u0000b" }, "definition.filters[0].value", "UNSAFE_TEXT"],
    [{ operation: "IN", value: [] }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "IN", value: "a" }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "IN", value: ["a", null] }, "definition.filters[0].value[1]", "INVALID_DEFINITION"],
    [{ operation: "BETWEEN", value: [1] }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "BETWEEN", value: [1, Number.NaN] }, "definition.filters[0].value[1]", "INVALID_NUMBER"],
    [{ operation: "IS_NULL", value: "x" }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "CONTAINS", value: 1 }, "definition.filters[0].value", "INVALID_DEFINITION"],
    [{ operation: "CONTAINS", value: "\u0000" }, "definition.filters[0].value", "UNSAFE_TEXT"],
  ])("refuses %j at %s", (filter, member, reason) => {
    expect(expectSqlError(() => whereOf(filter), reason).member).toBe(member);
  });

  it("an unknown filter field is reported at its path", () => {
    const error = expectSqlError(() => whereOf({ operation: "EQUALS", value: 1 }, "nope"), "UNKNOWN_NAME");
    expect(error.member).toBe("definition.filters[0].path.name");
  });
});

describe("errors name the member", () => {
  const refuse = (definition: MaterializedViewDefinition, reason: SqlErrorReason, member: string) => {
    expect(expectSqlError(() => materializedViewQuery(definition, source), reason).member).toBe(member);
  };

  it("the definition itself", () => {
    refuse({ type: "RAW", metrics: [{ type: "COUNT" }] }, "INVALID_DEFINITION", "definition.type");
    refuse({ type: "AGG" }, "INVALID_DEFINITION", "definition.metrics");
  });

  it("aggregations", () => {
    refuse({ type: "AGG", aggregations: [{ type: "HISTOGRAM", field: { name: "price" } }] }, "INVALID_DEFINITION", "definition.aggregations[0].type");
    refuse(
      { type: "AGG", aggregations: [{ type: "TERMS", field: { name: "route" } }, { type: "TERMS", field: { name: "nope" } }] },
      "UNKNOWN_NAME",
      "definition.aggregations[1].field.name",
    );
  });

  it("a missing field name, as a loosely validated body could have", () => {
    const noName = {} as FieldReference;
    refuse({ type: "AGG", aggregations: [{ type: "TERMS", field: noName }] }, "INVALID_DEFINITION", "definition.aggregations[0].field.name");
    refuse({ type: "AGG", metrics: [{ type: "SUM", field: { name: "" } }] }, "INVALID_DEFINITION", "definition.metrics[0].field.name");
    refuse({ type: "AGG", metrics: [{ type: "COUNT" }], filters: [{ path: noName, operation: "IS_NULL" }] }, "INVALID_DEFINITION", "definition.filters[0].path.name");
  });

  it("metrics", () => {
    refuse({ type: "AGG", metrics: [{ type: "MEDIAN", field: { name: "price" } }] }, "INVALID_DEFINITION", "definition.metrics[0].type");
    refuse({ type: "AGG", metrics: [{}] }, "INVALID_DEFINITION", "definition.metrics[0].type");
    refuse({ type: "AGG", metrics: [{ type: "SUM" }] }, "INVALID_DEFINITION", "definition.metrics[0].field");
    refuse({ type: "AGG", metrics: [{ type: "SUM", field: { name: "nope" } }] }, "UNKNOWN_NAME", "definition.metrics[0].field.name");
    refuse({ type: "AGG", metrics: [{ formula: "SUM(price)" }] }, "INVALID_DEFINITION", "definition.metrics[0].formulaName");
    refuse({ type: "AGG", metrics: [{ formulaName: "f", formula: "SUM(price" }] }, "INVALID_EXPRESSION", "definition.metrics[0].formula");
    refuse({ type: "AGG", metrics: [{ formulaName: "f", formula: "price" }] }, "INVALID_EXPRESSION", "definition.metrics[0].formula");
    refuse({ type: "AGG", metrics: [{ formulaName: "f", formula: "SUM(nope)" }] }, "UNKNOWN_NAME", "definition.metrics[0].formula");
    refuse({ type: "AGG", metrics: [{ formulaName: "No such metric" }] }, "UNKNOWN_NAME", "definition.metrics[0].formulaName");
    refuse({ type: "AGG", metrics: [{ type: "COUNT", rollup: "yes" as unknown as boolean }] }, "INVALID_DEFINITION", "definition.metrics[0].rollup");
  });

  it("a formula's syntax error carries its line and column", () => {
    const error = expectSqlError(() => materializedViewQuery({ type: "AGG", metrics: [{ formulaName: "f", formula: "SUM(price" }] }, source), "INVALID_EXPRESSION");
    expect(error.message).toMatch(/\(line 1, column \d+\)$/);
  });

  it("two columns with one name", () => {
    refuse(
      { type: "AGG", metrics: [{ type: "SUM", field: { name: "price" } }, { type: "SUM", field: { name: "price" } }] },
      "DUPLICATE_COLUMN",
      "definition.metrics[1].field.name",
    );
    const clash = expectSqlError(
      () => materializedViewQuery({ type: "AGG", aggregations: [{ type: "TERMS", field: { name: "route" } }], metrics: [{ formulaName: "route", formula: "COUNT(*)" }] }, source),
      "DUPLICATE_COLUMN",
    );
    expect(clash.member).toBe("definition.metrics[0].formulaName");
    expect(clash.message).toBe("The column name 'route' is already used by definition.aggregations[0].field.name");
  });

  it("a table name that cannot be quoted is reported at source.table", () => {
    const error = expectSqlError(
      () => materializedViewQuery({ type: "AGG", metrics: [{ type: "COUNT" }] }, { ...source, table: { name: "a\u0000" } }),
      "UNSAFE_TEXT",
    );
    expect(error.member).toBe("source.table");
  });

  it("PostgreSQL: a column name over 63 bytes is refused where it is named", () => {
    const long = "x".repeat(63);
    expect(materializedViewQuery({ type: "AGG", metrics: [{ formulaName: long, formula: "COUNT(*)" }] }, source, postgresqlDialect)).toContain(`"${long}"`);
    const longer = expectSqlError(
      () => materializedViewQuery({ type: "AGG", metrics: [{ formulaName: `${long}abcd`, formula: "COUNT(*)" }] }, source, postgresqlDialect),
      "UNSAFE_TEXT",
    );
    expect(longer.member).toBe("definition.metrics[0].formulaName");
  });
});
