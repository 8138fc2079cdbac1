import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPOSER_JSON, essenceOf, JSON_MEDIA_TYPES, jsonMediaTypeOf, negotiate, VENDOR_JSON, ZOOMDATA_JSON } from "../../../src/lib/media-types";

describe("jsonMediaTypeOf", () => {
  it.each([
    [VENDOR_JSON, VENDOR_JSON],
    ["Application/JSON; charset=utf-8", "application/json"],
    [`${COMPOSER_JSON};charset=UTF-8`, COMPOSER_JSON],
    [`${ZOOMDATA_JSON}; version=1`, ZOOMDATA_JSON],
  ])("reads %s as %s", (header, type) => {
    expect(jsonMediaTypeOf(header)).toBe(type);
  });

  it.each([undefined, null, "", "text/plain", "application/jsonx", "application/vnd.zoomdata.v2+json", "application/problem+json"])("speaks no %s", (header) => {
    expect(jsonMediaTypeOf(header)).toBeUndefined();
  });

  it("essenceOf drops parameters and case", () => {
    expect(essenceOf(" Text/Plain ; charset=x")).toBe("text/plain");
  });
});

describe("negotiate", () => {
  it("without Accept: the request's own type, else the preferred one", () => {
    expect(negotiate(undefined, undefined)).toBe(VENDOR_JSON);
    expect(negotiate("", COMPOSER_JSON)).toBe(COMPOSER_JSON);
    expect(negotiate("  ", undefined, "application/json")).toBe("application/json");
  });

  it.each([
    // Exact names: the highest q, then the first listed.
    [`application/vnd.zoomdata.v2+json,${ZOOMDATA_JSON}`, undefined, ZOOMDATA_JSON],
    [`application/json, ${COMPOSER_JSON}`, undefined, "application/json"],
    [`${COMPOSER_JSON}, application/json`, undefined, COMPOSER_JSON],
    [`application/json;q=0.5, ${COMPOSER_JSON}`, undefined, COMPOSER_JSON],
    [`application/json;q=0.5, ${COMPOSER_JSON};q=0.4`, undefined, "application/json"],
    // The most specific range decides a type's q.
    [`${COMPOSER_JSON};q=0.2, application/*;q=0.9`, undefined, VENDOR_JSON],
    ["application/json;q=0, */*", undefined, VENDOR_JSON],
    ["application/json;q=0, */*", "application/json", VENDOR_JSON],
    // An exact name beats a wildcard of equal q; through a wildcard the request's own type comes first.
    ["*/*, application/json", COMPOSER_JSON, "application/json"],
    ["*/*", COMPOSER_JSON, COMPOSER_JSON],
    ["application/*", ZOOMDATA_JSON, ZOOMDATA_JSON],
    ["text/html, */*;q=0.1", undefined, VENDOR_JSON],
    // Parameters other than q do not stop a match; malformed q-values drop their range.
    [`${ZOOMDATA_JSON}; charset=utf-8`, undefined, ZOOMDATA_JSON],
    [`${COMPOSER_JSON};q=2, application/json;q=0.3`, undefined, "application/json"],
    [`${COMPOSER_JSON};q=abc`, undefined, undefined],
  ] as const)("Accept %s (request %s) → %s", (accept, requestType, expected) => {
    expect(negotiate(accept, requestType)).toBe(expected);
  });

  it.each(["text/html", "text/*", "application/json;q=0", "application/problem+json", "application/vnd.zoomdata.v2+json", "garbage", "image/png, text/plain"])(
    "%s excludes every spoken type",
    (accept) => {
      expect(negotiate(accept, COMPOSER_JSON)).toBeUndefined();
    },
  );

  it("always answers a spoken type that the Accept header allows, or nothing only when it allows none", () => {
    const range = fc.constantFrom("*/*", "application/*", "text/*", "text/html", "application/xml", ...JSON_MEDIA_TYPES);
    const weighted = fc.tuple(range, fc.option(fc.constantFrom("0", "0.1", "0.5", "1", "0.000"), { nil: undefined }));
    fc.assert(
      fc.property(fc.array(weighted, { minLength: 1, maxLength: 6 }), fc.option(fc.constantFrom(...JSON_MEDIA_TYPES), { nil: undefined }), (ranges, requestType) => {
        const accept = ranges.map(([r, q]) => (q === undefined ? r : `${r};q=${q}`)).join(", ");
        // A naive model: the q of a type is the q of its most specific matching range (first of equals).
        const qOf = (type: string) => {
          const [main] = type.split("/");
          for (const pattern of [type, `${main}/*`, "*/*"]) {
            const hit = ranges.find(([r]) => r === pattern);
            if (hit) return hit[1] === undefined ? 1 : Number(hit[1]);
          }
          return 0;
        };
        const best = Math.max(...JSON_MEDIA_TYPES.map(qOf));
        const answer = negotiate(accept, requestType);
        if (best === 0) expect(answer).toBeUndefined();
        else expect(answer !== undefined && qOf(answer)).toBe(best);
      }),
    );
  });
});

describe("negotiate's memory of answers", () => {
  it("answers a repeated Accept as the first time, a refusal included, and still right after more distinct headers than it keeps", () => {
    const cases: [string, ReturnType<typeof negotiate>][] = [
      ["application/json", "application/json"],
      ["text/html", undefined],
      [`${COMPOSER_JSON}, */*;q=0.1`, COMPOSER_JSON],
    ];
    for (let pass = 0; pass < 3; pass++) {
      for (const [accept, answer] of cases) expect(negotiate(accept, undefined)).toBe(answer);
      // More distinct headers than the memory keeps: it is forgotten and filled anew in between.
      for (let i = 0; i < 300; i++) expect(negotiate(`application/x-${pass}-${i}, application/json;q=0.5`, undefined)).toBe("application/json");
    }
  });

  it("answers a long Accept (not remembered) as a short one", () => {
    const long = `${"application/x-unknown, ".repeat(40)}${COMPOSER_JSON};q=0.5`;
    expect(long.length).toBeGreaterThan(256);
    expect(negotiate(long, undefined)).toBe(COMPOSER_JSON);
    expect(negotiate(long, undefined)).toBe(COMPOSER_JSON);
  });

  it("keys on the request's type and the preferred type, not on Accept alone", () => {
    expect(negotiate("*/*", ZOOMDATA_JSON)).toBe(ZOOMDATA_JSON);
    expect(negotiate("*/*", undefined)).toBe(VENDOR_JSON);
    expect(negotiate("*/*", undefined, "application/json")).toBe("application/json");
  });
});
