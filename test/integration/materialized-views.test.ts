import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, rowsOfAccount, SUPERVISOR, type TestUser } from "./helpers";
import { connectionBody, createConnection, roundTrips } from "./connection-helpers";
import {
  columnOf,
  createOrdersSource,
  createView,
  expectDeprecated,
  postView,
  SUNSET,
  viewBody,
  viewName,
  viewPath,
  VIEWS,
} from "./materialized-view-helpers";
import { createSource, derivedField, hierarchyField, sourcePath, type SourceJson } from "./source-helpers";

/**
 * Materialized views (deprecated since 23.1): E19 and its siblings, the definition checked against
 * its source, the SQL it stands for, who may do what, and the deprecated marks on every answer.
 * The PostgreSQL round trip of a definitionQuery is in materialized-views-postgres.test.ts; the
 * races with source and connection deletes in materialized-views-races.test.ts.
 */
let account: { id: string };
let admin: TestUser;
let reader: TestUser;
let stranger: TestUser;
let otherAdmin: TestUser;
let orders: SourceJson;

/** The ANSI query of viewBody's default definition over `orders`. */
const REVENUE_PER_CUSTOMER = [`SELECT "customer_id" AS "customer_id", SUM("amount") AS "sum_amount"`, `FROM "sales"."orders"`, `GROUP BY "customer_id"`].join("\n");

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  reader = await createUser(account.id);
  stranger = await createUser(account.id);
  otherAdmin = await createUser((await createAccount()).id, { groups: ["Users", "Administrators"] });
  orders = await createOrdersSource(admin, {
    fields: [derivedField("big", "CASE WHEN amount > 50 THEN 'big' ELSE 'small' END"), hierarchyField("by_status", "status", "big")],
  });
  const granted = await call("PUT", `${sourcePath(orders.id)}/permissions`, {
    as: as(admin),
    body: { content: [{ principalType: "USER", principalId: reader.id, permission: "READ" }] },
  });
  expect(granted.status, granted.text).toBe(200);
  const metric = await call("PUT", `${sourcePath(orders.id)}/custom-metrics/average`, { as: as(admin), body: { expression: "SUM(amount) / Volume" } });
  expect(metric.status, metric.text).toBe(201);
});

describe("E19 POST /api/materialized-views", () => {
  it("answers 200 with id, referencedSourceIds and definitionQuery, Location and ETag, both deprecated marks; two round trips", async () => {
    const body = viewBody(orders.id, {}, { description: "Revenue per customer" });
    const res = await postView(admin, body);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      id: expect.any(String),
      name: body.name,
      description: "Revenue per customer",
      enabled: true,
      definition: { ...body.definition, filters: [] },
      storageSettings: null,
      referencedSourceIds: [orders.id],
      definitionQuery: REVENUE_PER_CUSTOMER,
      createdByUserID: admin.id,
    });
    expect(res.headers.get("Location")).toBe(viewPath(res.json.id));
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]+"$/);
    expectDeprecated(res);
    expect(roundTrips(res)).toBe(2);

    const read = await call("GET", viewPath(res.json.id), { as: as(admin) });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(res.json);
    expect(read.headers.get("ETag")).toBe(res.headers.get("ETag"));
    expect(roundTrips(read)).toBe(1);
  });

  it("writes every kind of member as SQL: TERMS over a derived field, each filter operation, COUNT, COUNTD, a formula, a custom metric", async () => {
    const body = viewBody(orders.id, {
      filters: [
        { path: { name: "status" }, operation: "IN", value: ["paid", "it's"] },
        { path: { name: "amount" }, operation: "GE", value: 10 },
        { path: { name: "ordered_on" }, operation: "BETWEEN", value: ["2024-01-01", "2024-06-30"] },
        { path: { name: "status" }, operation: "CONTAINS_CS", value: "50%" },
        { path: { name: "customer_id" }, operation: "ISNOTNULL" },
      ],
      aggregations: [
        { type: "TERMS", field: { name: "customer_id" } },
        { type: "TERMS", field: { name: "big" } },
      ],
      metrics: [
        { type: "COUNT", rollup: true },
        { type: "COUNTD", field: { name: "status" } },
        { formulaName: "revenue per order", formula: "SUM(amount) / COUNT(*)" },
        { formulaName: "average" },
      ],
    });
    const view = await createView(admin, body);
    const big = `CASE WHEN "amount" > 50 THEN 'big' ELSE 'small' END`;
    expect(view.definitionQuery).toBe(
      [
        `SELECT "customer_id" AS "customer_id", ${big} AS "big", COUNT(*) AS "count", COUNT(DISTINCT "status") AS "countd_status", ` +
          `CAST(SUM("amount") AS DOUBLE PRECISION) / NULLIF(COUNT(*), 0) AS "revenue per order", CAST(SUM("amount") AS DOUBLE PRECISION) / NULLIF(COUNT(*), 0) AS "average"`,
        `FROM "sales"."orders"`,
        `WHERE "status" IN ('paid', 'it''s') AND "amount" >= 10 AND "ordered_on" BETWEEN '2024-01-01' AND '2024-06-30' AND "status" LIKE '%50!%%' ESCAPE '!' AND "customer_id" IS NOT NULL`,
        `GROUP BY "customer_id", ${big}`,
      ].join("\n"),
    );
    // The definition is kept as sent (the reference product's spellings of the operations included).
    expect(view.definition).toEqual(body.definition);
  });

  it("PostgreSQL is the dialect of a source whose connection is a PostgreSQL connection", async () => {
    const connection = await createConnection(admin, connectionBody(viewName("Warehouse")));
    const source = await createOrdersSource(admin, { connectionId: connection.id });
    const view = await createView(admin, viewBody(source.id, { metrics: [{ formulaName: "average", formula: "SUM(amount) / COUNT(*)" }] }));
    expect(view.definitionQuery).toBe(
      [`SELECT "customer_id" AS "customer_id", CAST(SUM("amount") AS NUMERIC) / NULLIF(COUNT(*), 0) AS "average"`, `FROM "sales"."orders"`, `GROUP BY "customer_id"`].join("\n"),
    );
  });

  it("storageSettings name a connection of the account and are kept; without them the data is stored internally (null)", async () => {
    const connection = await createConnection(admin, connectionBody(viewName("Target")));
    const storageSettings = {
      targetStorage: { connectionId: connection.id, schemas: ["public"], collection: "revenue", collectionParams: { partitions: "4" } },
      fieldMappings: [{ targetFieldName: "revenue", sourceMetric: { type: "SUM", field: { name: "amount" } } }],
    };
    const view = await createView(admin, viewBody(orders.id, {}, { storageSettings }));
    expect(view.storageSettings).toEqual(storageSettings);
    expect((await createView(admin, viewBody(orders.id, {}, { storageSettings: null }))).storageSettings).toBeNull();
  });

  it("names are unique in the account: 409 DUPLICATED, also for simultaneous creates (exactly one wins)", async () => {
    const body = viewBody(orders.id);
    await createView(admin, body);
    const before = await dbSnapshot();
    expectError(await postView(admin, body), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    const name = viewName("Raced");
    const results = await Promise.all(Array.from({ length: 6 }, () => postView(admin, { ...body, name })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it("ignores what a client may not set: the id of a create, referencedSourceIds, definitionQuery, audit members", async () => {
    const view = await createView(admin, {
      ...viewBody(orders.id),
      id: "chosen-by-client",
      referencedSourceIds: ["x"],
      definitionQuery: "DROP TABLE orders",
      createdByUserID: "someone",
    });
    expect(view.id).not.toBe("chosen-by-client");
    expect(view.referencedSourceIds).toEqual([orders.id]);
    expect(view.definitionQuery).toBe(REVENUE_PER_CUSTOMER);
    expect(view.createdByUserID).toBe(admin.id);
  });
});

describe("reads", () => {
  let mine: any;
  let other: SourceJson;

  beforeAll(async () => {
    other = await createOrdersSource(admin);
    mine = await createView(admin, viewBody(other.id, {}, { name: viewName("Aardvark") }));
  });

  it("the list is {content} by name, of the views on sources the caller may READ, in one round trip; sourceId narrows it", async () => {
    const all = await call("GET", VIEWS, { as: as(admin) });
    expect(all.status).toBe(200);
    expect(Object.keys(all.json)).toEqual(["content"]);
    const names = all.json.content.map((v: { name: string }) => v.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain(mine.name);
    expect(roundTrips(all)).toBe(1);
    expectDeprecated(all);

    const ofOther = await call("GET", `${VIEWS}?sourceId=${other.id}`, { as: as(admin) });
    expect(ofOther.json.content).toEqual([mine]);
    expect((await call("GET", `${VIEWS}?sourceId=nothing-here`, { as: as(admin) })).json.content).toEqual([]);

    // The reader may READ orders only: it sees the views on orders, not the one on `other`.
    const readers = (await call("GET", VIEWS, { as: as(reader) })).json.content;
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.every((v: { referencedSourceIds: string[] }) => v.referencedSourceIds[0] === orders.id)).toBe(true);
    expect((await call("GET", VIEWS, { as: as(stranger) })).json.content).toEqual([]);
    expect((await call("GET", VIEWS, { as: as(otherAdmin) })).json.content).toEqual([]);
  });

  it("one view: READ on its source (403 without); another account's view is 404 exactly like an unknown id", async () => {
    const onOrders = await createView(admin, viewBody(orders.id));
    expect((await call("GET", viewPath(onOrders.id), { as: as(reader) })).json).toEqual(onOrders);
    expectError(await call("GET", viewPath(mine.id), { as: as(reader) }), 403, "FORBIDDEN");
    const theirs = expectError(await call("GET", viewPath(mine.id), { as: as(otherAdmin) }), 404, "NOT_FOUND");
    const unknown = expectError(await call("GET", viewPath(crypto.randomUUID()), { as: as(otherAdmin) }), 404, "NOT_FOUND");
    expect(theirs.message).toBe(unknown.message);
    expect(JSON.stringify(theirs)).not.toContain(mine.name);
  });

  it("the supervisor belongs to no account: 403 on every route", async () => {
    expectError(await call("GET", VIEWS, { as: SUPERVISOR }), 403, "FORBIDDEN");
    expectError(await call("GET", viewPath(mine.id), { as: SUPERVISOR }), 403, "FORBIDDEN");
    expectError(await call("POST", VIEWS, { as: SUPERVISOR, body: viewBody(orders.id) }), 403, "FORBIDDEN");
  });
});

describe("PUT, PATCH and DELETE", () => {
  it("PUT replaces the view and writes its SQL anew (two round trips); an id in the body must be the path's", async () => {
    const created = await postView(admin, viewBody(orders.id, {}, { description: "before" }));
    const view = created.json;
    const body = viewBody(orders.id, { metrics: [{ type: "MAX", field: { name: "ordered_on" } }] }, { name: view.name, enabled: false });
    const res = await call("PUT", viewPath(view.id), { as: as(admin), body: { ...body, id: view.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: view.id, name: view.name, description: null, enabled: false, storageSettings: null });
    expect(res.json.definitionQuery).toBe([`SELECT "customer_id" AS "customer_id", MAX("ordered_on") AS "max_ordered_on"`, `FROM "sales"."orders"`, `GROUP BY "customer_id"`].join("\n"));
    expect(res.headers.get("ETag")).not.toBe(created.headers.get("ETag"));
    expect(roundTrips(res)).toBe(2);
    expectDeprecated(res);
    expect((await call("GET", viewPath(view.id), { as: as(admin) })).json).toEqual(res.json);

    const before = await dbSnapshot();
    expectError(await call("PUT", viewPath(view.id), { as: as(admin), body: { ...body, id: "another" } }), 400, "ID_MISMATCH", ["body.id"]);
    expectError(await call("PUT", viewPath(crypto.randomUUID()), { as: as(admin), body }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("PUT may move the view to another source, with WRITE on both", async () => {
    const view = await createView(admin, viewBody(orders.id));
    const elsewhere = await createOrdersSource(admin);
    const moved = await call("PUT", viewPath(view.id), { as: as(admin), body: viewBody(elsewhere.id, {}, { name: view.name }) });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.referencedSourceIds).toEqual([elsewhere.id]);
    // The reader may READ orders but write nothing: 403, before the body's source is even looked at.
    expectError(await call("PUT", viewPath(view.id), { as: as(reader), body: viewBody(orders.id) }), 403, "FORBIDDEN");
  });

  it("PATCH changes name, description and enabled only; DELETE answers 204, then the view is gone", async () => {
    const view = await createView(admin, viewBody(orders.id, {}, { description: "old" }));
    const patched = await call("PATCH", viewPath(view.id), { as: as(admin), body: { description: "new", enabled: false } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toEqual({ ...view, description: "new", enabled: false, lastModifiedDate: expect.any(String) });
    expect(roundTrips(patched)).toBe(2);
    expectDeprecated(patched);
    const renamed = await call("PATCH", viewPath(view.id), { as: as(admin), body: { name: `${view.name} renamed` } });
    expect(renamed.json.name).toBe(`${view.name} renamed`);
    expect(renamed.json.description).toBe("new");
    const taken = await createView(admin, viewBody(orders.id));
    expectError(await call("PATCH", viewPath(view.id), { as: as(admin), body: { name: taken.name } }), 409, "DUPLICATED", ["body.name"]);

    const removed = await call("DELETE", viewPath(view.id), { as: as(admin) });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect(roundTrips(removed)).toBe(2);
    expectDeprecated(removed);
    expectError(await call("GET", viewPath(view.id), { as: as(admin) }), 404, "NOT_FOUND");
    expectError(await call("DELETE", viewPath(view.id), { as: as(admin) }), 404, "NOT_FOUND");
  });

  it("If-Match: a stale ETag is 412 on PUT, PATCH and DELETE, and nothing changes; of two writers with the current one, one wins", async () => {
    const view = await createView(admin, viewBody(orders.id));
    const stale = { "If-Match": `"${"0".repeat(16)}"` };
    const before = await dbSnapshot();
    expectError(await call("PUT", viewPath(view.id), { as: as(admin), headers: stale, body: viewBody(orders.id) }), 412, "PRECONDITION_FAILED");
    expectError(await call("PATCH", viewPath(view.id), { as: as(admin), headers: stale, body: { enabled: false } }), 412, "PRECONDITION_FAILED");
    expectError(await call("DELETE", viewPath(view.id), { as: as(admin), headers: stale }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    const current = (await call("GET", viewPath(view.id), { as: as(admin) })).headers.get("ETag")!;
    const both = await Promise.all([0, 1].map((i) => call("PATCH", viewPath(view.id), { as: as(admin), headers: { "If-Match": current }, body: { description: `writer ${i}` } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
  });

  it("writes need WRITE on the view's source: a reader gets 403, another account 404, and nothing changes", async () => {
    const view = await createView(admin, viewBody(orders.id));
    const before = await dbSnapshot();
    expectError(await call("PATCH", viewPath(view.id), { as: as(reader), body: { enabled: false } }), 403, "FORBIDDEN");
    expectError(await call("DELETE", viewPath(view.id), { as: as(reader) }), 403, "FORBIDDEN");
    expectError(await call("POST", VIEWS, { as: as(reader), body: viewBody(orders.id) }), 403, "FORBIDDEN");
    expectError(await call("POST", VIEWS, { as: as(stranger), body: viewBody(orders.id) }), 403, "FORBIDDEN");
    expectError(await call("PATCH", viewPath(view.id), { as: as(otherAdmin), body: { enabled: false } }), 404, "NOT_FOUND");
    expectError(await call("DELETE", viewPath(view.id), { as: as(otherAdmin) }), 404, "NOT_FOUND");
    expectError(await call("PUT", viewPath(view.id), { as: as(otherAdmin), body: viewBody(orders.id) }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("a definition is checked against its source", () => {
  const refused: [string, Record<string, unknown>, string, RegExp?][] = [
    ["an unknown TERMS field", { aggregations: [{ type: "TERMS", field: { name: "nope" } }] }, "body.definition.aggregations[0].field.name", /Field 'nope' not found/],
    ["a custom metric as TERMS field", { aggregations: [{ type: "TERMS", field: { name: "average" } }] }, "body.definition.aggregations[0].field.name", /Custom metric 'average'/],
    ["a hierarchy as TERMS field", { aggregations: [{ type: "TERMS", field: { name: "by_status" } }] }, "body.definition.aggregations[0].field.name", /hierarchy/],
    ["another aggregation type", { aggregations: [{ type: "HISTOGRAM", field: { name: "amount" } }] }, "body.definition.aggregations[0].type"],
    ["an unknown filter field", { filters: [{ path: { name: "nope" }, operation: "EQUALS", value: 1 }] }, "body.definition.filters[0].path.name", /not found/],
    ["an unknown filter operation", { filters: [{ path: { name: "amount" }, operation: "LIKE", value: "x" }] }, "body.definition.filters[0].operation"],
    ["an operation with no SQL here", { filters: [{ path: { name: "status" }, operation: "TEXT_SEARCH", value: "x" }] }, "body.definition.filters[0].operation"],
    ["IN with one value instead of a list", { filters: [{ path: { name: "status" }, operation: "IN", value: "paid" }] }, "body.definition.filters[0].value", /IN takes a non-empty array/],
    ["BETWEEN with one bound", { filters: [{ path: { name: "amount" }, operation: "BETWEEN", value: [1] }] }, "body.definition.filters[0].value"],
    ["ISNULL with a value", { filters: [{ path: { name: "amount" }, operation: "ISNULL", value: 1 }] }, "body.definition.filters[0].value"],
    ["an object as value", { filters: [{ path: { name: "amount" }, operation: "EQUALS", value: { a: 1 } }] }, "body.definition.filters[0].value"],
    ["text compared with a number field", { filters: [{ path: { name: "amount" }, operation: "GT", value: "ten" }] }, "body.definition.filters[0].value", /Cannot compare NUMBER with TEXT/],
    ["a time that is not one", { filters: [{ path: { name: "ordered_on" }, operation: "EQUALS", value: "yesterday" }] }, "body.definition.filters[0].value", /not a valid time/],
    ["CONTAINS_CS on a number field", { filters: [{ path: { name: "amount" }, operation: "CONTAINS_CS", value: "1" }] }, "body.definition.filters[0].path.name", /text field/],
    ["an unknown metric field", { metrics: [{ type: "SUM", field: { name: "nope" } }] }, "body.definition.metrics[0].field.name", /not found/],
    ["a metric type that is no aggregate of the language", { metrics: [{ type: "MEDIAN", field: { name: "amount" } }] }, "body.definition.metrics[0].type"],
    ["the reference's FIELD metric type", { metrics: [{ type: "FIELD", field: { name: "amount" } }] }, "body.definition.metrics[0].type"],
    ["SUM over text", { metrics: [{ type: "SUM", field: { name: "status" } }] }, "body.definition.metrics[0].type", /SUM must be INTEGER or NUMBER, got TEXT/],
    ["SUM without a field", { metrics: [{ type: "SUM" }] }, "body.definition.metrics[0].field"],
    ["a metric with neither type nor formula", { metrics: [{ rollup: true }] }, "body.definition.metrics[0].type"],
    ["a formula that does not parse", { metrics: [{ formulaName: "f", formula: "SUM(amount" }] }, "body.definition.metrics[0].formula", /\(line 1, column \d+\)$/],
    ["a formula with an unknown function", { metrics: [{ formulaName: "f", formula: "FOO(amount)" }] }, "body.definition.metrics[0].formula", /Function 'FOO' not supported/],
    ["a formula naming an unknown field", { metrics: [{ formulaName: "f", formula: "SUM(nope) / 2" }] }, "body.definition.metrics[0].formula", /Field 'nope' not found \(line 1, column 5\)/],
    ["a formula with a bare field", { metrics: [{ formulaName: "f", formula: "amount" }] }, "body.definition.metrics[0].formula", /must be aggregated/],
    ["a formula that is a condition", { metrics: [{ formulaName: "f", formula: "SUM(amount) > 1" }] }, "body.definition.metrics[0].formula", /condition/],
    ["a formula without formulaName", { metrics: [{ formula: "SUM(amount)" }] }, "body.definition.metrics[0].formulaName"],
    ["a formula ANSI SQL cannot say", { metrics: [{ formulaName: "f", formula: "MAX(TIME_DIFF(DAY, ordered_on, ordered_on))" }] }, "body.definition.metrics[0].formula", /not supported in ANSI SQL/],
    ["formulaName naming no custom metric", { metrics: [{ formulaName: "No such metric" }] }, "body.definition.metrics[0].formulaName", /not found/],
    ["two columns of one name", { metrics: [{ type: "SUM", field: { name: "amount" } }, { type: "SUM", field: { name: "amount" } }] }, "body.definition.metrics[1].field.name", /already used/],
    ["nothing to select", { aggregations: [], metrics: [] }, "body.definition.metrics"],
    ["the RAW variant", { type: "RAW" }, "body.definition.type"],
  ];

  it.each(refused)("%s: 400 naming the member, nothing stored", async (_label, definition, member, message) => {
    const before = await dbSnapshot();
    const res = await postView(admin, viewBody(orders.id, definition));
    const body = expectError(res, 400, "VALIDATION_FAILED", [member]);
    if (message) expect(body.problems[0].message).toMatch(message);
    expectDeprecated(res);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("PUT checks the same way", async () => {
    const view = await createView(admin, viewBody(orders.id));
    const before = await dbSnapshot();
    const res = await call("PUT", viewPath(view.id), { as: as(admin), body: viewBody(orders.id, { metrics: [{ type: "SUM", field: { name: "status" } }] }) });
    expectError(res, 400, "VALIDATION_FAILED", ["body.definition.metrics[0].type"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("the source's native fields must name one table: none, or two, is a 400 naming the source; a field without one is a column of that table", async () => {
    const withBareField = await createOrdersSource(admin, { fields: [{ name: "bare", origin: { type: "NATIVE", nativeOrigin: { originalName: "bare", originalType: "INT" } } }] });
    expect((await createView(admin, viewBody(withBareField.id, { metrics: [{ type: "SUM", field: { name: "bare" } }] }))).definitionQuery).toContain(`SUM("bare")`);

    const none = await createSource(admin, { fields: [{ name: "amount", origin: { type: "NATIVE", nativeOrigin: { originalName: "amount", originalType: "INT" } } }] });
    const two = await createSource(admin, { fields: [columnOf("sales.orders")("amount", "INT"), columnOf("sales.customers")("customer_id", "INT")] });
    const before = await dbSnapshot();
    const noneBody = expectError(await postView(admin, viewBody(none.id, { aggregations: [] })), 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
    expect(noneBody.message).toMatch(/name no table/);
    const twoBody = expectError(await postView(admin, viewBody(two.id, { aggregations: [] })), 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
    expect(twoBody.message).toMatch(/several tables/);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("hostile table, column names and values are quoted, never executed; a table without a schema is read bare", async () => {
    const hostileColumn = `a "quoted" column; DROP TABLE x; --`;
    const source = await createSource(admin, {
      fields: [{ name: "odd", origin: { type: "NATIVE", nativeOrigin: { originalName: hostileColumn, originalType: "text", dataEntityId: `flights"; --` } } }],
    });
    const view = await createView(
      admin,
      viewBody(source.id, {
        aggregations: [{ type: "TERMS", field: { name: "odd" } }],
        metrics: [{ type: "COUNT" }],
        filters: [{ path: { name: "odd" }, operation: "NOTIN", value: ["'; DROP TABLE sources; --", "\\' OR 1=1"] }],
      }),
    );
    const column = `"a ""quoted"" column; DROP TABLE x; --"`;
    expect(view.definitionQuery).toBe(
      [`SELECT ${column} AS "odd", COUNT(*) AS "count"`, `FROM "flights""; --"`, `WHERE ${column} NOT IN ('''; DROP TABLE sources; --', '\\'' OR 1=1')`, `GROUP BY ${column}`].join("\n"),
    );
  });

  it("a definition that expands to too much SQL is a 400 (TOO_LARGE at the member), not a failure", async () => {
    // Each derived field doubles the one before: d16 writes "amount" 131,072 times, past every limit.
    const fields = [derivedField("d0", "amount + amount"), ...Array.from({ length: 16 }, (_, i) => derivedField(`d${i + 1}`, `d${i} + d${i}`))];
    const source = await createOrdersSource(admin, { fields });
    const res = await postView(admin, viewBody(source.id, { metrics: [{ type: "SUM", field: { name: "d16" } }] }));
    expectError(res, 400, "VALIDATION_FAILED", ["body.definition.metrics[0].field.name"]);
    // Many metrics of a moderate size: the whole query passes the limit at one of them.
    const many = Array.from({ length: 40 }, (_, i) => ({ formulaName: `m${i}`, formula: "SUM(d9)" }));
    const body = expectError(await postView(admin, viewBody(source.id, { metrics: many })), 400, "VALIDATION_FAILED");
    expect(body.problems[0].name).toMatch(/^body\.definition\.metrics\[\d+\]\.formulaName$/);
    expect(body.message).toMatch(/longer than 65536 characters/);
  });
});

describe("another account's source and connection", () => {
  it("naming them is the same 400 as naming nothing, shows none of their data, changes nothing (POST and PUT)", async () => {
    const theirSource = await createOrdersSource(otherAdmin);
    const theirConnection = await createConnection(otherAdmin, connectionBody(viewName("Theirs")));
    const view = await createView(admin, viewBody(orders.id));
    const target = (connectionId: string) => viewBody(orders.id, {}, { name: view.name, storageSettings: { targetStorage: { connectionId } } });
    const before = await dbSnapshot();
    for (const send of [(body: unknown) => postView(admin, body), (body: unknown) => call("PUT", viewPath(view.id), { as: as(admin), body })]) {
      const theirs = expectError(await send(viewBody(theirSource.id)), 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
      const missing = expectError(await send(viewBody(crypto.randomUUID())), 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
      expect(theirs.problems).toEqual(missing.problems);
      expect(JSON.stringify(theirs)).not.toContain(theirSource.name);

      const theirTarget = expectError(await send(target(theirConnection.id)), 400, "VALIDATION_FAILED", ["body.storageSettings.targetStorage.connectionId"]);
      const noTarget = expectError(await send(target("no-such-connection")), 400, "VALIDATION_FAILED", ["body.storageSettings.targetStorage.connectionId"]);
      expect(theirTarget.problems).toEqual(noTarget.problems);
      expect(JSON.stringify(theirTarget)).not.toContain(theirConnection.name);
    }
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("a source or connection a view uses cannot be deleted", () => {
  it("the source: 400 whose Problem lists the views as MATERIALIZED_VIEW (refused at the read, one round trip); deletable once they are gone", async () => {
    const source = await createOrdersSource(admin);
    const first = await createView(admin, viewBody(source.id, {}, { name: viewName("B") }));
    const second = await createView(admin, viewBody(source.id, {}, { name: viewName("A") }));
    const before = await dbSnapshot();
    const refused = await call("DELETE", sourcePath(source.id), { as: as(admin) });
    const body = expectError(refused, 400, "VALIDATION_FAILED", [source.name]);
    expect(body.problems[0].dependencies).toEqual({
      [source.name]: {
        hasOtherUsages: false,
        accessible: [
          { id: second.id, name: second.name, type: "MATERIALIZED_VIEW" },
          { id: first.id, name: first.name, type: "MATERIALIZED_VIEW" },
        ],
      },
    });
    expect(roundTrips(refused)).toBe(1);
    expect(await dbSnapshot()).toEqual(before);

    for (const view of [first, second]) expect((await call("DELETE", viewPath(view.id), { as: as(admin) })).status).toBe(204);
    expect((await call("DELETE", sourcePath(source.id), { as: as(admin) })).status).toBe(204);
  });

  it("the connection a view stores its data in: 409 CONNECTION_IN_USE listing the view (and the sources) as users", async () => {
    const connection = await createConnection(admin, connectionBody(viewName("Store")));
    const onIt = await createOrdersSource(admin, { connectionId: connection.id });
    const view = await createView(admin, viewBody(orders.id, {}, { storageSettings: { targetStorage: { connectionId: connection.id } } }));
    const before = await dbSnapshot();
    const body = expectError(await call("DELETE", `/api/connections/${connection.id}`, { as: as(admin) }), 409, "CONNECTION_IN_USE");
    expect(body.problems[0].dependencies[connection.name].accessible).toEqual([
      { id: onIt.id, name: onIt.name, type: "SOURCE" },
      { id: view.id, name: view.name, type: "MATERIALIZED_VIEW" },
    ]);
    expect(await dbSnapshot()).toEqual(before);

    expect((await call("DELETE", sourcePath(onIt.id), { as: as(admin) })).status).toBe(204);
    const viewOnly = expectError(await call("DELETE", `/api/connections/${connection.id}`, { as: as(admin) }), 409, "CONNECTION_IN_USE");
    expect(viewOnly.problems[0].dependencies[connection.name].accessible).toEqual([{ id: view.id, name: view.name, type: "MATERIALIZED_VIEW" }]);
    // Stored internally from now on, the view lets the connection go.
    const internal = await call("PUT", viewPath(view.id), { as: as(admin), body: { name: view.name, definition: view.definition, storageSettings: null } });
    expect(internal.status, internal.text).toBe(200);
    expect((await call("DELETE", `/api/connections/${connection.id}`, { as: as(admin) })).status).toBe(204);
  });
});

describe("deprecated since 23.1", () => {
  it("every operation and every member is marked deprecated in the OpenAPI document; every answer documents Deprecation and Sunset", async () => {
    const doc = (await call("GET", "/api/openapi.json", { as: null })).json;
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([path]) => path.startsWith(VIEWS));
    expect(operations.flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)).sort()).toEqual(
      ["DELETE /{id}", "GET /", "GET /{id}", "PATCH /{id}", "POST /", "PUT /{id}"].map((op) => op.replace(" /", ` ${VIEWS}/`).replace(/\/$/, "")).sort(),
    );
    for (const [path, item] of operations) {
      for (const [method, op] of Object.entries(item)) {
        expect({ deprecated: op.deprecated, mark: op["x-stability"] }, `${method} ${path}`).toEqual({ deprecated: true, mark: "deprecated" });
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          expect(response.headers.Deprecation?.required, `${method} ${path} ${status}`).toBe(true);
          expect(response.headers.Sunset?.required, `${method} ${path} ${status}`).toBe(true);
        }
      }
    }
    const schemas = Object.entries(doc.components.schemas as Record<string, any>).filter(([name]) => name.startsWith("MaterializedView"));
    expect(schemas.length).toBeGreaterThanOrEqual(12);
    for (const [name, schema] of schemas) {
      expect(schema.deprecated, name).toBe(true);
      for (const [member, property] of Object.entries(schema.properties as Record<string, any>)) {
        // A member that is another of these schemas is a bare $ref to it (marked above).
        const marked = property.deprecated === true || /^#\/components\/schemas\/MaterializedView/.test(property.$ref ?? "");
        expect(marked, `${name}.${member}`).toBe(true);
      }
    }
  });

  it("every route answers Deprecation: true and the Sunset date, on success and on every kind of error", async () => {
    const created = await postView(admin, viewBody(orders.id));
    const view = created.json;
    const unknown = viewPath(crypto.randomUUID());
    const answers = [
      await call("GET", VIEWS, { as: as(admin) }),
      await call("GET", `${VIEWS}?sourceId=`, { as: as(admin) }),
      await call("GET", VIEWS, { as: null }),
      await call("GET", viewPath(view.id), { as: as(admin) }),
      await call("GET", viewPath(view.id), { as: as(admin), headers: { "If-None-Match": created.headers.get("ETag")! } }),
      await call("GET", unknown, { as: as(admin) }),
      await call("GET", viewPath(view.id), { as: SUPERVISOR }),
      await call("GET", viewPath(view.id), { as: as(admin), headers: { Accept: "text/html" } }),
      await postView(admin, viewBody(orders.id)),
      await postView(admin, { name: "" }),
      await call("POST", VIEWS, { as: as(admin), rawBody: "{", headers: { "Content-Type": "application/json" } }),
      await call("POST", VIEWS, { as: as(admin), rawBody: "x", headers: { "Content-Type": "text/plain" } }),
      await call("PUT", viewPath(view.id), { as: as(admin), body: viewBody(orders.id, {}, { name: view.name }) }),
      await call("PUT", unknown, { as: as(admin), body: viewBody(orders.id) }),
      await call("PATCH", viewPath(view.id), { as: as(admin), body: { enabled: false } }),
      await call("PATCH", viewPath(view.id), { as: as(reader), body: { enabled: false } }),
      await call("PATCH", viewPath(view.id), { as: as(admin), headers: { "If-Match": '"stale"' }, body: { enabled: true } }),
      await call("DELETE", viewPath(view.id), { as: as(admin) }),
      await call("DELETE", viewPath(view.id), { as: as(admin) }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 200, 304, 404, 403, 406, 200, 400, 400, 415, 200, 404, 200, 403, 412, 204, 404]);
    for (const res of answers) expectDeprecated(res);
    expect(SUNSET).toBe(new Date("2027-12-31T23:59:59Z").toUTCString());
  });
});

describe("no input makes a 500", () => {
  it("random definitions over the source's names and beyond answer 200 or 400, never anything else", async () => {
    const { default: fc } = await import("fast-check");
    const name = fc.constantFrom("customer_id", "amount", "ordered_on", "status", "big", "by_status", "average", "Volume", "nope", "", "a\"b", "x'; --");
    const value = fc.oneof(fc.string({ maxLength: 12 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 }));
    const operation = fc.constantFrom("EQUALS", "NOTEQUALS", "GT", "GE", "LT", "LE", "IN", "NOTIN", "BETWEEN", "ISNULL", "ISNOTNULL", "CONTAINS_CS", "LIKE");
    const formula = fc.oneof(
      fc.constantFrom("SUM(amount)", "COUNT(*)", "AVG(amount) WHERE status = 'x'", "MAX(ordered_on)", "average * 2", "SUM(", "COUNTD(big) / COUNT(*)", "MEDIAN(amount)", "TIME_DIFF(DAY, ordered_on, NOW())"),
      fc.string({ maxLength: 20 }),
    );
    const metric = fc.record(
      { type: fc.constantFrom("COUNT", "SUM", "AVG", "MIN", "MAX", "COUNTD", "MEDIAN"), field: fc.record({ name }), formulaName: name, formula, rollup: fc.boolean() },
      { requiredKeys: [] },
    );
    const random = fc.record({
      aggregations: fc.array(fc.record({ type: fc.constantFrom("TERMS", "TIME"), field: fc.record({ name }) }), { maxLength: 3 }),
      filters: fc.array(fc.record({ path: fc.record({ name }), operation, value }, { requiredKeys: ["path", "operation"] }), { maxLength: 3 }),
      metrics: fc.array(metric, { maxLength: 4 }),
    });
    // Random parts are nearly always wrong somewhere; valid ones among them show that 200 is reachable too.
    const valid = fc.record({
      filters: fc.array(fc.constantFrom({ path: { name: "status" }, operation: "CONTAINS_CS", value: "%'_" }, { path: { name: "amount" }, operation: "BETWEEN", value: [-1.5, 1e21] }), { maxLength: 2 }),
      metrics: fc.array(fc.constantFrom({ type: "COUNT" }, { type: "AVG", field: { name: "amount" } }, { formulaName: "average" }), { minLength: 1, maxLength: 3 }).map((list) =>
        list.map((m, i) => ("formulaName" in m ? { formulaName: `f${i}`, formula: "average + 1" } : m)),
      ),
    });
    const definition = fc.oneof({ weight: 3, arbitrary: random }, { weight: 1, arbitrary: valid });
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(definition, async (parts) => {
        const res = await postView(admin, viewBody(orders.id, parts));
        statuses.add(res.status);
        expect([200, 400], res.text.slice(0, 300)).toContain(res.status);
      }),
      { seed: 20261124, numRuns: 60 },
    );
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});

describe("an account's deletion", () => {
  it("takes its views with it, although they hold its sources and connections", async () => {
    const doomed = await createAccount();
    const owner = await createUser(doomed.id, { groups: ["Users", "Administrators"] });
    const connection = await createConnection(owner, connectionBody(viewName("Doomed")));
    const source = await createOrdersSource(owner, { connectionId: connection.id });
    await createView(owner, viewBody(source.id, {}, { storageSettings: { targetStorage: { connectionId: connection.id } } }));
    expect((await rowsOfAccount(doomed.id)).materialized_views).toBe(1);
    expect((await call("DELETE", `/api/accounts/${doomed.id}`)).status).toBe(204);
    expect(Object.values(await rowsOfAccount(doomed.id)).every((n) => n === 0)).toBe(true);
  });
});
