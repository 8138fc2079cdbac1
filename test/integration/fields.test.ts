import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, expectUnauthenticated, snapshotRows, VENDOR_JSON, type TestUser } from "./helpers";
import {
  createSource,
  derivedField,
  fieldPath,
  fieldsPath,
  hierarchyField,
  nativeField,
  pagesForward,
  sourcePath,
  STANDARD_FIELD_NAMES,
  STANDARD_FIELDS,
  type SourceJson,
} from "./source-helpers";

const FIELD_MEMBERS = [
  "createdByUserID",
  "createdDate",
  "dataType",
  "defaultMetric",
  "disabledCapabilities",
  "fieldMetadata",
  "fieldName",
  "granularity",
  "label",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "name",
  "origin",
  "originalFieldName",
  "rawFormatSupportTimeGroup",
  "visible",
].sort();

let accountA: { id: string };
let owner: TestUser; // creates the sources: WRITE
let reader: TestUser; // READ grant on the shared source
let outsider: TestUser; // same account, no grant
let foreigner: TestUser; // another account
let shared: SourceJson; // STANDARD_FIELDS, reader has READ

beforeAll(async () => {
  accountA = await createAccount();
  const accountB = await createAccount();
  owner = await createUser(accountA.id, { roles: ["ROLE_CREATE_SOURCES"] });
  reader = await createUser(accountA.id);
  outsider = await createUser(accountA.id);
  foreigner = await createUser(accountB.id, { groups: ["Users", "Administrators"] });
  shared = await createSource(owner, { fields: STANDARD_FIELDS });
  const grant = await call("PUT", `${sourcePath(shared.id)}/permissions`, {
    as: as(owner),
    body: { content: [{ principalType: "USER", principalId: reader.id, permission: "READ" }] },
  });
  if (grant.status !== 200) throw new Error(grant.text);
});

/** A fresh source with the standard native fields. */
const freshSource = (extra: Record<string, unknown> = {}) => createSource(owner, { fields: STANDARD_FIELDS, ...extra });
const post = (sourceId: string, body: unknown, user = owner) => call("POST", fieldsPath(sourceId), { as: as(user), body });
const put = (sourceId: string, name: string, body: unknown, user = owner, headers?: Record<string, string>) =>
  call("PUT", fieldPath(sourceId, name), { as: as(user), body, headers });
const get = (sourceId: string, name: string, user = owner) => call("GET", fieldPath(sourceId, name), { as: as(user) });

describe("E13 GET /api/sources/{sourceId}/fields/{fieldName}", () => {
  it("answers the field exactly as the spec shapes it", async () => {
    const res = await get(shared.id, "price", reader);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(Object.keys(res.json).sort()).toEqual(FIELD_MEMBERS);
    expect(res.json).toEqual({
      origin: { type: "NATIVE", nativeOrigin: { originalName: "price", originalType: "DECIMAL(10,2)" } },
      name: "price",
      label: "Price",
      visible: true,
      defaultMetric: "sum",
      dataType: "NUMBER",
      granularity: null,
      disabledCapabilities: [],
      fieldMetadata: {},
      rawFormatSupportTimeGroup: false,
      fieldName: "price",
      originalFieldName: "price",
      createdByUserID: owner.id,
      createdDate: expect.any(String),
      lastModifiedByUserID: owner.id,
      lastModifiedDate: expect.any(String),
    });
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
  });

  it("answers every member a field was written with", async () => {
    const source = await freshSource();
    const body = nativeField(
      "ORDER_TS",
      {
        name: "order_ts",
        label: "Ordered at",
        visible: false,
        defaultMetric: "MAX",
        format: { time: { granularity: "DAY", timeZone: "Europe/Paris", options: { day: "TWO_DIGIT", hour12: false } }, number: { type: "PLAIN", decimals: 2 }, url: { type: "IMAGE", src: "http://x/{}", width: 10, height: 20 } },
        statistics: { override: { min: 0, max: 10, distinctValues: ["a"] }, cacheEnabled: true, refreshable: false, lookup: { raw: { dataEntityId: "e1", originalFieldName: "ts" } }, cardinality: 5 },
        granularity: "HOUR",
        disabledCapabilities: ["GROUP_BY"],
        fieldMetadata: { color: "red", n: 1 },
      },
      { originalType: "TIMESTAMP", dataEntityId: "orders", rawFormat: { pattern: "yyyy" }, metaFlags: ["PK"], partitionedBy: { field: "ts", function: "DAY" } },
    );
    const created = await post(source.id, body);
    expect(created.status, created.text).toBe(201);
    const res = await get(source.id, "order_ts");
    expect(res.status).toBe(200);
    expect(res.json).toEqual(created.json);
    const { origin, ...rest } = body as { origin: unknown } & Record<string, unknown>;
    expect(res.json).toMatchObject({ ...rest, defaultMetric: "max", origin, dataType: "TIME", rawFormatSupportTimeGroup: true, originalFieldName: "ORDER_TS" });
  });

  it("costs one D1 round trip once the caller's credentials are cached", async () => {
    await get(shared.id, "carrier", reader); // warms the credential cache
    const res = await get(shared.id, "carrier", reader);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
    const missing = await get(shared.id, "nope", reader);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("X-D1-Round-Trips")).toBe("1");
  });

  it("answers 404 for an unknown field, a custom metric's name and an unknown source", async () => {
    expectError(await get(shared.id, "nope", reader), 404, "NOT_FOUND");
    expectError(await get(shared.id, "Volume", reader), 404, "NOT_FOUND");
    expectError(await get(crypto.randomUUID(), "price", reader), 404, "NOT_FOUND");
  });

  it("answers 404 for another account's source, even to its admin, and reveals nothing", async () => {
    const res = await get(shared.id, "price", foreigner);
    expectError(res, 404, "NOT_FOUND");
    expect(res.text).not.toContain("DECIMAL");
    expect(res.json.message).toBe((await get(crypto.randomUUID(), "price", foreigner)).json.message);
  });

  it("answers 403 to a user of the account without READ", async () => {
    expectError(await get(shared.id, "price", outsider), 403, "FORBIDDEN");
  });

  it("answers 401 as a ServletErrorMessage without credentials or with bad ones", async () => {
    const path = fieldPath(shared.id, "price");
    expectUnauthenticated(await call("GET", path, { as: null }), path);
    expectUnauthenticated(await call("GET", path, { as: { username: reader.username, password: "wrong password" } }), path);
  });

  it("finds names with Unicode letters and dots", async () => {
    const source = await freshSource();
    for (const name of ["Straße", "a.b", "_x1", "数量"]) {
      const created = await post(source.id, nativeField("col", { name }));
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get("Location")).toBe(fieldPath(source.id, name));
      const read = await get(source.id, name);
      expect(read.status, read.text).toBe(200);
      expect(read.json.name).toBe(name);
    }
  });
});

describe("field list", () => {
  it("pages by name with maxResults=2, forward and back", async () => {
    const source = await freshSource();
    const names = [...STANDARD_FIELD_NAMES].sort();
    const pages = await pagesForward(fieldsPath(source.id), owner, 2);
    expect(pages.map((p) => p.json.content.map((f: { name: string }) => f.name))).toEqual([names.slice(0, 2), names.slice(2, 4), names.slice(4, 6)]);
    expect(pages[0]!.json.pageInfo.previousPageToken).toBeNull();
    expect(pages[2]!.json.pageInfo.nextPageToken).toBeNull();
    // Fields only: the Volume metric is not listed.
    expect(pages.flatMap((p) => p.json.content).every((f: { fieldName: string }) => f.fieldName !== "Volume")).toBe(true);

    const back = await call("GET", `${fieldsPath(source.id)}?maxResults=2&pageToken=${pages[2]!.json.pageInfo.previousPageToken}`, { as: as(owner) });
    expect(back.status).toBe(200);
    expect(back.json.content.map((f: { name: string }) => f.name)).toEqual(names.slice(2, 4));
    const first = await call("GET", `${fieldsPath(source.id)}?maxResults=2&pageToken=${back.json.pageInfo.previousPageToken}`, { as: as(owner) });
    expect(first.json.content.map((f: { name: string }) => f.name)).toEqual(names.slice(0, 2));
    expect(first.json.pageInfo.previousPageToken).toBeNull();
    expect(first.json.pageInfo.nextPageToken).not.toBeNull();
  });

  it("needs READ, is 404 across accounts and refuses bad paging parameters", async () => {
    expect((await call("GET", fieldsPath(shared.id), { as: as(reader) })).status).toBe(200);
    expectError(await call("GET", fieldsPath(shared.id), { as: as(outsider) }), 403, "FORBIDDEN");
    expectError(await call("GET", fieldsPath(shared.id), { as: as(foreigner) }), 404, "NOT_FOUND");
    expectError(await call("GET", `${fieldsPath(shared.id)}?maxResults=abc`, { as: as(reader) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
    expectError(await call("GET", `${fieldsPath(shared.id)}?pageToken=%25%25`, { as: as(reader) }), 400, "INVALID_PAGE_TOKEN");
    expectUnauthenticated(await call("GET", fieldsPath(shared.id), { as: null }), fieldsPath(shared.id));
  });
});

describe("field writes", () => {
  it("POST creates (201, Location, ETag)", async () => {
    const source = await freshSource();
    const res = await post(source.id, nativeField("AIRLINE", { name: "airline" }));
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("Location")).toBe(fieldPath(source.id, "airline"));
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expect(res.json).toMatchObject({ name: "airline", label: "Airline", dataType: "ATTRIBUTE", defaultMetric: "count", visible: true });
    expect((await get(source.id, "airline")).json).toEqual(res.json);
  });

  it("PUT upserts: 201 when new, then 200 replacing the whole field", async () => {
    const source = await freshSource();
    const created = await put(source.id, "tail", nativeField("TAIL", { label: "Tail number", visible: false }));
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: "tail", label: "Tail number", visible: false });

    const replaced = await put(source.id, "tail", nativeField("TAIL_NO", { name: "tail", dataType: "TEXT" }), owner, { "If-Match": created.headers.get("ETag")! });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json).toMatchObject({ name: "tail", label: "Tail", visible: true, dataType: "TEXT", originalFieldName: "TAIL_NO" });
    expect(replaced.json.createdDate).toBe(created.json.createdDate);
    expect((await get(source.id, "tail")).json).toEqual(replaced.json);

    const stale = await put(source.id, "tail", nativeField("X"), owner, { "If-Match": created.headers.get("ETag")! });
    expectError(stale, 412, "PRECONDITION_FAILED");
  });

  it("honours If-Match on PUT, PATCH and DELETE; a PUT with If-Match never creates", async () => {
    const source = await freshSource();
    const etag = (await get(source.id, "qty")).headers.get("ETag")!;
    const patched = await call("PATCH", fieldPath(source.id, "qty"), { as: as(owner), body: { visible: false }, headers: { "If-Match": etag } });
    expect(patched.status, patched.text).toBe(200);
    const fresh = patched.headers.get("ETag")!;
    expect(fresh).not.toBe(etag);

    const before = await dbSnapshot();
    expectError(await call("PATCH", fieldPath(source.id, "qty"), { as: as(owner), body: { visible: true }, headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
    expectError(await call("DELETE", fieldPath(source.id, "qty"), { as: as(owner), headers: { "If-Match": etag } }), 412, "PRECONDITION_FAILED");
    expectError(await put(source.id, "qty", nativeField("qty"), owner, { "If-Match": etag }), 412, "PRECONDITION_FAILED");
    expectError(await put(source.id, "not_there", nativeField("x"), owner, { "If-Match": etag }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);

    const deleted = await call("DELETE", fieldPath(source.id, "qty"), { as: as(owner), headers: { "If-Match": fresh } });
    expect(deleted.status, deleted.text).toBe(204);
  });

  it("PATCH changes visible only", async () => {
    const source = await freshSource();
    const before = (await get(source.id, "carrier")).json;
    const res = await call("PATCH", fieldPath(source.id, "carrier"), { as: as(owner), body: { visible: false } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ...before, visible: false, lastModifiedDate: expect.any(String) });
    expect((await get(source.id, "carrier")).json.visible).toBe(false);
    expectError(await call("PATCH", fieldPath(source.id, "carrier"), { as: as(owner), body: {} }), 400, "VALIDATION_FAILED", ["body.visible"]);
    expectError(await call("PATCH", fieldPath(source.id, "nope"), { as: as(owner), body: { visible: true } }), 404, "NOT_FOUND");
  });

  it("DELETE removes an unused field: 204, then 404", async () => {
    const source = await freshSource();
    const res = await call("DELETE", fieldPath(source.id, "dest_city"), { as: as(owner) });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expectError(await get(source.id, "dest_city"), 404, "NOT_FOUND");
    expectError(await call("DELETE", fieldPath(source.id, "dest_city"), { as: as(owner) }), 404, "NOT_FOUND");
  });

  it("writes need WRITE: a reader gets 403, another account 404, and nothing changes", async () => {
    const before = await dbSnapshot();
    for (const user of [reader, outsider]) {
      expectError(await post(shared.id, nativeField("x", { name: "x" }), user), 403, "FORBIDDEN");
      expectError(await put(shared.id, "x", nativeField("x"), user), 403, "FORBIDDEN");
      expectError(await call("PATCH", fieldPath(shared.id, "price"), { as: as(user), body: { visible: false } }), 403, "FORBIDDEN");
      expectError(await call("DELETE", fieldPath(shared.id, "price"), { as: as(user) }), 403, "FORBIDDEN");
    }
    expectError(await post(shared.id, nativeField("x", { name: "x" }), foreigner), 404, "NOT_FOUND");
    expectError(await put(shared.id, "x", nativeField("x"), foreigner), 404, "NOT_FOUND");
    expectError(await call("PATCH", fieldPath(shared.id, "price"), { as: as(foreigner), body: { visible: false } }), 404, "NOT_FOUND");
    expectError(await call("DELETE", fieldPath(shared.id, "price"), { as: as(foreigner) }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const path = method === "POST" ? fieldsPath(shared.id) : fieldPath(shared.id, "price");
      expectUnauthenticated(await call(method, path, { as: null, body: method === "DELETE" ? undefined : { visible: true } }), path);
    }
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("POST .../fields/validate", () => {
  it("answers the inferred type and the referenced fields of a valid expression", async () => {
    const res = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "price * qty + LENGTH(carrier)" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ valid: true, dataType: "NUMBER", referencedFields: ["price", "qty", "carrier"], error: { type: "NONE", message: null, syntaxError: null } });
    const text = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "UPPER(carrier)" } });
    expect(text.json).toMatchObject({ valid: true, referencedFields: ["carrier"] });
  });

  it("answers a syntax error with its line and column", async () => {
    const res = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "price *\n  * 2" } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ valid: false, dataType: null, referencedFields: [], error: { type: "SYNTAX", message: expect.any(String), syntaxError: { line: 2, column: 3 } } });
  });

  it("answers VALIDATION for an unknown field and for an aggregate", async () => {
    const unknown = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "price + ghost" } });
    expect(unknown.json).toMatchObject({ valid: false, error: { type: "VALIDATION", message: expect.stringContaining("ghost") } });
    const aggregate = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "sum(price)" } });
    expect(aggregate.json).toMatchObject({ valid: false, error: { type: "VALIDATION" } });
    // The Volume metric is no field at row level.
    const metric = await call("POST", `${fieldsPath(shared.id)}/validate`, { as: as(reader), body: { expression: "Volume + 1" } });
    expect(metric.json).toMatchObject({ valid: false, error: { type: "VALIDATION" } });
  });

  it("needs READ and a valid body", async () => {
    const path = `${fieldsPath(shared.id)}/validate`;
    expectError(await call("POST", path, { as: as(outsider), body: { expression: "1" } }), 403, "FORBIDDEN");
    expectError(await call("POST", path, { as: as(foreigner), body: { expression: "1" } }), 404, "NOT_FOUND");
    expectError(await call("POST", path, { as: as(reader), body: { expression: 1 } }), 400, "VALIDATION_FAILED", ["body.expression"]);
    expectUnauthenticated(await call("POST", path, { as: null, body: { expression: "1" } }), path);
  });
});

describe("origins", () => {
  it("NATIVE: originalName is required; the type follows originalType unless dataType is given", async () => {
    const source = await freshSource();
    const before = await dbSnapshot();
    expectError(await post(source.id, { name: "n", origin: { type: "NATIVE", nativeOrigin: {} } }), 400, "VALIDATION_FAILED", ["body.origin.nativeOrigin.originalName"]);
    expectError(await post(source.id, { name: "n", origin: { type: "NATIVE" } }), 400, "VALIDATION_FAILED", ["body.origin.nativeOrigin"]);
    expect(await dbSnapshot()).toEqual(before);
    const cases: [string, string | undefined, string][] = [
      ["BIGINT", undefined, "INTEGER"],
      ["double precision", undefined, "NUMBER"],
      ["DATE", undefined, "TIME"],
      ["CLOB", undefined, "TEXT"],
      ["GEOMETRY", undefined, "ATTRIBUTE"],
      [undefined as unknown as string, undefined, "ATTRIBUTE"],
      ["VARCHAR", "NUMBER", "NUMBER"],
    ];
    for (const [i, [originalType, dataType, expected]] of cases.entries()) {
      const res = await post(source.id, nativeField(`c${i}`, { name: `n${i}`, ...(dataType && { dataType }) }, originalType ? { originalType } : {}));
      expect(res.status, res.text).toBe(201);
      expect(res.json.dataType).toBe(expected);
    }
  });

  it("DERIVED: the server computes referencedFieldNames and infers dataType", async () => {
    const source = await freshSource();
    const doubled = await post(source.id, derivedField("doubled", "price * 2", {}, { referencedFieldNames: ["carrier", "bogus"] }));
    expect(doubled.status, doubled.text).toBe(201);
    expect(doubled.json).toMatchObject({
      origin: { type: "DERIVED", derivedOrigin: { expression: "price * 2", referencedFieldNames: ["price"] } },
      dataType: "NUMBER",
      defaultMetric: "sum",
      originalFieldName: null,
      label: "Doubled",
    });
    expect(doubled.json.origin.nativeOrigin).toBeUndefined();

    const length = await post(source.id, derivedField("carrier_len", "LENGTH(carrier)"));
    expect(length.status, length.text).toBe(201);
    expect(length.json).toMatchObject({ dataType: "INTEGER", defaultMetric: "sum", origin: { derivedOrigin: { referencedFieldNames: ["carrier"] } } });

    // `default` is the built-in calendar (stored calendars: calendar-references.test.ts).
    const route = await post(source.id, derivedField("route", "CONCAT(origin_city, '-', dest_city)", {}, { calendarId: "default" }));
    expect(route.status, route.text).toBe(201);
    expect(route.json).toMatchObject({ defaultMetric: "count", origin: { derivedOrigin: { calendarId: "default", referencedFieldNames: ["origin_city", "dest_city"] } } });

    // A derived field may use another derived field.
    const quad = await post(source.id, derivedField("quadrupled", "doubled * 2"));
    expect(quad.status, quad.text).toBe(201);
    expect(quad.json.origin.derivedOrigin.referencedFieldNames).toEqual(["doubled"]);

    // A stated dataType must agree with the inferred one.
    expectError(await post(source.id, derivedField("x", "price * 2", { dataType: "TEXT" })), 400, "VALIDATION_FAILED", ["body.dataType"]);
  });

  it("DERIVED: an aggregate, an unknown field, a syntax error and a cycle are 400; nothing is stored", async () => {
    const source = await freshSource();
    await post(source.id, derivedField("d1", "price + 1"));
    const before = await dbSnapshot();
    const aggregate = await post(source.id, derivedField("total", "sum(price)"));
    expectError(aggregate, 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);

    const unknown = await post(source.id, derivedField("x", "price * ghost_field"));
    expectError(unknown, 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expect(unknown.json.message).toContain("ghost_field");
    expect(unknown.json.problems[0].message).toContain("ghost_field");

    expectError(await post(source.id, derivedField("x", "price +")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expectError(await post(source.id, derivedField("x", "price > 1")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expectError(await post(source.id, derivedField("x", "Volume * 2")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expectError(await post(source.id, derivedField("x", "x + 1")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expectError(await post(source.id, derivedField("x", "")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    // d2 uses d1; making d1 use d2 would close a cycle.
    const d2 = await post(source.id, derivedField("d2", "d1 * 2"));
    expect(d2.status).toBe(201);
    const afterD2 = await dbSnapshot();
    expectError(await put(source.id, "d1", derivedField("d1", "d2 + 1")), 400, "VALIDATION_FAILED", ["body.origin.derivedOrigin.expression"]);
    expect(await dbSnapshot()).toEqual(afterD2);
    expect(snapshotRows(before, "source_items").length + 1).toBe(snapshotRows(afterD2, "source_items").length);
  });

  it("HIERARCHY: members are fields of the source of one type; labelField is optional", async () => {
    const source = await freshSource();
    const geo = await post(source.id, hierarchyField("geo", "dest_city", "origin_city"));
    expect(geo.status, geo.text).toBe(201);
    expect(geo.json).toMatchObject({
      name: "geo",
      dataType: "HIERARCHY",
      origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField: "dest_city", parentField: "origin_city" } } },
      originalFieldName: null,
    });
    expect(geo.json.origin.hierarchyOrigin.labelField).toBeUndefined();

    const labelled = await post(source.id, hierarchyField("geo2", "origin_city", "dest_city", "carrier"));
    expect(labelled.status, labelled.text).toBe(201);
    expect(labelled.json.origin.hierarchyOrigin.labelField).toBe("carrier");

    const before = await dbSnapshot();
    const mixed = await post(source.id, hierarchyField("h", "carrier", "price"));
    expectError(mixed, 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent"]);
    expectError(await post(source.id, hierarchyField("h", "ghost", "carrier")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent.childField"]);
    expectError(await post(source.id, hierarchyField("h", "carrier", "ghost")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent.parentField"]);
    expectError(await post(source.id, hierarchyField("h", "carrier", "dest_city", "ghost")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.labelField"]);
    expectError(await post(source.id, hierarchyField("h", "carrier", "Volume")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent.parentField"]);
    expectError(await post(source.id, hierarchyField("h", "carrier", "carrier")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent"]);
    expectError(await post(source.id, hierarchyField("h", "geo", "geo2")), 400, "VALIDATION_FAILED", ["body.origin.hierarchyOrigin.childParent.childField"]);
    expectError(await post(source.id, hierarchyField("h", "carrier", "dest_city", undefined, { dataType: "ATTRIBUTE" })), 400, "VALIDATION_FAILED", ["body.dataType"]);
    expectError(
      await post(source.id, { name: "h", origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField: "carrier" } } } }),
      400,
      "VALIDATION_FAILED",
      ["body.origin.hierarchyOrigin.childParent.parentField"],
    );
    expect(await dbSnapshot()).toEqual(before);
  });

  it("only HIERARCHY origins have the HIERARCHY data type", async () => {
    const source = await freshSource();
    const before = await dbSnapshot();
    expectError(await post(source.id, nativeField("c", { name: "c", dataType: "HIERARCHY" })), 400, "VALIDATION_FAILED", ["body.dataType"]);
    expectError(await put(source.id, "carrier", nativeField("carrier", { dataType: "HIERARCHY" })), 400, "VALIDATION_FAILED", ["body.dataType"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("naming rules", () => {
  let source: SourceJson;
  beforeAll(async () => {
    source = await freshSource();
  });

  it("accepts Unicode letters, '_', digits and dots; refuses the rest with 400 body.name", async () => {
    for (const name of ["Straße", "_private", "a1.b2", "Ünïcødé"]) {
      const res = await post(source.id, nativeField("x", { name }));
      expect(res.status, `${name}: ${res.text}`).toBe(201);
      expect(res.json.name).toBe(name);
    }
    const before = await dbSnapshot();
    for (const name of ["1abc", "a b", "a-b", ".a", "", "x".repeat(256), "a\u0000b"]) {
      expectError(await post(source.id, nativeField("x", { name })), 400, "VALIDATION_FAILED", ["body.name"]);
    }
    expect(await dbSnapshot()).toEqual(before);
    const longest = await post(source.id, nativeField("x", { name: "y".repeat(255) }));
    expect(longest.status, longest.text).toBe(201);
  });

  it("refuses an invalid name in a PUT path as well", async () => {
    const before = await dbSnapshot();
    for (const name of ["1abc", "a b", "a-b"]) {
      const res = await put(source.id, name, nativeField("x"));
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expectError(res, 400, "VALIDATION_FAILED");
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("generates a missing name from the label, else the original name, unique with _2, _3", async () => {
    const fromLabel = await post(source.id, nativeField("COL_1", { label: "Order Total" }));
    expect(fromLabel.status, fromLabel.text).toBe(201);
    expect(fromLabel.json).toMatchObject({ name: "Order_Total", label: "Order Total" });
    const again = await post(source.id, nativeField("COL_2", { label: "Order Total" }));
    expect(again.json.name).toBe("Order_Total_2");
    const third = await post(source.id, nativeField("COL_3", { label: "Order Total" }));
    expect(third.json.name).toBe("Order_Total_3");

    const fromOriginal = await post(source.id, nativeField("ship mode"));
    expect(fromOriginal.status, fromOriginal.text).toBe(201);
    expect(fromOriginal.json).toMatchObject({ name: "ship_mode", label: "Ship Mode" });
    const fromDigits = await post(source.id, nativeField("2024 sales"));
    expect(fromDigits.json.name).toMatch(/^[\p{L}_][\p{L}_\p{N}.]*$/u);

    // A generated name avoids the custom metrics' names too.
    const volume = await post(source.id, nativeField("Volume"));
    expect(volume.status, volume.text).toBe(201);
    expect(volume.json.name).toBe("Volume_2");

    const derived = await post(source.id, derivedField(undefined, "price * 2"));
    expect(derived.status, derived.text).toBe(201);
    expect(derived.json.name).toMatch(/^[\p{L}_][\p{L}_\p{N}.]*$/u);
  });

  it("is unique across fields and custom metrics: 409 DUPLICATED", async () => {
    const before = await dbSnapshot();
    const res = await post(source.id, nativeField("v", { name: "Volume" }));
    expectError(res, 409, "DUPLICATED", ["body.name"]);
    expectError(await put(source.id, "Volume", nativeField("v")), 409, "DUPLICATED");
    expectError(await post(source.id, nativeField("carrier", { name: "carrier" })), 409, "DUPLICATED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    // A custom metric created later cannot take a field's name either (E1: 400 DUPLICATED).
    const metric = await call("PUT", `${sourcePath(source.id)}/custom-metrics/carrier`, { as: as(owner), body: { expression: "count(*)" } });
    expectError(metric, 400, "DUPLICATED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("is immutable: a PUT body naming another field is 400 body.name", async () => {
    const before = await dbSnapshot();
    expectError(await put(source.id, "carrier", nativeField("carrier", { name: "carrier2" })), 400, "VALIDATION_FAILED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    const same = await put(source.id, "carrier", nativeField("carrier", { name: "carrier" }));
    expect(same.status, same.text).toBe(200);
  });

  it("generates a missing label; defaultMetric is count for attributes and sum for numbers unless given", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [nativeField("a", { name: "orderDate" }, { originalType: "DATE" }), "Order Date", "count"],
      [nativeField("a", { name: "unit_price" }, { originalType: "FLOAT" }), "Unit Price", "sum"],
      [nativeField("a", { name: "seats" }, { originalType: "SMALLINT" }), "Seats", "sum"],
      [nativeField("a", { name: "code" }), "Code", "count"],
      [nativeField("a", { name: "avg_me", defaultMetric: "avg" }, { originalType: "REAL" }), "Avg Me", "avg"],
      [nativeField("a", { name: "labelled", label: "" }), "Labelled", "count"],
    ];
    for (const [body, label, metric] of cases) {
      const res = await post(source.id, body);
      expect(res.status, res.text).toBe(201);
      expect([res.json.label, res.json.defaultMetric]).toEqual([label, metric]);
    }
    expectError(await post(source.id, nativeField("a", { name: "bad_metric", defaultMetric: "mode" })), 400, "VALIDATION_FAILED", ["body.defaultMetric"]);
  });

  it("allows facetFiltering only on a source with TEXT_SEARCH", async () => {
    const before = await dbSnapshot();
    const refused = await post(source.id, nativeField("a", { name: "facet", facetFiltering: { enabled: true, order: 1 } }));
    expectError(refused, 400, "VALIDATION_FAILED", ["body.facetFiltering"]);
    expect(await dbSnapshot()).toEqual(before);

    const searchable = await freshSource({ features: ["TEXT_SEARCH"] });
    const ok = await post(searchable.id, nativeField("a", { name: "facet", facetFiltering: { enabled: true, order: 1 } }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.facetFiltering).toEqual({ enabled: true, order: 1 });
    expect((await get(searchable.id, "facet")).json.facetFiltering).toEqual({ enabled: true, order: 1 });

    // Inline fields of a source are held to the same rule.
    const inline = await call("POST", "/api/sources", {
      as: as(owner),
      body: { name: `inline-facet-${Date.now()}`, fields: [nativeField("a", { name: "a", facetFiltering: { enabled: true } })] },
    });
    expectError(inline, 400, "VALIDATION_FAILED", ["body.fields[0].facetFiltering"]);
  });

  it("answers the deprecated duplicates fieldName and originalFieldName", async () => {
    const res = await post(source.id, nativeField("ORIG_NAME", { name: "dup_members", fieldName: "ignored", originalFieldName: "ignored" }));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: "dup_members", fieldName: "dup_members", originalFieldName: "ORIG_NAME" });
  });

  it("marks the deprecated duplicates in the OpenAPI document", async () => {
    const doc = await call("GET", "/api/openapi.json", { as: null });
    const props = doc.json.components.schemas.SourceField.properties;
    expect(props.fieldName.deprecated).toBe(true);
    expect(props.originalFieldName.deprecated).toBe(true);
    expect(props.name.deprecated).toBeUndefined();
  });
});
