import { beforeAll, describe, expect, it } from "vitest";
import { hasLoneSurrogate } from "../../src/domain/json-hygiene";
import { as, call, createAccount, createUser, dbSnapshot, expectError, prng, type CallResult, type TestUser } from "./helpers";
import { allMetrics, createMetricSource, grant, metricPath, metricsPath, problemOf, putMetric } from "./metric-helpers";

/**
 * E1's request validation, member by member; data type detection; expression errors
 * (unknown names and functions, aggregation level, cycles); rejected writes leave the database
 * as it was; and a seeded fuzz loop proving that no input makes E1 answer a 500.
 */
let admin: TestUser;
let editor: TestUser; // READ + ROLE_EDIT_FORMULAS
let sourceId: string;

beforeAll(async () => {
  const account = await createAccount();
  [admin, editor] = await Promise.all([
    createUser(account.id, { groups: ["Users", "Administrators"] }),
    createUser(account.id, { roles: ["ROLE_EDIT_FORMULAS"] }),
  ]);
  sourceId = (await createMetricSource(admin)).id;
  await grant(admin, sourceId, [{ user: editor, permission: "READ" }]);
});

let seq = 0;
const fresh = (prefix = "v") => `${prefix}_${seq++}`;

/** PUT of a new metric whose body is `count(*)` plus `members`. */
const putWith = (members: Record<string, unknown>, name = fresh()) => putMetric(admin, sourceId, name, { expression: "count(*)", ...members });

function expectInvalid(res: CallResult, member: string) {
  expectError(res, 400, "VALIDATION_FAILED");
  expect(res.json.problems.map((p: { name: string }) => p.name), res.text).toContain(member);
  return problemOf(res, member);
}

describe("label and visible", () => {
  it("label: up to 255 characters; 256 is a 400 on body.label", async () => {
    const ok = await putWith({ label: "L".repeat(255) });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.label).toBe("L".repeat(255));
    expectInvalid(await putWith({ label: "L".repeat(256) }), "body.label");
    expectInvalid(await putWith({ label: 12 }), "body.label");
    expectInvalid(await putWith({ label: null }), "body.label");
  });

  it("label: unicode is stored as given; an empty label falls back to the name", async () => {
    const label = "Chiffre d'affaires — 売上 📈";
    const res = await putWith({ label }, "unicode_label");
    expect(res.json.label).toBe(label);
    expect((await call("GET", metricPath(sourceId, "unicode_label"), { as: as(admin) })).json.label).toBe(label);
    expect((await putWith({ label: "" }, "empty_label")).json.label).toBe("empty_label");
  });

  it("visible: a boolean", async () => {
    expect((await putWith({ visible: false })).json.visible).toBe(false);
    expectInvalid(await putWith({ visible: "false" }), "body.visible");
    expectInvalid(await putWith({ visible: 0 }), "body.visible");
  });

  it("unknown members are a 400 naming each, and nothing is stored", async () => {
    const res = await putWith({ color: "red", id: "x", source: { id: "y" } }, "with_extras");
    for (const member of ["body.color", "body.id", "body.source"]) expectInvalid(res, member);
    const got = await call("GET", metricPath(sourceId, "with_extras"), { as: as(admin) });
    expect(got.status).toBe(404);
  });
});

describe("NumberFormat", () => {
  it("accepts a full format and answers it back", async () => {
    const numberFormat = { type: "CURRENCY", decimals: 2, separator: true, negative: "PARENTHESIZED", standardUnit: "THOUSANDS", storageUnit: "BYTES", currencyCode: "USD" };
    const res = await putWith({ numberFormat });
    expect(res.status, res.text).toBe(201);
    expect(res.json.numberFormat).toEqual(numberFormat);
  });

  it("every type of the enum is accepted; another is a 400 on body.numberFormat.type", async () => {
    for (const type of ["PLAIN", "CURRENCY", "PERCENTAGE", "COMPUTER_STORAGE", "SCIENTIFIC_NOTATION", "RATIO"]) {
      const res = await putWith({ numberFormat: { type } });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
    }
    expectInvalid(await putWith({ numberFormat: { type: "MONEY" } }), "body.numberFormat.type");
    expectInvalid(await putWith({ numberFormat: { type: "plain" } }), "body.numberFormat.type");
  });

  it("type is required", async () => {
    expectInvalid(await putWith({ numberFormat: {} }), "body.numberFormat.type");
    expectInvalid(await putWith({ numberFormat: { decimals: 2 } }), "body.numberFormat.type");
    expectInvalid(await putWith({ numberFormat: "PLAIN" }), "body.numberFormat");
  });

  it("decimals: an integer from 0 to 9", async () => {
    for (const decimals of [0, 9]) expect((await putWith({ numberFormat: { type: "PLAIN", decimals } })).status).toBe(201);
    for (const decimals of [10, -1, 1.5, "2", 1e9]) {
      expectInvalid(await putWith({ numberFormat: { type: "PLAIN", decimals } }), "body.numberFormat.decimals");
    }
  });

  it("negative, standardUnit, storageUnit: their value sets only", async () => {
    for (const negative of ["SIGNED", "PARENTHESIZED"]) expect((await putWith({ numberFormat: { type: "PLAIN", negative } })).status).toBe(201);
    for (const standardUnit of ["NONE", "THOUSANDS", "MILLIONS", "BILLIONS", "TRILLIONS"]) {
      expect((await putWith({ numberFormat: { type: "PLAIN", standardUnit } })).status).toBe(201);
    }
    for (const storageUnit of ["BYTES", "KILOBYTES", "MEGABYTES", "GIGABYTES", "TERABYTES", "PETABYTES", "EXABYTES"]) {
      expect((await putWith({ numberFormat: { type: "COMPUTER_STORAGE", storageUnit } })).status).toBe(201);
    }
    expectInvalid(await putWith({ numberFormat: { type: "PLAIN", negative: "MINUS" } }), "body.numberFormat.negative");
    expectInvalid(await putWith({ numberFormat: { type: "PLAIN", standardUnit: "HUNDREDS" } }), "body.numberFormat.standardUnit");
    expectInvalid(await putWith({ numberFormat: { type: "PLAIN", storageUnit: "BITS" } }), "body.numberFormat.storageUnit");
    expectInvalid(await putWith({ numberFormat: { type: "PLAIN", separator: "yes" } }), "body.numberFormat.separator");
  });

  it("every invalid member is a Problem of its own", async () => {
    const res = await putWith({ numberFormat: { type: "X", decimals: 10, negative: "Y" }, label: "L".repeat(300) });
    expectError(res, 400, "VALIDATION_FAILED", ["body.numberFormat.type", "body.numberFormat.decimals", "body.numberFormat.negative", "body.label"]);
  });
});

describe("TimeFormat", () => {
  it("timeZone must be a real IANA zone", async () => {
    for (const timeZone of ["Europe/Paris", "America/New_York", "UTC", "Asia/Kolkata", "Etc/GMT+5"]) {
      const res = await putWith({ timeFormat: { timeZone } });
      expect(res.status, `${timeZone}: ${res.text}`).toBe(201);
      expect(res.json.timeFormat).toEqual({ timeZone });
    }
    // Zone names are matched without regard to case and answered in canonical form.
    const lower = await putWith({ timeFormat: { timeZone: "europe/paris" } });
    expect(lower.status, lower.text).toBe(201);
    expect(lower.json.timeFormat).toEqual({ timeZone: "Europe/Paris" });
    // UTC offsets are no IANA zones, though the runtime's Intl accepts them.
    for (const timeZone of ["Mars/Olympus", "", "Europe/Pariss", "Paris", "GMT+5", "+01:00", "-0530", "+00:00", "x".repeat(65), 1]) {
      expectInvalid(await putWith({ timeFormat: { timeZone } }), "body.timeFormat.timeZone");
    }
  });

  it("every option's value set", async () => {
    const sets: Record<string, string[]> = {
      second: ["NUMERIC", "TWO_DIGIT"],
      minute: ["NUMERIC", "TWO_DIGIT"],
      hour: ["NUMERIC", "TWO_DIGIT"],
      day: ["NUMERIC", "TWO_DIGIT", "NARROW", "SHORT", "NONE"],
      weekday: ["LONG", "SHORT", "NARROW", "NONE"],
      week: ["TWO_DIGIT", "NARROW", "RANGE", "NUMERIC", "WEEK_START", "WEEK_END", "NONE"],
      month: ["NUMERIC", "TWO_DIGIT", "LONG", "SHORT", "NARROW", "NONE"],
      quarter: ["TWO_DIGIT", "RANGE", "NARROW", "NUMERIC", "NONE"],
      year: ["NUMERIC", "TWO_DIGIT", "NARROW", "SHORT", "NONE"],
      dayOfYear: ["NUMERIC", "TWO_DIGIT", "SHORT", "NONE"],
    };
    const allValues = new Set(Object.values(sets).flat().concat(["HUGE", "LONG"]));
    for (const [option, allowed] of Object.entries(sets)) {
      // One request with every allowed value would need one metric per value: check them all.
      for (const value of allowed) {
        const res = await putWith({ timeFormat: { options: { [option]: value } } });
        expect(res.status, `${option}=${value}: ${res.text}`).toBe(201);
        expect(res.json.timeFormat.options).toEqual({ [option]: value });
      }
      for (const value of allValues) {
        if (allowed.includes(value)) continue;
        expectInvalid(await putWith({ timeFormat: { options: { [option]: value } } }), `body.timeFormat.options.${option}`);
      }
      expectInvalid(await putWith({ timeFormat: { options: { [option]: allowed[0]!.toLowerCase() } } }), `body.timeFormat.options.${option}`);
    }
  });

  it("weekday LONG is fine, HUGE is a 400; hour12 is a boolean", async () => {
    expect((await putWith({ timeFormat: { options: { weekday: "LONG" } } })).status).toBe(201);
    expectInvalid(await putWith({ timeFormat: { options: { weekday: "HUGE" } } }), "body.timeFormat.options.weekday");
    for (const hour12 of [true, false]) {
      const res = await putWith({ timeFormat: { timeZone: "Europe/Paris", options: { hour12 } } });
      expect(res.status).toBe(201);
      expect(res.json.timeFormat).toEqual({ timeZone: "Europe/Paris", options: { hour12 } });
    }
    for (const hour12 of ["true", 1, null]) expectInvalid(await putWith({ timeFormat: { options: { hour12 } } }), "body.timeFormat.options.hour12");
    expectInvalid(await putWith({ timeFormat: { options: "LONG" } }), "body.timeFormat.options");
    expectInvalid(await putWith({ timeFormat: "Europe/Paris" }), "body.timeFormat");
  });
});

describe("granularity (deprecated)", () => {
  it("accepts every listed value and answers it; anything else is a 400", async () => {
    for (const granularity of ["MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]) {
      const res = await putWith({ granularity });
      expect(res.status, `${granularity}: ${res.text}`).toBe(201);
      expect(res.json.granularity).toBe(granularity);
    }
    for (const granularity of ["FORTNIGHT", "day", "", 1]) expectInvalid(await putWith({ granularity }), "body.granularity");
  });
});

describe("dataType detection", () => {
  const cases: [string, string][] = [
    ["count(*)", "INTEGER"],
    ["sum(price)", "NUMBER"],
    ["avg(qty)", "NUMBER"],
    ["sum(qty)", "INTEGER"],
    ["max(carrier)", "ATTRIBUTE"],
    ["sum(price) / Volume", "NUMBER"],
    ["Volume * 2", "INTEGER"],
    ["countd(carrier)", "INTEGER"],
    ["max(order_date)", "TIME"],
    ["min(note)", "TEXT"],
    ["median(qty)", "NUMBER"],
    ["coalesce(sum(price), 0)", "NUMBER"],
    ["count(carrier) WHERE carrier IN ('LAX', 'ORD')", "INTEGER"],
    ["CASE WHEN sum(price) > 100 THEN 'big' ELSE 'small' END", "TEXT"],
    ["max(extract(YEAR FROM order_date))", "INTEGER"],
    ["SUM(\"price\") * 1.5", "NUMBER"],
  ];

  it.each(cases)("%s is %s", async (expression, dataType) => {
    const name = fresh("dt");
    const res = await putMetric(admin, sourceId, name, { expression });
    expect(res.status, res.text).toBe(201);
    expect(res.json.dataType).toBe(dataType);
    const validated = await call("POST", `${metricsPath(sourceId)}/validate`, { as: as(admin), body: { expression } });
    expect(validated.json).toMatchObject({ valid: true, dataType });
    // The stated type, when it matches, is fine.
    const again = await putMetric(admin, sourceId, name, { expression, dataType });
    expect(again.status, again.text).toBe(200);
  });

  it("a client dataType that contradicts the detected one is a 400 on body.dataType", async () => {
    const before = await dbSnapshot();
    const problem = expectInvalid(await putMetric(admin, sourceId, "contradicted", { expression: "sum(price)", dataType: "INTEGER" }), "body.dataType");
    expect(problem.message).toContain("NUMBER");
    expectInvalid(await putMetric(admin, sourceId, "contradicted", { expression: "count(*)", dataType: "HIERARCHY" }), "body.dataType");
    expectInvalid(await putMetric(admin, sourceId, "contradicted", { expression: "count(*)", dataType: "BOOLEAN" }), "body.dataType");
    expectInvalid(await putMetric(admin, sourceId, "contradicted", { expression: "count(*)", dataType: "integer" }), "body.dataType");
    expect(await dbSnapshot()).toEqual(before);
    const ok = await putMetric(admin, sourceId, "contradicted", { expression: "sum(price)", dataType: "NUMBER" });
    expect(ok.status).toBe(201);
  });
});

describe("expression errors", () => {
  async function rejected(expression: string, name = fresh("bad")) {
    const res = await putMetric(admin, sourceId, name, { expression });
    expectError(res, 400, "VALIDATION_FAILED", ["body.expression"]);
    expect(res.json.message).toMatch(/\(line \d+, column \d+\)$/);
    expect((await call("GET", metricPath(sourceId, name), { as: as(admin) })).status).toBe(404);
    return res.json.message as string;
  }

  it("a misspelled field: the message names it", async () => {
    expect(await rejected("sum(prise)")).toBe("Field 'prise' not found (line 1, column 5)");
    expect(await rejected("sum(price) + sum(quantity)")).toContain("'quantity'");
  });

  it("names are case-sensitive and never labels", async () => {
    expect(await rejected("sum(PRICE)")).toContain("'PRICE'");
    await putMetric(admin, sourceId, "labelled", { expression: "sum(price)", label: "Nice Label" });
    expect(await rejected('"Nice Label" * 2')).toContain("'Nice Label'");
    expect((await putMetric(admin, sourceId, fresh(), { expression: "labelled * 2" })).status).toBe(201);
  });

  it("an unknown function: Function 'FOO' not supported (the name upper-cased, as written in any case)", async () => {
    expect(await rejected("foo(price)")).toBe("Function 'FOO' not supported (line 1, column 1)");
    expect(await rejected("sum(price) + Foo(price)")).toContain("Function 'FOO' not supported");
    const validated = await call("POST", `${metricsPath(sourceId)}/validate`, { as: as(admin), body: { expression: "foo(price)" } });
    expect(validated.json).toEqual({
      valid: false,
      dataType: null,
      referencedFields: [],
      error: { type: "VALIDATION", message: "Function 'FOO' not supported", syntaxError: { line: 1, column: 1 } },
    });
  });

  it("a bare field at aggregate level must be aggregated", async () => {
    expect(await rejected("price + 1")).toContain("must be aggregated");
    expect(await rejected("sum(price) / qty")).toContain("'qty' must be aggregated");
  });

  it("other level errors: nested aggregates, row functions outside aggregates, metrics inside aggregates, conditions", async () => {
    expect(await rejected("sum(sum(price))")).toMatch(/cannot be nested/);
    expect(await rejected("upper(max(carrier))")).toMatch(/works on individual rows/);
    expect(await rejected("sum(Volume)")).toMatch(/already aggregated/);
    expect(await rejected("sum(price) > 1")).toMatch(/condition \(BOOLEAN\)/);
    expect(await rejected("sum(carrier)")).toMatch(/Argument 'value' of SUM/);
    expect(await rejected("sum(price) + 'x'")).toMatch(/needs numbers/);
  });

  it("syntax errors carry line and column", async () => {
    expect(await rejected("sum(price")).toMatch(/line 1, column 10\)$/);
    expect(await rejected("sum(price))")).toContain("Unmatched ')'");
    expect(await rejected("count(*) WHERE")).toMatch(/line 1, column 15\)$/);
    expect(await rejected("'unterminated")).toContain("Unterminated string literal");
    expect(await rejected("sum(price) % 2")).toContain("MOD");
    expect(await rejected("\n\n   @")).toMatch(/line 3, column 4\)$/);
  });

  it("a cycle between metrics is a 400 that names it, and changes nothing", async () => {
    expect((await putMetric(admin, sourceId, "cyc_a", { expression: "sum(price)" })).status).toBe(201);
    expect((await putMetric(admin, sourceId, "cyc_b", { expression: "cyc_a + 1" })).status).toBe(201);
    const before = await dbSnapshot();
    const res = await putMetric(admin, sourceId, "cyc_a", { expression: "cyc_b * 2" });
    const problem = expectInvalid(res, "body.expression");
    expect(problem.message).toMatch(/cycle/);
    expect(problem.message).toContain("cyc_a -> cyc_b -> cyc_a");
    expect(await dbSnapshot()).toEqual(before);

    // A longer loop too.
    expect((await putMetric(admin, sourceId, "cyc_c", { expression: "cyc_b / 3" })).status).toBe(201);
    const longer = await putMetric(admin, sourceId, "cyc_a", { expression: "cyc_c - 1" });
    expect(problemOf(longer, "body.expression").message).toContain("cyc_a -> cyc_c -> cyc_b -> cyc_a");
    // Through the second of two metrics named, beside a chain that reaches no loop (the graph read is what the names reach).
    expect((await putMetric(admin, sourceId, "cyc_d", { expression: "sum(qty)" })).status).toBe(201);
    expect((await putMetric(admin, sourceId, "cyc_e", { expression: "cyc_d * 2" })).status).toBe(201);
    const wide = await putMetric(admin, sourceId, "cyc_a", { expression: "cyc_e + cyc_c" });
    expect(problemOf(wide, "body.expression").message).toContain("cyc_a -> cyc_c -> cyc_b -> cyc_a");
    expect((await call("GET", metricPath(sourceId, "cyc_a"), { as: as(admin) })).json.expression).toBe("sum(price)");
  });

  it("a metric may not reference itself", async () => {
    expect(await rejected("self_ref + 1", "self_ref")).toContain("'self_ref' cannot reference itself");
    await putMetric(admin, sourceId, "self_ref2", { expression: "count(*)" });
    const res = await putMetric(admin, sourceId, "self_ref2", { expression: "self_ref2 * 2" });
    expect(problemOf(res, "body.expression").message).toContain("cannot reference itself");
  });

  it("limits: too long, too deep, too tall are 400s", async () => {
    expectInvalid(await putMetric(admin, sourceId, fresh(), { expression: `count(*)${" ".repeat(10_000)}` }), "body.expression");
    const padded = await putMetric(admin, sourceId, fresh(), { expression: `count(*)${" ".repeat(9_992)}` });
    expect(padded.status, padded.text).toBe(201);
    expect(await rejected(`${"(".repeat(200)}count(*)${")".repeat(200)}`)).toMatch(/nested too deeply/);
    expect(await rejected(`count(*)${" + 1".repeat(2_000)}`)).toMatch(/too complex/);
    expect(await rejected(`${"-".repeat(500)}count(*)`)).toMatch(/nested too deeply/);
  });
});

describe("a rejected write leaves the database unchanged", () => {
  it("for every kind of rejection", async () => {
    await putMetric(admin, sourceId, "stable", { expression: "sum(price)", label: "Stable" });
    const etag = (await call("GET", metricPath(sourceId, "stable"), { as: as(admin) })).headers.get("ETag")!;
    const outsider = await createUser((await createAccount()).id, { groups: ["Users", "Administrators"] });
    const before = await dbSnapshot();
    const attempts: [string, () => Promise<CallResult>, number][] = [
      ["syntax", () => putMetric(admin, sourceId, "stable", { expression: "sum(" }), 400],
      ["unknown field", () => putMetric(admin, sourceId, "stable", { expression: "sum(nope)" }), 400],
      ["unknown function", () => putMetric(admin, sourceId, "new_one", { expression: "foo(price)" }), 400],
      ["bad member", () => putMetric(admin, sourceId, "stable", { expression: "sum(price)", numberFormat: { type: "PLAIN", decimals: 10 } }), 400],
      ["name mismatch", () => putMetric(admin, sourceId, "stable", { name: "other", expression: "sum(price)" }), 400],
      ["field's name", () => putMetric(admin, sourceId, "carrier", { expression: "count(*)" }), 400],
      ["dataType", () => putMetric(admin, sourceId, "stable", { expression: "sum(price)", dataType: "TEXT" }), 400],
      ["stale ETag", () => putMetric(admin, sourceId, "stable", { expression: "count(*)" }, { "If-Match": '"stale"' }), 412],
      ["no credentials", () => call("PUT", metricPath(sourceId, "stable"), { as: null, body: { expression: "count(*)" } }), 401],
      ["other account", () => putMetric(outsider, sourceId, "stable", { expression: "count(*)" }), 404],
      ["missing source", () => putMetric(admin, "missing", "stable", { expression: "count(*)" }), 404],
      ["POST duplicate", () => call("POST", metricsPath(sourceId), { as: as(admin), body: { name: "stable", expression: "count(*)" } }), 400],
      ["DELETE in use", async () => {
        return call("DELETE", metricPath(sourceId, "Volume"), { as: as(admin) });
      }, 400],
      ["PATCH stale", () => call("PATCH", metricPath(sourceId, "stable"), { as: as(admin), body: { visible: false }, headers: { "If-Match": '"stale"' } }), 412],
    ];
    for (const [what, attempt, status] of attempts) {
      const res = await attempt();
      expect(res.status, `${what}: ${res.text}`).toBe(status);
      expect(await dbSnapshot(), what).toEqual(before);
    }
    expect((await call("GET", metricPath(sourceId, "stable"), { as: as(admin) })).headers.get("ETag")).toBe(etag);
  });
});

// ---- fuzz ---------------------------------------------------------------------------------

const TOKENS = [
  // names: fields, metrics, unknown, quoted, unicode
  "price", "qty", "carrier", "order_date", "note", "Volume", "fz_a", "fz_b", "fz_c", "unknown_field", '"price"', '"Volume"', '"a ""b"""', '""',
  "prix_€", "données", "名前", "ß", "_", "a.b.c", "price.", "\u0000", "\u200b", "\ud800", "\udfff", "🚀", "\u202e", "\\", "`", "$", "#", "@", "%", "|", "&", "~", "^", "?", ":", ";", "[", "]", "{", "}",
  // functions
  "SUM(", "sum(", "AVG(", "COUNT(", "count(*)", "COUNTD(", "MIN(", "MAX(", "MEDIAN(", "FIRST_VALUE(", "STDDEV_POP(", "VAR_SAMP(", "COALESCE(", "POWER(", "MOD(",
  "SQRT(", "ROUND(", "PI()", "CONCAT(", "LENGTH(", "LOCATE(", "UPPER(", "LPAD(", "SUBSTRING(", "TEXT_TO_NUM(", "NUM_TO_TEXT(", "EXTRACT(", "YEAR FROM", "NOW()",
  "TIME_ADD(", "DAY,", "TIME_DIFF(", "TRUNCATE_TIME(", "MONTH", "UNIX_TIME_TO_TIME(", "foo(", "FROM",
  // operators, keywords, punctuation
  "+", "-", "*", "/", "=", "!=", "<>", "<", "<=", ">", ">=", "AND", "OR", "NOT", "IN", "NOT IN", "BETWEEN", "IS", "NULL", "IS NOT NULL", "TRUE", "FALSE",
  "CASE", "WHEN", "THEN", "ELSE", "END", "WHERE", "(", ")", ",", ",", ")", "*",
  // literals
  "0", "1", "42", "3.14", ".5", "1e3", "1e", "1.2.3", "9".repeat(400), "'LAX'", "'it''s'", "'", "''", "'2024-01-01'", "'not a date'", '"', "\n", "\r\n", "\t", " ", "   ",
];

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

function randomExpression(rand: () => number): string {
  const mode = rand();
  if (mode < 0.06) return "x".repeat(1 + Math.floor(rand() * 20_000)); // around the 10,000 limit
  if (mode < 0.1) return `${"(".repeat(Math.floor(rand() * 300))}sum(price)${")".repeat(Math.floor(rand() * 300))}`;
  if (mode < 0.14) return `sum(price)${" + qty".repeat(Math.floor(rand() * 2_500))}`;
  if (mode < 0.18) return `count(*)${" * Volume".repeat(Math.floor(rand() * 1_200))}`;
  if (mode < 0.22) {
    // Mostly valid metric expressions, some referencing each other (cycles possible).
    const agg = pick(rand, ["sum(price)", "avg(qty)", "count(*)", "max(carrier)", "fz_a", "fz_b", "fz_c", "Volume", "countd(note)", "max(order_date)"]);
    const other = pick(rand, ["sum(qty)", "fz_a", "fz_b", "fz_c", "1", "Volume", "min(price)"]);
    return `${agg} ${pick(rand, ["+", "-", "*", "/"])} ${other}`;
  }
  const count = 1 + Math.floor(rand() * 25);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(pick(rand, TOKENS));
  return parts.join(rand() < 0.7 ? " " : "");
}

/** Grammar-built expressions: well-formed, often well-typed, so the checker and the writes get exercised. */
function grammarExpression(rand: () => number, depth = 0): string {
  const leafOnly = depth > 3;
  const row = (d: number): string => {
    const r = rand();
    if (leafOnly || d > 4 || r < 0.45) return pick(rand, ["price", "qty", "carrier", "order_date", "note", "1", "2.5", "'LAX'", "NULL", '"price"']);
    if (r < 0.6) return `${row(d + 1)} ${pick(rand, ["+", "-", "*", "/"])} ${row(d + 1)}`;
    if (r < 0.7) return `${pick(rand, ["UPPER", "LENGTH", "ROUND", "ABS", "SQRT", "NUM_TO_TEXT", "TEXT_TO_NUM", "LOWER"])}(${row(d + 1)})`;
    if (r < 0.78) return `EXTRACT(${pick(rand, ["YEAR", "MONTH", "DAY", "HOUR"])} FROM ${row(d + 1)})`;
    if (r < 0.86) return `CASE WHEN ${row(d + 1)} ${pick(rand, ["=", ">", "<=", "!="])} ${row(d + 1)} THEN ${row(d + 1)} ELSE ${row(d + 1)} END`;
    if (r < 0.93) return `CONCAT(${row(d + 1)}, ${row(d + 1)})`;
    return `TIME_DIFF(DAY, ${row(d + 1)}, ${row(d + 1)})`;
  };
  const r = rand();
  if (leafOnly || r < 0.35) {
    const agg = pick(rand, ["SUM", "AVG", "COUNT", "COUNTD", "MIN", "MAX", "MEDIAN", "STDDEV_POP", "VAR_SAMP", "FIRST_VALUE", "LAST_VALUE"]);
    const call = rand() < 0.1 ? "COUNT(*)" : `${agg}(${row(depth)})`;
    return rand() < 0.15 ? `(${call} WHERE ${row(depth)} ${pick(rand, ["IN ('LAX', 'ORD')", "> 3", "IS NOT NULL", "BETWEEN 1 AND 9"])})` : call;
  }
  if (r < 0.5) return pick(rand, ["Volume", "fz_a", "fz_b", "fz_c", "gm_1", "gm_2", "1", "0.5"]);
  if (r < 0.75) return `${grammarExpression(rand, depth + 1)} ${pick(rand, ["+", "-", "*", "/"])} ${grammarExpression(rand, depth + 1)}`;
  if (r < 0.82) return `(${grammarExpression(rand, depth + 1)})`;
  if (r < 0.9) return `COALESCE(${grammarExpression(rand, depth + 1)}, 0)`;
  if (r < 0.95) return `ROUND(${grammarExpression(rand, depth + 1)}, 2)`;
  return `CASE WHEN ${grammarExpression(rand, depth + 1)} > 0 THEN ${grammarExpression(rand, depth + 1)} ELSE NULL END`;
}

/** Only values E1 accepts. */
function validMembers(rand: () => number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (rand() < 0.5) body.label = pick(rand, ["Revenue", "", "Ünïcödé 📈", "x".repeat(255), "a'b\"c"]);
  if (rand() < 0.5) body.visible = rand() < 0.5;
  if (rand() < 0.4) body.numberFormat = { type: pick(rand, ["PLAIN", "CURRENCY", "PERCENTAGE"]), decimals: Math.floor(rand() * 10), currencyCode: "EUR" };
  if (rand() < 0.3) body.timeFormat = { timeZone: pick(rand, ["Europe/Paris", "UTC", "Asia/Tokyo"]), options: { hour12: rand() < 0.5, month: "SHORT" } };
  if (rand() < 0.2) body.granularity = pick(rand, ["DAY", "MONTH", "YEAR"]);
  return body;
}

function randomString(rand: () => number): string {
  const length = pick(rand, [0, 1, 5, 255, 256, 1000]);
  const alphabet = ["a", "Z", "é", "😀", "\u0000", " ", "'", '"', "\ud800", "/"];
  let s = "";
  for (let i = 0; i < length; i++) s += pick(rand, alphabet);
  return s;
}

const ODD_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, "", "DAY", [], {}, [1, 2], { type: "PLAIN" }, "x".repeat(300)];

function randomMembers(rand: () => number, name: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const maybe = (p: number) => rand() < p;
  if (maybe(0.3)) body.label = maybe(0.7) ? randomString(rand) : pick(rand, ODD_VALUES);
  if (maybe(0.3)) body.visible = maybe(0.6) ? rand() < 0.5 : pick(rand, ODD_VALUES);
  if (maybe(0.3)) {
    body.numberFormat = maybe(0.2)
      ? pick(rand, ODD_VALUES)
      : {
          ...(maybe(0.8) && { type: pick(rand, ["PLAIN", "CURRENCY", "RATIO", "plain", "", 3, null]) }),
          ...(maybe(0.5) && { decimals: pick(rand, [0, 9, 10, -1, 2.5, "2", null, 1e20]) }),
          ...(maybe(0.3) && { negative: pick(rand, ["SIGNED", "PARENTHESIZED", "MINUS", 1]) }),
          ...(maybe(0.3) && { standardUnit: pick(rand, ["NONE", "MILLIONS", "KILO", []]) }),
          ...(maybe(0.3) && { storageUnit: pick(rand, ["BYTES", "EXABYTES", "BITS", {}]) }),
          ...(maybe(0.3) && { currencyCode: pick(rand, ["USD", "eur", "€", "", "x".repeat(1000)]) }),
          ...(maybe(0.2) && { separator: pick(rand, [true, "no", 0]) }),
        };
  }
  if (maybe(0.3)) {
    body.timeFormat = maybe(0.2)
      ? pick(rand, ODD_VALUES)
      : {
          ...(maybe(0.6) && {
            timeZone: pick(rand, ["Europe/Paris", "Mars/Olympus", "UTC", "", "+01:00", "Etc/GMT-14", "europe/paris", "\u0000", "x".repeat(70), 7]),
          }),
          ...(maybe(0.6) && {
            options: maybe(0.2)
              ? pick(rand, ODD_VALUES)
              : {
                  [pick(rand, ["second", "minute", "hour", "day", "weekday", "week", "month", "quarter", "year", "dayOfYear", "hour12", "bogus"])]: pick(rand, [
                    "NUMERIC", "TWO_DIGIT", "LONG", "HUGE", "NONE", "RANGE", "WEEK_END", true, "true", null,
                  ]),
                },
          }),
        };
  }
  if (maybe(0.2)) body.granularity = pick(rand, ["DAY", "YEAR", "FORTNIGHT", "day", null, 5]);
  if (maybe(0.2)) body.dataType = pick(rand, ["NUMBER", "INTEGER", "ATTRIBUTE", "TIME", "TEXT", "HIERARCHY", "NULL", "BOOLEAN", null]);
  if (maybe(0.15)) body.name = maybe(0.5) ? name : pick(rand, ["other", "", "1bad", null, 3]);
  // Own "__proto__" and "constructor" members, as a hostile client would send them.
  if (maybe(0.05)) Object.defineProperty(body, "__proto__", { value: { label: "polluted" }, enumerable: true });
  if (maybe(0.05)) Object.defineProperty(body, "constructor", { value: { prototype: { label: "polluted" } }, enumerable: true });
  return body;
}

describe("no input makes E1 answer a 500 (seeded fuzz)", () => {
  let fuzzSource: string;
  beforeAll(async () => {
    fuzzSource = (await createMetricSource(admin)).id;
    await grant(admin, fuzzSource, [{ user: editor, permission: "READ" }]);
  });

  it("200 random expressions and member values through E1, and through validate", async () => {
    const rand = prng(0x5eed_c0de);
    const statuses = new Map<number, number>();
    const names = ["fz_a", "fz_b", "fz_c", "gm_1", "gm_2", "Volume", "price", "fz_new", "métrique", "名前", "_x.y"];
    for (let i = 0; i < 200; i++) {
      const name = rand() < 0.9 ? pick(rand, names) : `fz_${i}`;
      const kind = rand();
      const members = kind < 0.4 ? validMembers(rand) : randomMembers(rand, name);
      const expression = kind < 0.6 ? grammarExpression(rand) : randomExpression(rand);
      const body = rand() < 0.97 ? { ...members, expression } : pick(rand, [members, null, [], "count(*)", 42]);
      const headers = rand() < 0.1 ? { "If-Match": pick(rand, ['"stale"', "*", "", "W/\"x\"", "\"a\", \"b\""]) } : undefined;
      const user = rand() < 0.5 ? admin : editor;
      const res = await call("PUT", metricPath(fuzzSource, name), { as: as(user), body, headers });
      const label = `#${i} PUT ${name} ${JSON.stringify(body).slice(0, 300)} -> ${res.status} ${res.text.slice(0, 300)}`;
      expect(res.status, label).toBeLessThan(500);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200 || res.status === 201) {
        expect(res.json, label).toMatchObject({ name, expression: (body as { expression: string }).expression, dataType: expect.any(String) });
      } else {
        expect(res.json, label).toMatchObject({ status: String(res.status), errorCode: expect.any(String), message: expect.any(String) });
      }
      if (i % 4 === 0 && body && typeof body === "object" && "expression" in body && typeof body.expression === "string" && body.expression.length <= 10_000) {
        const v = await call("POST", `${metricsPath(fuzzSource)}/validate`, { as: as(editor), body: { expression: body.expression } });
        // A lone surrogate cannot be stored or checked as sent: refused before validation, like any body member.
        expect(v.status, `validate ${label}`).toBe(hasLoneSurrogate(body.expression) ? 400 : 200);
        if (v.status === 200) expect(typeof v.json.valid).toBe("boolean");
      }
    }
    // Both outcomes happened: the fuzz reached the handler's success paths and its rejections.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(5);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(5);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(50);

    // Whatever was stored can be read back, and the store is coherent.
    const stored = await allMetrics(admin, fuzzSource);
    expect(stored.filter((m) => m.name === "Volume")).toHaveLength(1);
    expect(new Set(stored.map((m) => m.name)).size).toBe(stored.length);
    for (const metric of stored) {
      const got = await call("GET", metricPath(fuzzSource, metric.name), { as: as(admin) });
      expect(got.status, metric.name).toBe(200);
      expect(got.json).toEqual(metric);
    }
  });

  it("bodies up to and past the body limit", async () => {
    const near = await putMetric(admin, fuzzSource, "big", { expression: "x".repeat(1_000_000) });
    expect(near.status).toBe(400);
    expect(problemOf(near, "body.expression")).toBeDefined();
    const past = await putMetric(admin, fuzzSource, "big", { expression: "x".repeat(1_100_000) });
    expectError(past, 413, "PAYLOAD_TOO_LARGE");
    const bigLabel = await putMetric(admin, fuzzSource, "big", { expression: "count(*)", label: "é".repeat(400_000) });
    expectInvalid(bigLabel, "body.label");
    expect((await call("GET", metricPath(fuzzSource, "big"), { as: as(admin) })).status).toBe(404);
  });
});
