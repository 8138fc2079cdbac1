import { beforeAll, describe, expect, it } from "vitest";
import { directTarget } from "../../src/connectors/postgres/parameters";
import { withPostgresSession } from "../../src/connectors/postgres/session";
import { HOSTILE_COLUMN_NAME, HOSTILE_TABLE_NAME, ORDER_COUNT, READER_PASSWORD, READER_USER } from "../global-setup/fixture-data.mjs";
import { as, call, createAccount, createUser, unique, type TestUser } from "./helpers";
import { connectionBody, createConnection } from "./connection-helpers";
import { environment, postgresParameters } from "./connectors/helpers";
import { createView, viewBody } from "./materialized-view-helpers";

/**
 * A view's definitionQuery is real SQL: a source is built from a table of the test PostgreSQL
 * server (the data-entity describe, a real connection), a view is defined on it, and its
 * definitionQuery runs on that server, as the connection's read-only role, through the same
 * connector session the API uses. The rows must be the aggregates computed here from the sample
 * data (test/global-setup/sample-postgres.mjs).
 */
let creator: TestUser;
let warehouse: { id: string };

beforeAll(async () => {
  const account = await createAccount();
  creator = await createUser(account.id, { groups: ["Users", "Administrators"] });
  warehouse = await createConnection(creator, connectionBody(unique("Warehouse")));
});

/** A source made of a table of the sample server, in two calls, as a client builds one. */
async function sourceOfTable(table: string): Promise<{ id: string; fields: { name: string }[] }> {
  const described = await call("POST", "/api/sources/data-entities/describe", { as: as(creator), body: { connectionId: warehouse.id, schema: "sales", table } });
  expect(described.status, described.text).toBe(200);
  const source = await call("POST", "/api/sources", { as: as(creator), body: { name: unique("Source"), connectionId: warehouse.id, fields: described.json.content } });
  expect(source.status, source.text).toBe(201);
  return { id: source.json.id, fields: described.json.content };
}

/** Runs a query on the sample server as the read-only role connections use, in a read-only transaction. */
function runOnServer(query: string): Promise<Record<string, unknown>[]> {
  const target = directTarget(postgresParameters({ user: READER_USER, password: READER_PASSWORD }), environment());
  return withPostgresSession(target, environment(), async ({ sql }) => [...(await sql.unsafe(query))] as Record<string, unknown>[]);
}

/** sales.orders as the sample server fills it: order n of customer 1 + n % 3, amount (n % 97) + 0.99, on 2024-01-01 + (n % 365) days. */
function sampleOrders() {
  return Array.from({ length: ORDER_COUNT }, (_, i) => {
    const n = i + 1;
    return {
      customer: 1 + (n % 3),
      cents: (n % 97) * 100 + 99,
      day: new Date(Date.UTC(2024, 0, 1 + (n % 365))).toISOString().slice(0, 10),
    };
  });
}

describe("a view on a table of a PostgreSQL server", () => {
  it("its definitionQuery runs there and answers the aggregates of the sample data", async () => {
    const source = await sourceOfTable("orders");
    const view = await createView(
      creator,
      viewBody(source.id, {
        filters: [
          { path: { name: "amount" }, operation: "GT", value: 50 },
          { path: { name: "ordered_on" }, operation: "BETWEEN", value: ["2024-03-01", "2024-06-30"] },
          { path: { name: "customer_id" }, operation: "NOTIN", value: [99] },
        ],
        aggregations: [{ type: "TERMS", field: { name: "customer_id" } }],
        metrics: [
          { type: "COUNT" },
          { type: "SUM", field: { name: "amount" } },
          { type: "MAX", field: { name: "ordered_on" } },
          { type: "COUNTD", field: { name: "ordered_on" } },
          { formulaName: "average amount", formula: "SUM(amount) / COUNT(*)" },
          { formulaName: "late orders", formula: "COUNT(*) WHERE ordered_on >= '2024-06-01'" },
        ],
      }),
    );
    // The source's connection is a PostgreSQL connection: the FILTER clause is PostgreSQL's.
    expect(view.definitionQuery).toContain(`COUNT(*) FILTER (WHERE "ordered_on" >= '2024-06-01') AS "late orders"`);

    const rows = await runOnServer(view.definitionQuery);

    const kept = sampleOrders().filter((o) => o.cents > 5000 && o.day >= "2024-03-01" && o.day <= "2024-06-30");
    const expected = [1, 2, 3].map((customer) => {
      const mine = kept.filter((o) => o.customer === customer);
      const cents = mine.reduce((sum, o) => sum + o.cents, 0);
      const days = mine.map((o) => o.day);
      return {
        customer_id: customer,
        count: mine.length,
        sum_amount: (cents / 100).toFixed(2),
        max_ordered_on: days.reduce((a, b) => (a > b ? a : b)),
        countd_ordered_on: new Set(days).size,
        average: cents / 100 / mine.length,
        late: days.filter((d) => d >= "2024-06-01").length,
      };
    });
    expect(expected.every((e) => e.count > 0 && e.late > 0 && e.late < e.count)).toBe(true);
    const answered = rows
      .map((row) => ({
        customer_id: Number(row.customer_id),
        count: Number(row.count),
        sum_amount: row.sum_amount,
        max_ordered_on: row.max_ordered_on,
        countd_ordered_on: Number(row.countd_ordered_on),
        average: Number(row["average amount"]),
        late: Number(row["late orders"]),
      }))
      .sort((a, b) => a.customer_id - b.customer_id);
    expect(answered.map(({ average, ...rest }) => rest)).toEqual(expected.map(({ average, ...rest }) => rest));
    answered.forEach((row, i) => expect(row.average).toBeCloseTo(expected[i]!.average, 9));
  });

  it("hostile table and column names and a value made to break out run as plain data, and the server's tables stay", async () => {
    const source = await sourceOfTable(HOSTILE_TABLE_NAME);
    const [text, number] = source.fields.map((f) => f.name);
    const view = await createView(
      creator,
      viewBody(source.id, {
        filters: [{ path: { name: text! }, operation: "NOTIN", value: ["'; DROP TABLE sales.customers; --", `"); DROP TABLE sales.orders; --`] }],
        aggregations: [{ type: "TERMS", field: { name: text! } }],
        metrics: [{ type: "SUM", field: { name: number! } }],
      }),
    );
    expect(view.definitionQuery).toContain(`"a ""quoted"" column"`);

    const rows = await runOnServer(view.definitionQuery);
    expect(rows.map((row) => [row[text!], Number(row[`sum_${number}`])]).sort()).toEqual([
      ["and here", 2],
      ["still here", 1],
    ]);
    expect(HOSTILE_COLUMN_NAME).toBe('a "quoted" column');
    expect(await runOnServer("SELECT count(*) AS n FROM sales.customers")).toEqual([{ n: "3" }]);
  });
});
