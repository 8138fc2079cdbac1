import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, prng, VENDOR_JSON, type CallResult, type TestUser } from "./helpers";
import { createSource, fieldPath, fieldsPath, nativeField, STANDARD_FIELDS, type SourceJson } from "./source-helpers";

/** Bad input on the field endpoints: one Problem per invalid member, nothing stored, never a 500. */
let owner: TestUser;
let source: SourceJson;

beforeAll(async () => {
  const account = await createAccount();
  owner = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
  source = await createSource(owner, { fields: STANDARD_FIELDS });
});

const post = (body: unknown) => call("POST", fieldsPath(source.id), { as: as(owner), body });
const put = (name: string, body: unknown) => call("PUT", fieldPath(source.id, name), { as: as(owner), body });

describe("invalid members", () => {
  it("names each invalid member of one body, for POST and PUT alike, and stores nothing", async () => {
    const body = {
      label: "L".repeat(256),
      origin: { type: "NATIVE", nativeOrigin: { originalType: "INT" } },
      format: { number: { type: "PLAIN", decimals: 10 }, time: { timeZone: "Mars/Olympus" } },
    };
    const expected = ["body.origin.nativeOrigin.originalName", "body.label", "body.format.number.decimals", "body.format.time.timeZone"];
    const before = await dbSnapshot();
    expectError(await post({ name: "bad", ...body }), 400, "VALIDATION_FAILED", expected);
    expectError(await put("bad", body), 400, "VALIDATION_FAILED", expected);
    expectError(await put("price", body), 400, "VALIDATION_FAILED", expected);
    expect(await dbSnapshot()).toEqual(before);
  });

  const CASES: [string, Record<string, unknown>, string[]][] = [
    ["label over 255", { label: "x".repeat(256) }, ["body.label"]],
    ["decimals 10", { format: { number: { type: "PLAIN", decimals: 10 } } }, ["body.format.number.decimals"]],
    ["decimals -1", { format: { number: { type: "PLAIN", decimals: -1 } } }, ["body.format.number.decimals"]],
    ["number format without type", { format: { number: { decimals: 2 } } }, ["body.format.number.type"]],
    ["unknown currency code", { format: { number: { type: "CURRENCY", currencyCode: "usd" } } }, ["body.format.number.currencyCode"]],
    ["unknown time zone", { format: { time: { timeZone: "Mars/Olympus" } } }, ["body.format.time.timeZone"]],
    ["unknown time option", { format: { time: { options: { day: "LONG" } } } }, ["body.format.time.options.day"]],
    ["unknown granularity", { granularity: "DECADE" }, ["body.granularity"]],
    ["visible not a boolean", { visible: "yes" }, ["body.visible"]],
    ["unknown dataType", { dataType: "BOOLEAN" }, ["body.dataType"]],
    ["unknown defaultMetric", { defaultMetric: "mode" }, ["body.defaultMetric"]],
    ["url width too large", { format: { url: { width: 10001 } } }, ["body.format.url.width"]],
    ["fractional cardinality", { statistics: { cardinality: 1.5 } }, ["body.statistics.cardinality"]],
    ["negative facet order", { facetFiltering: { enabled: true, order: -1 } }, ["body.facetFiltering.order"]],
    ["fieldMetadata over 16 KB", { fieldMetadata: { blob: "x".repeat(17_000) } }, ["body.fieldMetadata"]],
    ["fieldMetadata not an object", { fieldMetadata: [1, 2] }, ["body.fieldMetadata"]],
    ["disabledCapabilities not strings", { disabledCapabilities: [1] }, ["body.disabledCapabilities[0]"]],
    ["originalName empty", { origin: { type: "NATIVE", nativeOrigin: { originalName: "" } } }, ["body.origin.nativeOrigin.originalName"]],
    ["originalName not a string", { origin: { type: "NATIVE", nativeOrigin: { originalName: 7 } } }, ["body.origin.nativeOrigin.originalName"]],
    ["expression too long", { origin: { type: "DERIVED", derivedOrigin: { expression: "1+".repeat(5000) + "1" } } }, ["body.origin.derivedOrigin.expression"]],
    ["hierarchy member with an invalid name", { origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField: "1x", parentField: "carrier" } } } }, ["body.origin.hierarchyOrigin.childParent.childField"]],
  ];

  it.each(CASES)("%s", async (_title, member, names) => {
    const body = { ...nativeField("col", { name: "fresh" }), ...member };
    const before = await dbSnapshot();
    expectError(await post(body), 400, "VALIDATION_FAILED", names);
    expectError(await put("price", { ...body, name: undefined }), 400, "VALIDATION_FAILED", names);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses an unknown or missing origin type with a Problem under body.origin", async () => {
    const before = await dbSnapshot();
    for (const origin of [{ type: "MAGIC" }, {}, undefined, "NATIVE"]) {
      const res = await post({ name: "x", origin });
      const body = expectError(res, 400, "VALIDATION_FAILED");
      expect(body.problems.length).toBeGreaterThan(0);
      for (const p of body.problems) expect(p.name).toMatch(/^body\.origin/);
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses bodies that are not a field object", async () => {
    const before = await dbSnapshot();
    for (const body of [[], "field", 42, null]) {
      const res = await post(body);
      expectError(res, 400, "VALIDATION_FAILED");
    }
    const malformed = await call("POST", fieldsPath(source.id), { as: as(owner), rawBody: "{ not json", headers: { "Content-Type": VENDOR_JSON } });
    expectError(malformed, 400, "MALFORMED_JSON");
    const missing = await call("POST", fieldsPath(source.id), { as: as(owner), headers: { "Content-Type": VENDOR_JSON } });
    expect(missing.status).toBe(400);
    const xml = await call("POST", fieldsPath(source.id), { as: as(owner), rawBody: "<field/>", headers: { "Content-Type": "application/xml" } });
    expectError(xml, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses an over-long path name with 400", async () => {
    expectError(await call("GET", fieldPath(source.id, "x".repeat(256)), { as: as(owner) }), 400, "VALIDATION_FAILED", ["path.fieldName"]);
    expectError(await put("x".repeat(256), nativeField("x")), 400, "VALIDATION_FAILED", ["path.fieldName"]);
  });
});

const VALID_NAMES = ["fz_a", "fz_b", "fz.c", "Straße", "price", "carrier", "qty", "origin_city", "dest_city", "数量", "x".repeat(255)];
const INVALID_NAMES = ["Volume", "1abc", "a b", "", "x".repeat(256), "\u0000", "ghost", "a-b", "💥"];
const VALID_EXPRESSIONS = [
  "price * 2",
  "LENGTH(carrier)",
  "CASE WHEN price > 1 THEN 'a' ELSE 'b' END",
  "price / 0",
  "COALESCE(carrier, origin_city)",
  "TIME_ADD(DAY, 7, order_date)",
  "EXTRACT(YEAR FROM order_date)",
  "fz_a * 2",
  "UPPER(carrier)",
  "qty + 1",
];
const INVALID_EXPRESSIONS = [
  "sum(price)",
  "count(*)",
  "ghost + 1",
  "(((",
  "price +",
  "CASE WHEN price > 1 THEN 'a' ELSE 2 END",
  "'unterminated",
  "Volume",
  "1" + "+1".repeat(1500),
  "(".repeat(80) + "1" + ")".repeat(80),
  "UPPER(",
  "price IN (1, 2, 'x')",
  "TIME_ADD(order_date, DAY, 1)",
  "NOT price",
  "-carrier",
  "",
];
const JUNK: unknown[] = [null, true, false, 0, -1, 1.5, 1e300, -1e300, "", "x", "x".repeat(300), "Straße", "\u0000", "💥", [], [1, "a"], {}, { a: 1 }, "price", "NUMBER", "count", "DAY"];

/**
 * A random field body. Every member is drawn from a pool of valid values, except with the
 * body's junk rate, when it is drawn from invalid values or arbitrary JSON. Half the bodies
 * are nearly valid (so that many reach storage), half are wild.
 */
function fuzzBody(random: () => number): unknown {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const maybe = (p = 0.5) => random() < p;
  const junkRate = maybe() ? 0.03 : 0.3;
  const memberRate = junkRate < 0.1 ? 0.2 : 0.35;
  /** A valid value, or with the junk rate an invalid one (or arbitrary JSON). */
  const either = <T,>(valid: () => T, invalid: () => unknown = () => pick(JUNK)) => (maybe(junkRate) ? (maybe() ? invalid() : pick(JUNK)) : valid());

  if (maybe(0.03)) return pick(JUNK);
  const name = () => either(() => pick(VALID_NAMES), () => pick(INVALID_NAMES));
  const origin = () => {
    const type = either(() => pick(["NATIVE", "DERIVED", "HIERARCHY"]), () => pick(["MAGIC", "native", ""]));
    const o: Record<string, unknown> = { type };
    if (type === "NATIVE" || maybe(0.05))
      o.nativeOrigin = either(() => ({
        originalName: either(() => pick(VALID_NAMES), () => pick(["", 7])),
        ...(maybe() && { originalType: either(() => pick(["INT", "DECIMAL(3,1)", "VARCHAR", "TIMESTAMP", "CLOB", "??"])) }),
        ...(maybe(0.2) && { metaFlags: either(() => [pick(VALID_NAMES)]) }),
        ...(maybe(0.2) && { partitionedBy: either(() => ({ field: pick(VALID_NAMES), function: "DAY" })) }),
        ...(maybe(0.2) && { rawFormat: either(() => ({ pattern: "x" })) }),
      }));
    if (type === "DERIVED" || maybe(0.05))
      o.derivedOrigin = either(() => ({
        expression: either(() => pick(VALID_EXPRESSIONS), () => pick(INVALID_EXPRESSIONS)),
        ...(maybe(0.3) && { referencedFieldNames: either(() => [pick(VALID_NAMES)]) }),
        ...(maybe(0.2) && { calendarId: either(() => "default", () => "cal-1") }),
      }));
    if (type === "HIERARCHY" || maybe(0.05))
      o.hierarchyOrigin = either(() => ({
        childParent: either(() => ({ childField: name(), parentField: name() })),
        ...(maybe(0.4) && { labelField: name() }),
      }));
    return o;
  };
  const members: Record<string, () => unknown> = {
    name,
    label: () => either(() => pick(["Label", "", "L".repeat(255), "Größe in €", "💥💥"]), () => "L".repeat(256)),
    visible: () => either(() => maybe()),
    defaultMetric: () => either(() => pick(["sum", "COUNT", "median"]), () => "mode"),
    dataType: () => either(() => pick(["ATTRIBUTE", "NUMBER", "INTEGER", "TIME", "TEXT"]), () => pick(["HIERARCHY", "NULL", "BOOLEAN"])),
    format: () =>
      either(() => ({
        ...(maybe() && { number: either(() => ({ type: pick(["PLAIN", "CURRENCY", "RATIO"]), decimals: either(() => pick([0, 2, 9]), () => pick([10, -1, 2.5])), currencyCode: either(() => "USD", () => "usd") })) }),
        ...(maybe() && { time: either(() => ({ timeZone: either(() => pick(["Europe/Paris", "UTC"]), () => "Mars/Olympus"), granularity: either(() => "DAY", () => "DECADE"), options: either(() => ({ day: "NUMERIC", hour12: true })) })) }),
        ...(maybe(0.3) && { url: either(() => ({ type: "IMAGE", src: "http://x", width: either(() => 10, () => 10001) })) }),
      })),
    statistics: () =>
      either(() => ({
        override: either(() => ({ min: 1, max: 2.5, distinctValues: either(() => [pick(JUNK), pick(JUNK)]) })),
        cardinality: either(() => pick([0, 5]), () => pick([-1, 1.5])),
        lookup: either(() => ({ raw: either(() => ({ dataEntityId: "e" })) })),
      })),
    facetFiltering: () => either(() => ({ enabled: maybe(), order: either(() => pick([0, 1, 10000]), () => pick([-1, 10001])) })),
    granularity: () => either(() => pick(["MILLISECOND", "YEAR"]), () => "DECADE"),
    disabledCapabilities: () => either(() => [pick(VALID_NAMES)]),
    fieldMetadata: () => either(() => ({ [pick(["k", "", "ключ"])]: pick(JUNK) }), () => ({ ["x".repeat(300)]: 1 })),
    fieldName: () => either(() => "ignored"),
    originalFieldName: () => either(() => "ignored"),
    unexpectedMember: () => pick(JUNK),
  };
  const body: Record<string, unknown> = {};
  if (!maybe(0.03)) body.origin = origin();
  for (const [key, value] of Object.entries(members)) if (maybe(memberRate)) body[key] = value();
  return body;
}

const PATH_NAMES = [...VALID_NAMES, ...INVALID_NAMES.filter((n) => n !== "")];

function expectNoServerError(res: CallResult, context: string) {
  expect(res.status, context).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("Content-Type"), context).toBe(VENDOR_JSON);
    expect(res.json, context).toMatchObject({
      error: expect.any(String),
      message: expect.any(String),
      path: expect.any(String),
      status: String(res.status),
      code: expect.any(String),
      errorCode: expect.any(String),
      problems: expect.any(Array),
    });
  } else {
    expect(res.json.name, context).toMatch(/^[\p{L}_][\p{L}_\p{N}.]*$/u);
    expect(res.json.name.length, context).toBeLessThanOrEqual(255);
  }
}

describe("fuzzing POST and PUT with random bodies", () => {
  it("never answers 5xx; 4xx are ErrorMessages; what is stored can be read back", async () => {
    const fuzzed = await createSource(owner, { fields: STANDARD_FIELDS, features: ["TEXT_SEARCH"] });
    const random = prng(0x5eed_f1e1);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const body = fuzzBody(random);
      const usePut = random() < 0.5;
      const path = usePut ? fieldPath(fuzzed.id, PATH_NAMES[Math.floor(random() * PATH_NAMES.length)]!) : fieldsPath(fuzzed.id);
      const res = await call(usePut ? "PUT" : "POST", path, { as: as(owner), body });
      expectNoServerError(res, `#${i} ${usePut ? "PUT" : "POST"} ${path} ${JSON.stringify(body)?.slice(0, 2000)} -> ${res.text.slice(0, 500)}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    // The loop exercised both the happy path and the refusals.
    const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(ok, JSON.stringify([...statuses])).toBeGreaterThan(5);
    expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(20);

    // Everything that was stored renders: the list and every field.
    let token: string | null = null;
    let count = 0;
    do {
      const list: CallResult = await call("GET", `${fieldsPath(fuzzed.id)}?maxResults=7${token ? `&pageToken=${token}` : ""}`, { as: as(owner) });
      expect(list.status, list.text).toBe(200);
      for (const field of list.json.content) {
        const one = await call("GET", fieldPath(fuzzed.id, field.name), { as: as(owner) });
        expect(one.status, one.text).toBe(200);
        expect(one.json).toEqual(field);
        count++;
      }
      token = list.json.pageInfo.nextPageToken;
    } while (token);
    expect(count).toBeGreaterThanOrEqual(STANDARD_FIELDS.length);
  });
});
