import { beforeAll, describe, expect, it } from "vitest";
import { representationDigest } from "../../src/middleware/conditional-get";
import {
  as,
  call,
  createAccount,
  createUser,
  dbSnapshot,
  expectError,
  expectUnauthenticated,
  VENDOR_JSON,
  type TestUser,
} from "./helpers";
import { allMetrics, callCounting, createMetricSource, grant, metricPath, metricsPath, problemOf, putMetric } from "./metric-helpers";

/**
 * Custom metrics: E1 (PUT create-or-update) with every status the spec lists, its permission
 * rule, whole-resource replacement, concurrency, ETags and round trips; then the rest of the
 * set (list, POST, GET, PATCH, DELETE, validate, expression-syntax).
 */
let admin: TestUser; // account admin (Administrators group): WRITE on every source of the account
let writer: TestUser; // WRITE grant
let editor: TestUser; // READ grant + ROLE_EDIT_FORMULAS
let reader: TestUser; // READ grant alone
let formulasOnly: TestUser; // ROLE_EDIT_FORMULAS, no grant
let nobody: TestUser; // no grant, no role
let stranger: TestUser; // admin of another account
let sourceId: string;
let strangerSourceId: string;

beforeAll(async () => {
  const account = await createAccount();
  const other = await createAccount();
  [admin, writer, editor, reader, formulasOnly, nobody, stranger] = await Promise.all([
    createUser(account.id, { groups: ["Users", "Administrators"] }),
    createUser(account.id),
    createUser(account.id, { roles: ["ROLE_EDIT_FORMULAS"] }),
    createUser(account.id),
    createUser(account.id, { roles: ["ROLE_EDIT_FORMULAS"] }),
    createUser(account.id),
    createUser(other.id, { groups: ["Users", "Administrators"] }),
  ]);
  sourceId = (await createMetricSource(admin)).id;
  strangerSourceId = (await createMetricSource(stranger)).id;
  await grant(admin, sourceId, [
    { user: writer, permission: "WRITE" },
    { user: editor, permission: "READ" },
    { user: reader, permission: "READ" },
  ]);
});

const EXPECTED_METRIC_KEYS = ["name", "label", "visible", "expression", "dataType", "createdByUserID", "createdDate", "lastModifiedByUserID", "lastModifiedDate"];

describe("E1 PUT /api/sources/{sourceId}/custom-metrics/{customMetricName}: statuses", () => {
  it("201 creates a metric, with its ETag, and answers the CustomMetric", async () => {
    const res = await putMetric(admin, sourceId, "revenue", { expression: "sum(price)" });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expect(res.json).toMatchObject({ name: "revenue", label: "revenue", visible: true, expression: "sum(price)", dataType: "NUMBER", createdByUserID: admin.id });
    expect(Object.keys(res.json).sort()).toEqual([...EXPECTED_METRIC_KEYS].sort());

    const got = await call("GET", metricPath(sourceId, "revenue"), { as: as(admin) });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);
    expect(got.headers.get("ETag")).toBe(res.headers.get("ETag"));
  });

  it("200 updates an existing metric and changes its ETag", async () => {
    const created = await putMetric(admin, sourceId, "updated_one", { expression: "sum(price)" });
    expect(created.status).toBe(201);
    const res = await putMetric(admin, sourceId, "updated_one", { expression: "sum(qty)", label: "Units" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: "updated_one", label: "Units", expression: "sum(qty)", dataType: "INTEGER" });
    expect(res.json.createdDate).toBe(created.json.createdDate);
    expect(res.headers.get("ETag")).not.toBe(created.headers.get("ETag"));
    const got = await call("GET", metricPath(sourceId, "updated_one"), { as: as(admin) });
    expect(got.json).toEqual(res.json);
  });

  it("400 for a syntax error: ErrorMessage whose problem is body.expression with line and column", async () => {
    const res = await putMetric(admin, sourceId, "broken", { expression: "sum(price" });
    const body = expectError(res, 400, "VALIDATION_FAILED", ["body.expression"]);
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.message).toMatch(/line 1, column \d+/);
    expect(problemOf(res, "body.expression").message).toMatch(/line 1, column 10/);

    const multiline = await putMetric(admin, sourceId, "broken", { expression: "sum(price)\n  + )" });
    expectError(multiline, 400, "VALIDATION_FAILED", ["body.expression"]);
    expect(multiline.json.message).toContain("line 2, column 5");
    expect((await call("GET", metricPath(sourceId, "broken"), { as: as(admin) })).status).toBe(404);
  });

  it("400 when the body has no expression, an empty one, or is no JSON object", async () => {
    expectError(await putMetric(admin, sourceId, "m400", {}), 400, "VALIDATION_FAILED", ["body.expression"]);
    expectError(await putMetric(admin, sourceId, "m400", { expression: "" }), 400, "VALIDATION_FAILED", ["body.expression"]);
    expectError(await putMetric(admin, sourceId, "m400", { expression: 42 }), 400, "VALIDATION_FAILED", ["body.expression"]);
    const raw = await call("PUT", metricPath(sourceId, "m400"), { as: as(admin), rawBody: "{not json", headers: { "Content-Type": VENDOR_JSON } });
    expectError(raw, 400, "MALFORMED_JSON");
    expect((await call("GET", metricPath(sourceId, "m400"), { as: as(admin) })).status).toBe(404);
  });

  it("400 for an invalid metric name in the path", async () => {
    const tooLong = "m".repeat(256);
    expectError(await putMetric(admin, sourceId, tooLong, { expression: "count(*)" }), 400, "VALIDATION_FAILED", ["path.customMetricName"]);
    expectError(await putMetric(admin, sourceId, "has space", { expression: "count(*)" }), 400, "VALIDATION_FAILED", ["path.customMetricName"]);
    const longest = "m".repeat(255);
    expect((await putMetric(admin, sourceId, longest, { expression: "count(*)" })).status).toBe(201);
  });

  it("401 without credentials or with bad ones: ServletErrorMessage with WWW-Authenticate", async () => {
    const path = metricPath(sourceId, "anon");
    const anonymous = await call("PUT", path, { as: null, body: { expression: "count(*)" } });
    expectUnauthenticated(anonymous, path);
    const wrong = await call("PUT", path, { as: { username: admin.username, password: "not the password" }, body: { expression: "count(*)" } });
    expectUnauthenticated(wrong, path);
    expect((await call("GET", path, { as: as(admin) })).status).toBe(404);
  });

  it("403 with ErrorMessage errorCode FORBIDDEN for a same-account user without the permission", async () => {
    const res = await putMetric(nobody, sourceId, "forbidden_metric", { expression: "count(*)" });
    const body = expectError(res, 403, "FORBIDDEN");
    expect(body.code).toBe("FORBIDDEN");
    expect(body.message).toMatch(/WRITE|ROLE_EDIT_FORMULAS/);
  });

  it("404 for a source that does not exist", async () => {
    const res = await putMetric(admin, "no-such-source", "m", { expression: "count(*)" });
    const body = expectError(res, 404, "NOT_FOUND");
    expect(body.code).toBe("NOT_FOUND");
  });

  it("404, never 403, for another account's source, whoever asks in the caller's account", async () => {
    for (const user of [admin, writer, editor, nobody]) {
      const res = await putMetric(user, strangerSourceId, "m", { expression: "count(*)" });
      expectError(res, 404, "NOT_FOUND");
      const missing = await putMetric(user, crypto.randomUUID(), "m", { expression: "count(*)" });
      // Indistinguishable from a missing id.
      expect(missing.json.message).toBe(res.json.message);
    }
    const list = await call("GET", metricsPath(strangerSourceId), { as: as(admin) });
    expectError(list, 404, "NOT_FOUND");
    expectError(await call("POST", metricsPath(strangerSourceId), { as: as(admin), body: { name: "m", expression: "count(*)" } }), 404, "NOT_FOUND");
    expectError(await call("PATCH", metricPath(strangerSourceId, "Volume"), { as: as(admin), body: { visible: false } }), 404, "NOT_FOUND");
    expectError(await call("DELETE", metricPath(strangerSourceId, "Volume"), { as: as(admin) }), 404, "NOT_FOUND");
    const stillThere = await allMetrics(stranger, strangerSourceId);
    expect(stillThere.map((m) => m.name)).toEqual(["Volume"]);
  });
});

describe("E1 permission rule: WRITE, or READ plus ROLE_EDIT_FORMULAS", () => {
  it("WRITE grant: allowed to create and update", async () => {
    expect((await putMetric(writer, sourceId, "by_writer", { expression: "count(*)" })).status).toBe(201);
    expect((await putMetric(writer, sourceId, "by_writer", { expression: "count(*) + 1" })).status).toBe(200);
  });

  it("READ grant + ROLE_EDIT_FORMULAS: allowed to create and update", async () => {
    const created = await putMetric(editor, sourceId, "by_editor", { expression: "avg(price)" });
    expect(created.status, created.text).toBe(201);
    expect(created.json.createdByUserID).toBe(editor.id);
    expect((await putMetric(editor, sourceId, "by_editor", { expression: "max(price)" })).status).toBe(200);
  });

  it("READ grant alone: 403, and the metric is not created", async () => {
    expectError(await putMetric(reader, sourceId, "by_reader", { expression: "count(*)" }), 403, "FORBIDDEN");
    // It may still read the metrics.
    expect((await call("GET", metricsPath(sourceId), { as: as(reader) })).status).toBe(200);
    expect((await call("GET", metricPath(sourceId, "by_reader"), { as: as(admin) })).status).toBe(404);
  });

  it("no grant: 403 even with ROLE_EDIT_FORMULAS, and for an existing metric too", async () => {
    expectError(await putMetric(formulasOnly, sourceId, "by_formulas_only", { expression: "count(*)" }), 403, "FORBIDDEN");
    expectError(await putMetric(formulasOnly, sourceId, "Volume", { expression: "count(*)" }), 403, "FORBIDDEN");
    expectError(await putMetric(nobody, sourceId, "Volume", { expression: "count(*)" }), 403, "FORBIDDEN");
    expect((await call("GET", metricPath(sourceId, "by_formulas_only"), { as: as(admin) })).status).toBe(404);
  });

  it("the same rule guards POST, PATCH and DELETE; READ is enough to list, GET and validate", async () => {
    await putMetric(admin, sourceId, "guarded", { expression: "count(*)" });
    for (const user of [reader, formulasOnly]) {
      expectError(await call("POST", metricsPath(sourceId), { as: as(user), body: { name: "p_guarded", expression: "count(*)" } }), 403, "FORBIDDEN");
      expectError(await call("PATCH", metricPath(sourceId, "guarded"), { as: as(user), body: { visible: false } }), 403, "FORBIDDEN");
      expectError(await call("DELETE", metricPath(sourceId, "guarded"), { as: as(user) }), 403, "FORBIDDEN");
    }
    expect((await call("GET", metricPath(sourceId, "guarded"), { as: as(reader) })).status).toBe(200);
    expect((await call("POST", `${metricsPath(sourceId)}/validate`, { as: as(reader), body: { expression: "count(*)" } })).status).toBe(200);
    expectError(await call("GET", metricPath(sourceId, "guarded"), { as: as(formulasOnly) }), 403, "FORBIDDEN");

    const patched = await call("PATCH", metricPath(sourceId, "guarded"), { as: as(editor), body: { visible: false } });
    expect(patched.status).toBe(200);
    expect((await call("DELETE", metricPath(sourceId, "guarded"), { as: as(editor) })).status).toBe(204);
  });
});

describe("E1 replaces the whole metric", () => {
  it("omitted members return to their defaults", async () => {
    const full = {
      label: "Average price",
      visible: false,
      numberFormat: { type: "CURRENCY", decimals: 2, currencyCode: "EUR", separator: true, negative: "PARENTHESIZED" },
      timeFormat: { timeZone: "Europe/Paris", options: { weekday: "LONG" } },
      granularity: "DAY",
      expression: "avg(price)",
    };
    const created = await putMetric(admin, sourceId, "replaced", full);
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ ...full, name: "replaced", dataType: "NUMBER" });

    const replaced = await putMetric(admin, sourceId, "replaced", { expression: "avg(price)" });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ name: "replaced", label: "replaced", visible: true, expression: "avg(price)", dataType: "NUMBER" });
    for (const gone of ["numberFormat", "timeFormat", "granularity"]) expect(replaced.json).not.toHaveProperty(gone);
    const got = await call("GET", metricPath(sourceId, "replaced"), { as: as(admin) });
    expect(got.json).toEqual(replaced.json);
  });

  it("a body name equal to the path is accepted; a different one is a 400 that changes nothing", async () => {
    expect((await putMetric(admin, sourceId, "named", { name: "named", expression: "count(*)" })).status).toBe(201);
    const before = await dbSnapshot();
    const res = await putMetric(admin, sourceId, "named", { name: "renamed", expression: "count(*)" });
    expectError(res, 400, "VALIDATION_FAILED", ["body.name"]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", metricPath(sourceId, "renamed"), { as: as(admin) })).status).toBe(404);
  });

  it("a name taken by a field of the source: 400 DUPLICATED, the field unchanged", async () => {
    const before = await dbSnapshot();
    const res = await putMetric(admin, sourceId, "price", { expression: "count(*)" });
    const body = expectError(res, 400, "DUPLICATED");
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.message).toContain("price");
    expect(await dbSnapshot()).toEqual(before);
    const field = await call("GET", `/api/sources/${sourceId}/fields/price`, { as: as(admin) });
    expect(field.status).toBe(200);
    expect(field.json.dataType).toBe("NUMBER");
  });

  it("names are case-sensitive: 'Price' is free while 'price' is a field", async () => {
    const res = await putMetric(admin, sourceId, "Price", { expression: "sum(price)" });
    expect(res.status, res.text).toBe(201);
  });

  it("updating the built-in Volume metric works like any other", async () => {
    const res = await putMetric(admin, sourceId, "Volume", { expression: "count(*)", label: "Rows" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "Volume", label: "Rows", dataType: "INTEGER" });
    expect((await putMetric(admin, sourceId, "Volume", { expression: "count(*)" })).json.label).toBe("Volume");
  });

  it("a metric's type cannot change while another metric uses it", async () => {
    await putMetric(admin, sourceId, "base_t", { expression: "sum(qty)" });
    await putMetric(admin, sourceId, "user_t", { expression: "base_t * 2" });
    const before = await dbSnapshot();
    const res = await putMetric(admin, sourceId, "base_t", { expression: "max(carrier)" });
    expectError(res, 400, "VALIDATION_FAILED");
    expect(res.json.problems[0].dependencies.base_t.accessible.map((a: any) => a.name)).toEqual(["user_t"]);
    expect(await dbSnapshot()).toEqual(before);
    // The same type is fine.
    expect((await putMetric(admin, sourceId, "base_t", { expression: "sum(qty) + 1" })).status).toBe(200);
  });
});

describe("concurrency and ETags", () => {
  it("two simultaneous PUTs that both create one new metric: one 201, one 200, one row", async () => {
    for (let round = 0; round < 5; round++) {
      const name = `racy_${round}`;
      const results = await Promise.all([
        putMetric(admin, sourceId, name, { expression: "sum(price)", label: "first" }),
        putMetric(writer, sourceId, name, { expression: "sum(qty)", label: "second" }),
      ]);
      for (const r of results) expect(r.status, r.text).toBeLessThan(500);
      expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
      const rows = (await allMetrics(admin, sourceId)).filter((m) => m.name === name);
      expect(rows).toHaveLength(1);
      // The update (200) was applied last: its body is what is stored.
      const updated = results.find((r) => r.status === 200)!;
      expect(rows[0]).toEqual(updated.json);
    }
  });

  it("many simultaneous PUTs of one new metric: exactly one 201, never a 500 or a second row", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => putMetric(i % 2 ? writer : admin, sourceId, "stampede", { expression: `count(*) + ${i}` })),
    );
    for (const r of results) expect(r.status, r.text).toBeLessThan(500);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results) expect([200, 201, 412]).toContain(r.status);
    expect((await allMetrics(admin, sourceId)).filter((m) => m.name === "stampede")).toHaveLength(1);
  });

  it("simultaneous POSTs of one name: one 201, the other 400 DUPLICATED", async () => {
    const results = await Promise.all(
      [admin, writer].map((u) => call("POST", metricsPath(sourceId), { as: as(u), body: { name: "posted_twice", expression: "count(*)" } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.status === 400)!.json.errorCode).toBe("DUPLICATED");
    expect((await allMetrics(admin, sourceId)).filter((m) => m.name === "posted_twice")).toHaveLength(1);
  });

  it("two simultaneous updates that would each be fine alone cannot close a cycle", async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [`loop_a${round}`, `loop_b${round}`];
      await putMetric(admin, sourceId, a, { expression: "sum(price)" });
      await putMetric(admin, sourceId, b, { expression: "sum(qty)" });
      const results = await Promise.all([
        putMetric(admin, sourceId, a, { expression: `${b} * 2` }),
        putMetric(writer, sourceId, b, { expression: `${a} * 2` }),
      ]);
      expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join("\n")).toEqual([200, 400]);
      expect(problemOf(results.find((r) => r.status === 400)!, "body.expression").message).toMatch(/cycle/);
      const stored = await Promise.all([a, b].map(async (n) => (await call("GET", metricPath(sourceId, n), { as: as(admin) })).json.expression));
      // Exactly one of them now references the other.
      expect(stored.filter((e: string) => e.includes("loop_"))).toHaveLength(1);
    }
  });

  it("a metric cannot change type while another starts to use it at the same time", async () => {
    for (let round = 0; round < 5; round++) {
      const [base, user] = [`typed_base${round}`, `typed_user${round}`];
      await putMetric(admin, sourceId, base, { expression: "sum(qty)" });
      const [changed, created] = await Promise.all([
        putMetric(admin, sourceId, base, { expression: "max(carrier)" }),
        putMetric(writer, sourceId, user, { expression: `${base} * 2` }),
      ]);
      expect([changed.status, created.status], `${changed.text}\n${created.text}`).not.toEqual([200, 201]);
      for (const r of [changed, created]) expect(r.status, r.text).toBeLessThan(500);
      const baseNow = (await call("GET", metricPath(sourceId, base), { as: as(admin) })).json;
      const userNow = await call("GET", metricPath(sourceId, user), { as: as(admin) });
      if (userNow.status === 200) expect(baseNow.dataType).toBe("INTEGER");
      else expect(baseNow.dataType).toBe("ATTRIBUTE");
    }
  });

  it("If-Match with the ETag of a 201 or 200 works; a stale one is 412 and changes nothing", async () => {
    const created = await putMetric(admin, sourceId, "etagged", { expression: "sum(price)" });
    expect(created.status).toBe(201);
    const firstTag = created.headers.get("ETag")!;

    const updated = await putMetric(admin, sourceId, "etagged", { expression: "sum(qty)" }, { "If-Match": firstTag });
    expect(updated.status, updated.text).toBe(200);
    const secondTag = updated.headers.get("ETag")!;
    expect(secondTag).not.toBe(firstTag);

    const before = await dbSnapshot();
    const stale = await putMetric(admin, sourceId, "etagged", { expression: "avg(price)" }, { "If-Match": firstTag });
    expectError(stale, 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", metricPath(sourceId, "etagged"), { as: as(admin) })).json.expression).toBe("sum(qty)");

    // If-Match compares strongly: the weak form of the current tag does not match.
    expectError(await putMetric(admin, sourceId, "etagged", { expression: "avg(price)" }, { "If-Match": `W/${secondTag}` }), 412, "PRECONDITION_FAILED");

    const again = await putMetric(admin, sourceId, "etagged", { expression: "avg(price)" }, { "If-Match": secondTag });
    expect(again.status).toBe(200);
    const got = await call("GET", metricPath(sourceId, "etagged"), { as: as(admin) });
    expect(got.headers.get("ETag")).toBe(again.headers.get("ETag"));

    // PATCH and DELETE honour If-Match too.
    expectError(await call("PATCH", metricPath(sourceId, "etagged"), { as: as(admin), body: { visible: false }, headers: { "If-Match": secondTag } }), 412, "PRECONDITION_FAILED");
    expectError(await call("DELETE", metricPath(sourceId, "etagged"), { as: as(admin), headers: { "If-Match": secondTag } }), 412, "PRECONDITION_FAILED");
    const patched = await call("PATCH", metricPath(sourceId, "etagged"), { as: as(admin), body: { visible: false }, headers: { "If-Match": again.headers.get("ETag")! } });
    expect(patched.status).toBe(200);
    expect((await call("DELETE", metricPath(sourceId, "etagged"), { as: as(admin), headers: { "If-Match": patched.headers.get("ETag")! } })).status).toBe(204);
  });

  it("If-Match on a metric that does not exist is 412 and creates nothing; If-Match: * needs no match", async () => {
    const before = await dbSnapshot();
    const res = await putMetric(admin, sourceId, "never_existed", { expression: "count(*)" }, { "If-Match": '"0123456789abcdef"' });
    expectError(res, 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    await putMetric(admin, sourceId, "star_matched", { expression: "count(*)" });
    expect((await putMetric(admin, sourceId, "star_matched", { expression: "count(*) * 2" }, { "If-Match": "*" })).status).toBe(200);
  });
});

describe("D1 round trips", () => {
  it("an E1 update by a user whose credential cache is warm costs at most 2 round trips", async () => {
    await putMetric(writer, sourceId, "cheap", { expression: "sum(price)" });
    // Warm this isolate's credential cache for the user.
    await callCounting("GET", metricPath(sourceId, "cheap"), { as: as(writer) });
    const res = await callCounting("PUT", metricPath(sourceId, "cheap"), { as: as(writer), body: { expression: "sum(price) / Volume", label: "Avg" } });
    expect(res.status, res.text).toBe(200);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
    const created = await callCounting("PUT", metricPath(sourceId, "cheap_new"), { as: as(writer), body: { expression: "cheap * 2" } });
    expect(created.status, created.text).toBe(201);
    expect(created.roundTrips).toBeLessThanOrEqual(2);
    const rejected = await callCounting("PUT", metricPath(sourceId, "cheap"), { as: as(writer), body: { expression: "sum(" } });
    expect(rejected.status).toBe(400);
    expect(rejected.roundTrips).toBe(0);
  });
});

describe("the rest of the set", () => {
  let listSource: string;

  beforeAll(async () => {
    listSource = (await createMetricSource(admin)).id;
    await grant(admin, listSource, [
      { user: writer, permission: "WRITE" },
      { user: editor, permission: "READ" },
      { user: reader, permission: "READ" },
    ]);
    for (const name of ["m_c", "m_a", "m_e", "m_b", "m_d"]) {
      const res = await putMetric(admin, listSource, name, { expression: "count(*)" });
      if (res.status !== 201) throw new Error(res.text);
    }
  });

  it("a new source has exactly the metric Volume = count(*)", async () => {
    const fresh = await createMetricSource(admin);
    const res = await call("GET", metricsPath(fresh.id), { as: as(admin) });
    expect(res.status).toBe(200);
    expect(res.json.content).toHaveLength(1);
    expect(res.json.content[0]).toMatchObject({ name: "Volume", label: "Volume", visible: true, expression: "count(*)", dataType: "INTEGER" });
    expect(res.json.pageInfo).toEqual({ nextPageToken: null, previousPageToken: null });
  });

  it("lists paged by name with maxResults and pageToken, forward and back", async () => {
    const first = await call("GET", `${metricsPath(listSource)}?maxResults=2`, { as: as(reader) });
    expect(first.status).toBe(200);
    // Volume sorts before the lower-case names (binary order).
    expect(first.json.content.map((m: any) => m.name)).toEqual(["Volume", "m_a"]);
    expect(first.json.pageInfo.previousPageToken).toBeNull();
    const second = await call("GET", `${metricsPath(listSource)}?maxResults=2&pageToken=${encodeURIComponent(first.json.pageInfo.nextPageToken)}`, { as: as(reader) });
    expect(second.json.content.map((m: any) => m.name)).toEqual(["m_b", "m_c"]);
    const third = await call("GET", `${metricsPath(listSource)}?maxResults=2&pageToken=${encodeURIComponent(second.json.pageInfo.nextPageToken)}`, { as: as(reader) });
    expect(third.json.content.map((m: any) => m.name)).toEqual(["m_d", "m_e"]);
    expect(third.json.pageInfo.nextPageToken).toBeNull();
    const back = await call("GET", `${metricsPath(listSource)}?maxResults=2&pageToken=${encodeURIComponent(third.json.pageInfo.previousPageToken)}`, { as: as(reader) });
    expect(back.json.content.map((m: any) => m.name)).toEqual(["m_b", "m_c"]);
    // Only metrics: no field appears.
    const all = await call("GET", metricsPath(listSource), { as: as(reader) });
    expect(all.json.content.map((m: any) => m.name)).toEqual(["Volume", "m_a", "m_b", "m_c", "m_d", "m_e"]);
  });

  it("rejects bad paging parameters with 400", async () => {
    expectError(await call("GET", `${metricsPath(listSource)}?maxResults=0`, { as: as(admin) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
    expectError(await call("GET", `${metricsPath(listSource)}?maxResults=1001`, { as: as(admin) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
    expectError(await call("GET", `${metricsPath(listSource)}?maxResults=abc`, { as: as(admin) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
    expectError(await call("GET", `${metricsPath(listSource)}?pageToken=forged`, { as: as(admin) }), 400, "INVALID_PAGE_TOKEN");
    expectError(await call("GET", metricsPath(listSource), { as: as(nobody) }), 403, "FORBIDDEN");
    expectError(await call("GET", metricsPath("missing-source"), { as: as(admin) }), 404, "NOT_FOUND");
  });

  it("POST creates (201 with Location and ETag); a taken name is 400 DUPLICATED", async () => {
    const res = await call("POST", metricsPath(listSource), { as: as(writer), body: { name: "posted", expression: "sum(price)", label: "Posted" } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("Location")).toBe(metricPath(listSource, "posted"));
    expect(res.headers.get("ETag")).toMatch(/^".+"$/);
    expect(res.json).toMatchObject({ name: "posted", label: "Posted", visible: true, dataType: "NUMBER" });

    const before = await dbSnapshot();
    for (const name of ["posted", "Volume", "price"]) {
      const dup = await call("POST", metricsPath(listSource), { as: as(writer), body: { name, expression: "count(*)" } });
      const body = expectError(dup, 400, "DUPLICATED");
      expect(body.message).toContain(name);
    }
    expect(await dbSnapshot()).toEqual(before);
    expectError(await call("POST", metricsPath(listSource), { as: as(writer), body: { expression: "count(*)" } }), 400, "VALIDATION_FAILED", ["body.name"]);
    expectError(await call("POST", metricsPath(listSource), { as: as(writer), body: { name: "1bad", expression: "count(*)" } }), 400, "VALIDATION_FAILED", ["body.name"]);
  });

  it("GET one: 200, and 404 for an unknown metric or a field's name", async () => {
    const res = await call("GET", metricPath(listSource, "m_a"), { as: as(reader) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "m_a", expression: "count(*)", dataType: "INTEGER" });
    expectError(await call("GET", metricPath(listSource, "unknown_metric"), { as: as(reader) }), 404, "NOT_FOUND");
    expectError(await call("GET", metricPath(listSource, "price"), { as: as(reader) }), 404, "NOT_FOUND");
    expectError(await call("GET", metricPath(strangerSourceId, "Volume"), { as: as(admin) }), 404, "NOT_FOUND");
  });

  it("PATCH {visible} changes only visibility", async () => {
    await putMetric(admin, listSource, "hideable", { expression: "sum(price)", label: "Hide me", numberFormat: { type: "PLAIN" } });
    const res = await call("PATCH", metricPath(listSource, "hideable"), { as: as(writer), body: { visible: false } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: "hideable", visible: false, label: "Hide me", numberFormat: { type: "PLAIN" }, expression: "sum(price)" });
    expect(res.headers.get("ETag")).toMatch(/^".+"$/);
    expect((await call("GET", metricPath(listSource, "hideable"), { as: as(reader) })).json.visible).toBe(false);
    expect((await call("PATCH", metricPath(listSource, "hideable"), { as: as(writer), body: { visible: true } })).json.visible).toBe(true);

    expectError(await call("PATCH", metricPath(listSource, "hideable"), { as: as(writer), body: {} }), 400, "VALIDATION_FAILED", ["body.visible"]);
    expectError(await call("PATCH", metricPath(listSource, "hideable"), { as: as(writer), body: { visible: "no" } }), 400, "VALIDATION_FAILED", ["body.visible"]);
    expectError(await call("PATCH", metricPath(listSource, "nope"), { as: as(writer), body: { visible: false } }), 404, "NOT_FOUND");
    // A field is not a custom metric.
    expectError(await call("PATCH", metricPath(listSource, "price"), { as: as(writer), body: { visible: false } }), 404, "NOT_FOUND");
  });

  it("DELETE: 204; 400 with dependencies while another metric uses it; 404 when unknown", async () => {
    await putMetric(admin, listSource, "used", { expression: "sum(price)" });
    const user = await putMetric(admin, listSource, "user_of_used", { expression: "used / Volume" });
    expect(user.status, user.text).toBe(201);

    const before = await dbSnapshot();
    const refused = await call("DELETE", metricPath(listSource, "used"), { as: as(admin) });
    const body = expectError(refused, 400, "VALIDATION_FAILED");
    expect(body.problems).toHaveLength(1);
    expect(body.problems[0]).toMatchObject({ name: "used", level: "ERROR" });
    expect(body.problems[0].dependencies).toEqual({
      used: { hasOtherUsages: false, accessible: [{ id: expect.any(String), name: "user_of_used", type: "CUSTOM_METRIC" }] },
    });
    expect(await dbSnapshot()).toEqual(before);

    // Volume is used too now.
    expectError(await call("DELETE", metricPath(listSource, "Volume"), { as: as(admin) }), 400, "VALIDATION_FAILED");

    const deleted = await call("DELETE", metricPath(listSource, "user_of_used"), { as: as(writer) });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await call("DELETE", metricPath(listSource, "used"), { as: as(writer) })).status).toBe(204);
    expectError(await call("GET", metricPath(listSource, "used"), { as: as(admin) }), 404, "NOT_FOUND");
    expectError(await call("DELETE", metricPath(listSource, "used"), { as: as(writer) }), 404, "NOT_FOUND");
    // The name is free again.
    expect((await putMetric(admin, listSource, "used", { expression: "count(*)" })).status).toBe(201);
    // A field cannot be deleted through the metric endpoint.
    expectError(await call("DELETE", metricPath(listSource, "price"), { as: as(admin) }), 404, "NOT_FOUND");
  });

  it("a field used by a metric cannot be deleted; the dependency names the metric", async () => {
    await putMetric(admin, listSource, "on_qty", { expression: "sum(qty)" });
    const res = await call("DELETE", `/api/sources/${listSource}/fields/qty`, { as: as(admin) });
    const body = expectError(res, 400, "VALIDATION_FAILED");
    expect(body.problems[0].dependencies.qty.accessible).toEqual([{ id: expect.any(String), name: "on_qty", type: "CUSTOM_METRIC" }]);
  });

  it("POST .../custom-metrics/validate answers {valid, dataType, referencedFields, error}", async () => {
    const path = `${metricsPath(listSource)}/validate`;
    const ok = await call("POST", path, { as: as(reader), body: { expression: "sum(price) / Volume + COUNTD(carrier)" } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ valid: true, dataType: "NUMBER", referencedFields: ["price", "carrier"], error: { type: "NONE", message: null, syntaxError: null } });

    const syntax = await call("POST", path, { as: as(reader), body: { expression: "sum(price) +\n  * 2" } });
    expect(syntax.status).toBe(200);
    expect(syntax.json).toMatchObject({ valid: false, dataType: null, referencedFields: [], error: { type: "SYNTAX", syntaxError: { line: 2, column: 3 } } });
    expect(syntax.json.error.message).toEqual(expect.any(String));

    const validation = await call("POST", path, { as: as(reader), body: { expression: "sum(prize)" } });
    expect(validation.json).toMatchObject({ valid: false, dataType: null, error: { type: "VALIDATION", syntaxError: { line: 1, column: 5 } } });
    expect(validation.json.error.message).toContain("prize");

    const empty = await call("POST", path, { as: as(reader), body: { expression: "" } });
    expect(empty.json).toMatchObject({ valid: false, error: { type: "SYNTAX" } });

    const types = await call("POST", path, { as: as(reader), body: { expression: "max(carrier)" } });
    expect(types.json).toMatchObject({ valid: true, dataType: "ATTRIBUTE", referencedFields: ["carrier"] });

    // Validation writes nothing.
    const before = await dbSnapshot();
    await call("POST", path, { as: as(reader), body: { expression: "count(*)" } });
    expect(await dbSnapshot()).toEqual(before);

    expectError(await call("POST", path, { as: as(reader), body: {} }), 400, "VALIDATION_FAILED", ["body.expression"]);
    expectError(await call("POST", path, { as: as(nobody), body: { expression: "count(*)" } }), 403, "FORBIDDEN");
    expectError(await call("POST", `${metricsPath(strangerSourceId)}/validate`, { as: as(admin), body: { expression: "count(*)" } }), 404, "NOT_FOUND");
  });

  it("GET /api/sources/{id}/expression-syntax lists every function with name, category, arguments and returnType", async () => {
    const res = await call("GET", `/api/sources/${listSource}/expression-syntax`, { as: as(reader) });
    expect(res.status).toBe(200);
    // Made once per isolate (lib/constant-answer.ts), tagged as conditional GET tags any answer, per media type.
    const etag = res.headers.get("ETag")!;
    expect(etag).toBe(`"${await representationDigest(new TextEncoder().encode(res.text), res.headers.get("Content-Type")!)}"`);
    const asJson = await call("GET", `/api/sources/${listSource}/expression-syntax`, { as: as(reader), headers: { Accept: "application/json" } });
    expect([asJson.headers.get("Content-Type"), asJson.text]).toEqual(["application/json", res.text]);
    expect(asJson.headers.get("ETag")).not.toBe(etag);
    expect((await call("GET", `/api/sources/${listSource}/expression-syntax`, { as: as(reader), headers: { "If-None-Match": etag } })).status).toBe(304);
    const functions = res.json.functions as any[];
    expect(Array.isArray(functions)).toBe(true);
    for (const f of functions) {
      expect(f).toMatchObject({ name: expect.any(String), category: expect.any(String), arguments: expect.any(Array), returnType: expect.any(String) });
      for (const a of f.arguments) expect(a).toMatchObject({ name: expect.any(String), types: expect.any(Array) });
    }
    const names = functions.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const documented = [
      "SUM", "AVG", "COUNT", "COUNTD", "MIN", "MAX", "MEDIAN", "FIRST_VALUE", "LAST_VALUE", "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP",
      "COALESCE", "POWER", "MOD", "SQRT", "LN", "LOG10", "EXP", "CEIL", "FLOOR", "ROUND", "SIGN", "SIN", "COS", "TAN", "COT", "ASIN", "ACOS",
      "ATAN", "PI", "DEGREES", "RADIANS", "CONCAT", "LENGTH", "LOCATE", "LOWER", "UPPER", "LPAD", "RPAD", "LTRIM", "RTRIM", "SUBSTRING",
      "TEXT_TO_NUM", "NUM_TO_TEXT", "EXTRACT", "NOW", "TIME_ADD", "TIME_DIFF", "TRUNCATE_TIME", "TIME_TO_UNIX_TIME", "UNIX_TIME_TO_TIME",
    ];
    for (const name of documented) expect(names).toContain(name);
    const sum = functions.find((f) => f.name === "SUM");
    expect(sum.category).toBe("AGGREGATE");
    expect(functions.find((f) => f.name === "COUNTD").returnType).toBe("INTEGER");
    expect(functions.find((f) => f.name === "EXTRACT").arguments.map((a: any) => a.name)).toEqual(["unit", "time"]);

    // Every listed function is recognised by the checker: none answers "not supported".
    for (const name of names) {
      const v = await call("POST", `${metricsPath(listSource)}/validate`, { as: as(reader), body: { expression: `${name}()` } });
      expect(v.status).toBe(200);
      expect(v.json.error.message ?? "").not.toMatch(/not supported/);
    }

    expectError(await call("GET", `/api/sources/${listSource}/expression-syntax`, { as: as(nobody) }), 403, "FORBIDDEN");
    expectError(await call("GET", `/api/sources/${strangerSourceId}/expression-syntax`, { as: as(admin) }), 404, "NOT_FOUND");
    expectUnauthenticated(await call("GET", `/api/sources/${listSource}/expression-syntax`, { as: null }), `/api/sources/${listSource}/expression-syntax`);
  });

  it("deleting the source takes its metrics with it", async () => {
    const doomed = await createMetricSource(admin);
    await putMetric(admin, doomed.id, "a1", { expression: "sum(price)" });
    await putMetric(admin, doomed.id, "a2", { expression: "a1 * 2" });
    expect((await call("DELETE", `/api/sources/${doomed.id}`, { as: as(admin) })).status).toBe(204);
    expectError(await call("GET", metricsPath(doomed.id), { as: as(admin) }), 404, "NOT_FOUND");
    expectError(await putMetric(admin, doomed.id, "a1", { expression: "count(*)" }), 404, "NOT_FOUND");
  });
});

describe("the OpenAPI document", () => {
  let doc: any;
  beforeAll(async () => {
    const res = await call("GET", "/api/openapi.json", { as: null });
    expect(res.status).toBe(200);
    doc = res.json;
  });

  it("marks CustomMetric.granularity deprecated", () => {
    expect(doc.components.schemas.CustomMetric.properties.granularity.deprecated).toBe(true);
    expect(doc.components.schemas.CustomMetric.required).toEqual(expect.arrayContaining(["name", "expression", "dataType"]));
  });

  it("lists 200, 201, 400, 401, 403 and 404 for E1, with DUPLICATED under 400", () => {
    const op = doc.paths["/api/sources/{sourceId}/custom-metrics/{customMetricName}"].put;
    expect(op).toBeDefined();
    for (const status of ["200", "201", "400", "401", "403", "404"]) expect(op.responses).toHaveProperty(status);
    expect(op.responses["400"]["x-error-codes"]).toEqual(expect.arrayContaining(["DUPLICATED", "VALIDATION_FAILED"]));
    expect(op.responses["403"]["x-error-codes"]).toContain("FORBIDDEN");
    expect(op.responses["404"]["x-error-codes"]).toContain("NOT_FOUND");
    // Its only 409 is a move's (docs/sharding.md): a duplicate is a 400, as the reference product answers.
    expect(op.responses["409"]["x-error-codes"]).toEqual(["ACCOUNT_MOVING"]);
    const schemaRef = (status: string) => JSON.stringify(Object.values(op.responses[status].content)[0]);
    expect(schemaRef("401")).toContain("ServletErrorMessage");
    for (const status of ["400", "403", "404"]) expect(schemaRef(status)).toContain("ErrorMessage");
    expect(schemaRef("400")).not.toContain("Servlet");
    const body = JSON.stringify(op.requestBody);
    expect(op.requestBody.required).toBe(true);
    expect(body).toContain("CustomMetricWrite");
    expect(doc.components.schemas.CustomMetricWrite.required).toEqual(["expression"]);
  });

  it("lists POST with DUPLICATED under 400 as well", () => {
    const op = doc.paths["/api/sources/{sourceId}/custom-metrics"].post;
    expect(op.responses["400"]["x-error-codes"]).toContain("DUPLICATED");
    expect(op.responses["409"]["x-error-codes"]).toEqual(["ACCOUNT_MOVING"]);
  });
});
