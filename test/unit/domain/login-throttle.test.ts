import { describe, expect, it } from "vitest";
import { clientAddress } from "../../../src/auth/login-throttle";

const of = (value?: string) => clientAddress(new Headers(value === undefined ? {} : { "CF-Connecting-IP": value }));

describe("the throttling identity of a client", () => {
  it("is its IPv4 address, or 'unknown' without CF-Connecting-IP", () => {
    expect(of("198.51.100.7")).toBe("198.51.100.7");
    expect(of(" 198.51.100.7 ")).toBe("198.51.100.7");
    expect(of()).toBe("unknown");
    expect(of("")).toBe("unknown");
  });

  it("is the /64 of an IPv6 address, however it is spelled", () => {
    expect(of("2001:db8:aaaa:1::5")).toBe("2001:db8:aaaa:1::/64");
    expect(of("2001:0db8:aaaa:0001:ffff:0:0:9")).toBe("2001:db8:aaaa:1::/64");
    expect(of("2001:DB8:AAAA:1:ffff::9")).toBe("2001:db8:aaaa:1::/64");
    expect(of("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(of("::1")).toBe("0:0:0:0::/64");
    expect(of("2001:db8:aaaa:2::5")).not.toBe(of("2001:db8:aaaa:1::5"));
  });

  it("is the IPv4 address inside an IPv4-mapped IPv6 address", () => {
    expect(of("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(of("::ffff:198.51.100.8")).not.toBe(of("::ffff:198.51.100.7"));
  });
});
