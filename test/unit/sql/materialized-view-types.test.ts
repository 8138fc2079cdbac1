import { describe, expect, it } from "vitest";
import type { DataType, ExpressionContext, TypedName } from "../../../src/domain/expression";
import { materializedViewQuery, MAX_VIEW_QUERY_LENGTH, type MaterializedViewDefinition, type SqlErrorReason, type SqlSource } from "../../../src/domain/sql";
import { derived, expectSqlError, flightsSource } from "./helpers";

/**
 * With the source's data types (SqlSource.types), materializedViewQuery checks every member of a
 * definition with the expression checker before writing it; without them it writes what it can
 * (materialized-view.test.ts). And a whole query is at most MAX_VIEW_QUERY_LENGTH characters.
 */
const typed = (entries: Record<string, DataType>): ReadonlyMap<string, TypedName> => new Map(Object.entries(entries).map(([name, dataType]) => [name, { dataType }]));

const FLIGHT_TYPES: ExpressionContext = {
  fields: typed({
    carrier: "ATTRIBUTE",
    price: "NUMBER",
    seats: "INTEGER",
    departure: "TIME",
    arrival: "TIME",
    route: "TEXT",
    price_per_seat: "NUMBER",
    discounted: "NUMBER",
    label: "TEXT",
    legs: "HIERARCHY",
  }),
  metrics: typed({ Volume: "INTEGER", Revenue: "NUMBER", "Revenue per flight": "NUMBER" }),
};

const source: SqlSource = { ...flightsSource(), types: FLIGHT_TYPES };

const refuse = (definition: Omit<MaterializedViewDefinition, "type">, member: string, message: RegExp, reason: SqlErrorReason = "INVALID_EXPRESSION") => {
  const error = expectSqlError(() => materializedViewQuery({ type: "AGG", ...definition }, source), reason);
  expect(error.member).toBe(member);
  expect(error.message).toMatch(message);
};

describe("members checked by the expression checker", () => {
  it("a valid definition gives the same SQL with or without types", () => {
    const definition: MaterializedViewDefinition = {
      type: "AGG",
      filters: [
        { path: { name: "carrier" }, operation: "IN", value: ["LH", "AF"] },
        { path: { name: "departure" }, operation: "GTE", value: "2024-01-01" },
        { path: { name: "route" }, operation: "CONTAINS", value: "FRA" },
      ],
      aggregations: [{ type: "TERMS", field: { name: "label" } }],
      metrics: [{ type: "AVG", field: { name: "price_per_seat" } }, { type: "MIN", field: { name: "route" } }, { formulaName: "Revenue per flight" }, { formulaName: "f", formula: "Revenue / Volume" }],
    };
    expect(materializedViewQuery(definition, source)).toBe(materializedViewQuery(definition, flightsSource()));
  });

  it("TERMS fields: a metric or a hierarchy is no field", () => {
    refuse({ aggregations: [{ type: "TERMS", field: { name: "Revenue" } }] }, "definition.aggregations[0].field.name", /Custom metric 'Revenue' cannot be used in a row-level expression/);
    refuse({ aggregations: [{ type: "TERMS", field: { name: "legs" } }] }, "definition.aggregations[0].field.name", /hierarchy/);
    refuse({ aggregations: [{ type: "TERMS", field: { name: "nope" } }] }, "definition.aggregations[0].field.name", /Field 'nope' not found/);
  });

  it("simple metrics: the field first, then whether the aggregate takes its type", () => {
    refuse({ metrics: [{ type: "SUM", field: { name: "route" } }] }, "definition.metrics[0].type", /SUM must be INTEGER or NUMBER, got TEXT/);
    refuse({ metrics: [{ type: "AVG", field: { name: "departure" } }] }, "definition.metrics[0].type", /got TIME/);
    refuse({ metrics: [{ type: "COUNT", field: { name: "Volume" } }] }, "definition.metrics[0].field.name", /Custom metric 'Volume'/);
    expect(materializedViewQuery({ type: "AGG", metrics: [{ type: "MAX", field: { name: "departure" } }, { type: "COUNTD", field: { name: "route" } }] }, source)).toContain(`MAX("departs_at")`);
  });

  it("formulas: checked as custom metrics are, with the line and column of the problem", () => {
    refuse({ metrics: [{ formulaName: "f", formula: "SUM(route)" }] }, "definition.metrics[0].formula", /^Argument .* of SUM must be INTEGER or NUMBER, got TEXT \(line 1, column 5\)$/);
    refuse({ metrics: [{ formulaName: "f", formula: "price" }] }, "definition.metrics[0].formula", /must be aggregated .*\(line 1, column 1\)$/);
    refuse({ metrics: [{ formulaName: "f", formula: "SUM(price) > 1" }] }, "definition.metrics[0].formula", /condition/);
    refuse({ metrics: [{ formulaName: "f", formula: "Revenue + LOWER(route)" }] }, "definition.metrics[0].formula", /LOWER/);
    refuse({ metrics: [{ formulaName: "price" }] }, "definition.metrics[0].formulaName", /Field 'price' must be aggregated/);
  });

  it("filters: the field at the path, the value against the field's type", () => {
    refuse({ metrics: [{ type: "COUNT" }], filters: [{ path: { name: "Revenue" }, operation: "EQUALS", value: 1 }] }, "definition.filters[0].path.name", /Custom metric 'Revenue'/);
    refuse({ metrics: [{ type: "COUNT" }], filters: [{ path: { name: "price" }, operation: "GT", value: "cheap" }] }, "definition.filters[0].value", /Cannot compare NUMBER with TEXT/);
    refuse({ metrics: [{ type: "COUNT" }], filters: [{ path: { name: "route" }, operation: "IN", value: ["a", 1] }] }, "definition.filters[0].value", /Cannot compare TEXT with INTEGER/);
    refuse({ metrics: [{ type: "COUNT" }], filters: [{ path: { name: "departure" }, operation: "BETWEEN", value: ["2024-01-01", "soon"] }] }, "definition.filters[0].value", /'soon' is not a valid time/);
    refuse({ metrics: [{ type: "COUNT" }], filters: [{ path: { name: "seats" }, operation: "CONTAINS", value: "1" }] }, "definition.filters[0].path.name", /CONTAINS needs a text field; 'seats' is INTEGER/);
  });
});

describe("the whole query's length", () => {
  it(`is at most ${MAX_VIEW_QUERY_LENGTH} characters: past it, TOO_LARGE at the member that passed it`, () => {
    // Each derived field doubles the one before; d10 writes "price_eur" 2,048 times (about 24,000 characters).
    const fields = new Map(flightsSource().fields);
    fields.set("d0", derived("price + price"));
    for (let i = 1; i <= 11; i++) fields.set(`d${i}`, derived(`d${i - 1} + d${i - 1}`));
    const big: SqlSource = { ...flightsSource(), fields };
    const one = materializedViewQuery({ type: "AGG", metrics: [{ type: "SUM", field: { name: "d10" } }] }, big);
    expect(one.length).toBeLessThan(MAX_VIEW_QUERY_LENGTH / 2);
    const metrics = Array.from({ length: Math.ceil(MAX_VIEW_QUERY_LENGTH / one.length) + 1 }, (_, i) => ({ formulaName: `m${i}`, formula: "SUM(d10)" }));
    const error = expectSqlError(() => materializedViewQuery({ type: "AGG", metrics }, big), "TOO_LARGE");
    expect(error.member).toMatch(/^definition\.metrics\[\d+\]\.formulaName$/);
    // A TERMS field counts twice, in the select list and in GROUP BY: d11 fits once, not twice.
    const terms = (name: string) => materializedViewQuery({ type: "AGG", aggregations: [{ type: "TERMS", field: { name } }] }, big);
    expect(materializedViewQuery({ type: "AGG", metrics: [{ type: "SUM", field: { name: "d11" } }] }, big).length).toBeLessThan(MAX_VIEW_QUERY_LENGTH);
    expect(terms("d10").length).toBeLessThan(MAX_VIEW_QUERY_LENGTH);
    expect(expectSqlError(() => terms("d11"), "TOO_LARGE").member).toBe("definition.aggregations[0].field.name");
  });
});
