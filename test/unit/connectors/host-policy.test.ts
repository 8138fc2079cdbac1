import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkHost, formatHost, parseHost, parseHostPolicy, specialAddressKind } from "../../../src/domain/connectors/host-policy";

const policy = (setting: string) => parseHostPolicy(setting).policy;
const allowed = (setting: string, host: string, port = 5432) => checkHost(policy(setting), host, port).allowed;
const reason = (setting: string, host: string, port = 5432) => {
  const verdict = checkHost(policy(setting), host, port);
  return verdict.allowed ? undefined : verdict.reason;
};

describe("IPv4 spellings", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7F.0.0.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0177.0.0.01", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["10.0.0.0", "10.0.0.0"],
    ["0", "0.0.0.0"],
    ["0x", "0.0.0.0"],
    ["3232235777", "192.168.1.1"],
    ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
    ["169.16689662", "169.254.169.254"],
  ])("%s is %s", (text, canonical) => {
    const host = parseHost(text);
    expect(host?.kind).toBe("ip");
    expect(host && formatHost(host)).toBe(canonical);
  });

  // Refused outright: a host whose last label is a number must be an IPv4 address.
  it.each(["256.0.0.1", "1.2.3.4.5", "4294967296", "08.0.0.1", "0x1g.0.0.1", "1..2.3", "", ".", "1.2.3.-4", "1.2.3.4 5"])("%j is not one", (text) => {
    expect(parseHost(text)).toBeUndefined();
  });
});

describe("IPv6 spellings", () => {
  it.each([
    ["::1", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["::", "::"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["::FFFF:7F00:0001", "::ffff:7f00:1"],
    ["fe80::1", "fe80::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2606:4700:4700::1111", "2606:4700:4700::1111"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
  ])("%s is %s", (text, canonical) => {
    const host = parseHost(text);
    expect(host?.kind).toBe("ip");
    expect(host && formatHost(host)).toBe(canonical);
  });

  it.each(["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::ffff:256.0.0.1", "::ffff:01.2.3.4", "fe80::1%eth0", "[fe80::1%25eth0]", "gggg::", ":::", "1:2:3:4:5:6:7::8:9"])(
    "%j is not one",
    (text) => {
      expect(parseHost(text)).toBeUndefined();
    },
  );

  it("writes any 16 bytes in a canonical form that parses back to themselves", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (words) => {
        const host = parseHost(words.map((word) => word.toString(16).padStart(4, "0")).join(":"));
        expect(host?.kind).toBe("ip");
        const again = parseHost(formatHost(host!));
        expect(again?.kind === "ip" && again.address.bytes).toEqual(host?.kind === "ip" && host.address.bytes);
      }),
    );
  });
});

describe("special-purpose addresses", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade"],
    ["0.0.0.0", "this network"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fd12:3456::1", "unique-local"],
    ["fc00::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:c0a8:0101::1", "private"], // 6to4 of 192.168.1.1
    ["2001:db8::1", "documentation"],
    // Refused since the ranges are ipaddr.js's (ip-address.ts): each was allowed by the hand-written table.
    ["::ffff:0:7f00:1", "IPv4-translated"], // 127.0.0.1 through a stateless (SIIT) translator
    ["192.175.48.1", "special-purpose address (as112)"],
    ["192.52.193.1", "special-purpose address (amt)"],
    ["4000::1", "outside the global unicast range"],
    ["::3e9d:8eed:df07:e64a", "outside the global unicast range"],
  ])("%s is %s", (text, kind) => {
    const host = parseHost(text);
    expect(host?.kind).toBe("ip");
    expect(host?.kind === "ip" && specialAddressKind(host.address)).toContain(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"])(
    "%s is public",
    (text) => {
      const host = parseHost(text);
      expect(host?.kind === "ip" && specialAddressKind(host.address)).toBeUndefined();
    },
  );
});

describe("host names", () => {
  it.each(["db.example.com", "DB.Example.COM.", "xn--bcher-kva.example", "a_b.example.com", "localhost"])("%s parses", (text) => {
    expect(parseHost(text)?.kind).toBe("name");
  });

  it.each(["", " ", "db example.com", "db.example.com/x", "user@db.example.com", "db.example.com:5432", "a,b.example.com", "bücher.example", "-db.example.com", "db..example.com", "db%2e.com", "a".repeat(64) + ".com", "1.2.3.256", "example.123"])(
    "%j is refused",
    (text) => {
      expect(parseHost(text)).toBeUndefined();
      expect(reason("", text)).toContain("is not a valid host name or IP address");
    },
  );
});

describe("an empty setting: public hosts only", () => {
  it.each(["db.example.com", "8.8.8.8", "[2606:4700::1111]", "2606:4700::1111", "my-db.eu-west-1.rds.amazonaws.com"])("allows %s", (host) => {
    expect(allowed("", host)).toBe(true);
  });

  it.each([
    "localhost",
    "LOCALHOST",
    "localhost.",
    "db.localhost",
    "printer.local",
    "metadata.google.internal",
    "nas.home.arpa",
    "db", // a single label resolves through local search domains only
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "0",
    "10.0.0.5",
    "0xa.0.0.5",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "0xa9fea9fe",
    "[::1]",
    "::1",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "[fe80::1]",
    "[fd00::1]",
    "[fc00::1]",
    "[64:ff9b::a9fe:a9fe]",
    "[::ffff:0:7f00:1]",
    "[::127.0.0.1]",
    "[2002:7f00:1::1]",
  ])("refuses %s", (host) => {
    expect(allowed("", host)).toBe(false);
    expect(allowed("*", host)).toBe(false);
  });

  it("explains why", () => {
    expect(reason("", "10.0.0.5")).toBe('Host "10.0.0.5" is a private address; this service connects to such hosts only when its operator allows them explicitly.');
    expect(reason("", "localhost")).toContain("a local-only name (.localhost)");
  });
});

describe("an allow-list", () => {
  const setting = "db.example.com, *.corp.example.com:5432, 10.0.0.5, [fd00::7]:6543, 127.0.0.1:5433";

  it("reads every entry", () => {
    expect(parseHostPolicy(setting).invalidEntries).toEqual([]);
    expect(parseHostPolicy(setting).policy.allowsPublicHosts).toBe(false);
  });

  it("allows exactly what it names", () => {
    expect(allowed(setting, "db.example.com")).toBe(true);
    expect(allowed(setting, "DB.EXAMPLE.COM.", 1234)).toBe(true);
    expect(allowed(setting, "a.corp.example.com")).toBe(true);
    expect(allowed(setting, "a.b.corp.example.com")).toBe(true);
    expect(allowed(setting, "10.0.0.5", 1)).toBe(true);
    expect(allowed(setting, "[fd00::7]", 6543)).toBe(true);
    expect(allowed(setting, "127.0.0.1", 5433)).toBe(true);
  });

  it("refuses everything else, public or not", () => {
    expect(allowed(setting, "other.example.com")).toBe(false);
    expect(allowed(setting, "corp.example.com")).toBe(false); // a wildcard needs a label before it
    expect(allowed(setting, "evilcorp.example.com")).toBe(false);
    expect(allowed(setting, "db.example.com.evil.com")).toBe(false);
    expect(allowed(setting, "a.corp.example.com", 5433)).toBe(false);
    expect(allowed(setting, "[fd00::7]", 5432)).toBe(false);
    expect(allowed(setting, "127.0.0.1", 5432)).toBe(false);
    expect(allowed(setting, "8.8.8.8")).toBe(false);
    expect(reason(setting, "8.8.8.8")).toBe('Host "8.8.8.8" (port 5432) is not in the list of hosts this service may connect to.');
  });

  it("matches an IP entry whatever the spelling of the host", () => {
    for (const host of ["10.0.0.5", "10.5", "167772165", "0xa.0.0.5", "012.0.0.5", "[::ffff:10.0.0.5]", "::ffff:a00:5"]) {
      expect(allowed(setting, host), host).toBe(true);
      expect(checkHost(policy(setting), host, 5432)).toEqual({ allowed: true, host: host.includes(":") ? "::ffff:a00:5" : "10.0.0.5" });
    }
  });

  it("never lets a wildcard match an IP address", () => {
    expect(allowed("*.0.0.1", "127.0.0.1")).toBe(false);
    expect(parseHostPolicy("*.0.0.1").invalidEntries).toEqual(["*.0.0.1"]);
  });

  it("with '*', adds public hosts to the listed private ones", () => {
    const mixed = "*, db.internal:5432";
    expect(allowed(mixed, "db.example.com")).toBe(true);
    expect(allowed(mixed, "db.internal")).toBe(true);
    expect(allowed(mixed, "db.internal", 5433)).toBe(false);
    expect(allowed(mixed, "other.internal")).toBe(false);
    expect(allowed(mixed, "10.0.0.1")).toBe(false);
  });

  it("leaves out entries it cannot read, so that a typo never widens it", () => {
    const { policy: parsed, invalidEntries } = parseHostPolicy("db.example.com:99999, bad host, *.*.com, [::1, :5432, db.example.com:5432");
    expect(invalidEntries).toEqual(["db.example.com:99999", "bad host", "*.*.com", "[::1", ":5432"]);
    expect(parsed.allowsPublicHosts).toBe(false);
    expect(checkHost(parsed, "db.example.com", 5432).allowed).toBe(true);
    expect(checkHost(parsed, "8.8.8.8", 5432).allowed).toBe(false);
  });

  it("a list of only unreadable entries allows nothing", () => {
    const parsed = parseHostPolicy("not a host").policy;
    expect(checkHost(parsed, "db.example.com", 5432).allowed).toBe(false);
  });
});

describe("canonical host", () => {
  it("is what gets dialled: lower case, no trailing dot, IPv4 dotted, IPv6 compressed", () => {
    expect(checkHost(policy(""), "DB.Example.com.", 5432)).toEqual({ allowed: true, host: "db.example.com" });
    expect(checkHost(policy("10.0.0.1"), "0xa.1", 5432)).toEqual({ allowed: true, host: "10.0.0.1" });
    expect(checkHost(policy(""), "[2606:4700:0:0:0:0:0:1111]", 5432)).toEqual({ allowed: true, host: "2606:4700::1111" });
  });

  it("a private address is never allowed by the public-only policy, however it is written", () => {
    // Any 32-bit number in 10.0.0.0/8, written in decimal, hex or as an IPv4-mapped IPv6 address.
    fc.assert(
      fc.property(fc.integer({ min: 0x0a000000, max: 0x0affffff }), fc.constantFrom("decimal", "hex", "mapped"), (n, form) => {
        const host = form === "decimal" ? String(n) : form === "hex" ? `0x${n.toString(16)}` : `[::ffff:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}]`;
        expect(allowed("", host)).toBe(false);
      }),
    );
  });
});
