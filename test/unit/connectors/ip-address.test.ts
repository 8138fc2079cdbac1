// src/domain/connectors/ip-address.ts replaced ipaddr.js in the Worker (3 KiB of gzip). ipaddr.js
// stays a development dependency as the oracle: every answer of the module is checked against it,
// for random addresses and for the first, last and neighbouring addresses of each range ipaddr.js
// names. A release of ipaddr.js with a new range fails here until the module has it too.
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { embeddedIpv4, type IpAddress, isGlobalUnicastIpv6, parseIpv4, parseIpv6, rangeOf, sameAddress } from "../../../src/domain/connectors/ip-address";

type Reference = ipaddr.IPv4 | ipaddr.IPv6;
const ours = (address: Reference): IpAddress => {
  const text = address.toString();
  return (address.kind() === "ipv4" ? parseIpv4(text) : parseIpv6(text))!;
};

/** What host-policy.ts answered when it used ipaddr.js (the code this module replaced). */
function referenceKind(address: Reference): string {
  if (address.kind() === "ipv4") return address.range();
  const ipv6 = address as ipaddr.IPv6;
  const words = ipv6.parts;
  const bytes = ipv6.toByteArray();
  let inner: ipaddr.IPv4 | undefined;
  if (ipv6.isIPv4MappedAddress()) inner = ipv6.toIPv4Address();
  else if ((words.slice(0, 6).every((word) => word === 0) && !(words[6] === 0 && words[7] <= 1)) || ipv6.match(ipaddr.parseCIDR("64:ff9b::/96"))) inner = new ipaddr.IPv4(bytes.slice(12, 16));
  else if (ipv6.range() === "6to4") inner = new ipaddr.IPv4(bytes.slice(2, 6));
  if (inner) return `ipv4 ${referenceKind(inner)}`;
  if (ipv6.range() !== "unicast") return ipv6.range();
  return ipv6.match(ipaddr.parseCIDR("2000::/3")) ? "unicast" : "outside 2000::/3";
}

/** The same classification from the module, in the same words (the messages differ by design). */
function ourKind(address: IpAddress): string {
  const inner = embeddedIpv4(address);
  if (inner) return `ipv4 ${ourKind(inner)}`;
  const range = rangeOf(address);
  if (range !== "unicast" || address.kind === "ipv4") return range;
  return isGlobalUnicastIpv6(address) ? "unicast" : "outside 2000::/3";
}

/** Each range ipaddr.js names, as [base, prefix length] pairs. */
function specialRanges(kind: "ipv4" | "ipv6"): [Reference, number][] {
  const sample = (kind === "ipv4" ? ipaddr.parse("1.2.3.4") : ipaddr.parse("2606::1")) as unknown as { SpecialRanges: Record<string, [Reference, number] | [Reference, number][]> };
  return Object.values(sample.SpecialRanges).flatMap((entry) => (Array.isArray(entry[0]) ? (entry as [Reference, number][]) : [entry as [Reference, number]]));
}

/** The first and last address of a range, and the addresses just outside it. */
function boundaries([base, prefixLength]: [Reference, number]): number[][] {
  const bytes = base.toByteArray();
  const first = bytes.map((byte, i) => (i * 8 >= prefixLength ? 0 : i * 8 + 8 <= prefixLength ? byte : byte & (0xff << (8 - (prefixLength - i * 8)))));
  const last = first.map((byte, i) => (i * 8 >= prefixLength ? 255 : i * 8 + 8 <= prefixLength ? byte : byte | (0xff >> (prefixLength - i * 8))));
  const step = (from: number[], delta: 1 | -1) => {
    const out = [...from];
    for (let i = out.length - 1; i >= 0; i--) {
      out[i] += delta;
      if (out[i] >= 0 && out[i] <= 255) return out;
      out[i] = delta === 1 ? 0 : 255;
    }
    return undefined;
  };
  return [first, last, step(first, -1), step(last, 1)].filter((bytes): bytes is number[] => bytes !== undefined);
}

const allBoundaries = [...specialRanges("ipv4"), ...specialRanges("ipv6"), [ipaddr.parse("2000::"), 3] as [Reference, number], [ipaddr.parse("64:ff9b::"), 96] as [Reference, number]].flatMap(boundaries);
const randomIpv4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 });
// Random IPv6 addresses mostly land in no range, so half of them keep the first bits of a range.
const randomIpv6 = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 }),
  fc.tuple(fc.constantFrom(...specialRanges("ipv6")), fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 })).map(([[base, prefixLength], noise]) =>
    base.toByteArray().map((byte, i) => (i * 8 + 8 <= prefixLength ? byte : i * 8 >= prefixLength ? noise[i] : (byte & (0xff << (8 - (prefixLength - i * 8)))) | (noise[i] & (0xff >> (prefixLength - i * 8))))),
  ),
);

describe("reading an address", () => {
  it("reads every address ipaddr.js writes, compressed or in full, to the same bytes", () => {
    fc.assert(
      fc.property(fc.oneof(randomIpv4, randomIpv6), (bytes) => {
        const address = ipaddr.fromByteArray(bytes);
        expect(ours(address).bytes).toEqual(bytes);
        if (address.kind() === "ipv6") expect(parseIpv6(address.toNormalizedString())?.bytes).toEqual(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(["1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1.2.3.4 ", "", "a.b.c.d"])("%j is no dotted-decimal IPv4 address", (text) => {
    expect(parseIpv4(text)).toBeUndefined();
  });

  it.each(["1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:2:3:4::5:6:7:8", "12345::", "::g", ":::", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8::", ""])("%j is no IPv6 address of the URL parser", (text) => {
    expect(parseIpv6(text)).toBeUndefined();
  });
});

describe("special-purpose ranges, as ipaddr.js names them", () => {
  it("names the range of each range's first and last address and their neighbours", () => {
    for (const bytes of allBoundaries) {
      const address = ipaddr.fromByteArray(bytes);
      expect([address.toString(), rangeOf(ours(address))]).toEqual([address.toString(), address.range()]);
    }
  });

  it("names the range of random addresses", () => {
    fc.assert(
      fc.property(fc.oneof(randomIpv4, randomIpv6), (bytes) => {
        const address = ipaddr.fromByteArray(bytes);
        expect(rangeOf(ours(address))).toBe(address.range());
      }),
      { numRuns: 5000 },
    );
  });

  it("classifies every address as host-policy.ts did with ipaddr.js (embedded IPv4 and 2000::/3 included)", () => {
    for (const bytes of allBoundaries) expect(ourKind(ours(ipaddr.fromByteArray(bytes)))).toBe(referenceKind(ipaddr.fromByteArray(bytes)));
    fc.assert(
      fc.property(fc.oneof(randomIpv4, randomIpv6), (bytes) => {
        expect(ourKind(ours(ipaddr.fromByteArray(bytes)))).toBe(referenceKind(ipaddr.fromByteArray(bytes)));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("the same destination", () => {
  it("is the same bytes, or an IPv4 address and its IPv4-mapped IPv6 form", () => {
    const of = (text: string) => (parseIpv4(text) ?? parseIpv6(text))!;
    expect(sameAddress(of("10.0.0.5"), of("::ffff:a00:5"))).toBe(true);
    expect(sameAddress(of("::ffff:a00:5"), of("10.0.0.5"))).toBe(true);
    expect(sameAddress(of("10.0.0.5"), of("10.0.0.6"))).toBe(false);
    expect(sameAddress(of("10.0.0.5"), of("::a00:5"))).toBe(false); // IPv4-compatible, not mapped
    expect(sameAddress(of("fd00::5"), of("fd00:0:0::5"))).toBe(true);
    expect(sameAddress(of("0.0.0.0"), of("::"))).toBe(false);
  });
});
