/**
 * IP addresses for the connectors' host policy (host-policy.ts): reading the spellings the
 * runtime's URL parser writes, matching a CIDR range, and naming the special-purpose range an
 * address is in. The ranges and their names are ipaddr.js 2.5.0's, which this module replaced to
 * keep 3 KiB of gzip out of the Worker; test/unit/connectors/ip-address.test.ts checks every
 * answer here against ipaddr.js (a development dependency) over random and boundary addresses.
 */
export interface IpAddress {
  readonly kind: "ipv4" | "ipv6";
  /** 4 bytes for IPv4, 16 for IPv6, most significant first. */
  readonly bytes: readonly number[];
}

interface Cidr {
  readonly base: IpAddress;
  readonly prefixLength: number;
}

/** Dotted decimal without leading zeros ("10.0.0.1"), the only IPv4 spelling the URL parser writes. */
export function parseIpv4(text: string): IpAddress | undefined {
  const match = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/.exec(text);
  const bytes = match?.slice(1).map(Number);
  return bytes?.every((byte) => byte <= 255) ? { kind: "ipv4", bytes } : undefined;
}

/** Eight groups of 1 to 4 hex digits, at most one "::" standing for the zero groups it leaves out. */
export function parseIpv6(text: string): IpAddress | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string) => (half === "" ? [] : half.split(":"));
  const [head, tail] = [groupsOf(halves[0]), halves.length === 2 ? groupsOf(halves[1]) : []];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return { kind: "ipv6", bytes: groups.map((group) => Number.parseInt(group, 16)).flatMap((word) => [word >> 8, word & 255]) };
}

/** "10.0.0.0/8" or "fe80::/10"; only for the constant tables below, so a typo throws at once. */
function cidr(text: string): Cidr {
  const [address, length] = text.split("/");
  const base = parseIpv4(address) ?? parseIpv6(address);
  if (!base) throw new Error(`Not a CIDR range: ${text}`);
  return { base, prefixLength: Number(length) };
}

/** Whether the first prefixLength bits of an address are the range's. */
function inRange(address: IpAddress, { base, prefixLength }: Cidr): boolean {
  if (address.kind !== base.kind) return false;
  for (let bit = 0; bit < prefixLength; bit += 8) {
    const mask = (0xff << (8 - Math.min(8, prefixLength - bit))) & 0xff;
    if ((address.bytes[bit / 8] & mask) !== (base.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/** Each range's name and CIDRs, in ipaddr.js's order: an address is in the first range it matches. */
const SPECIAL_RANGES: Record<IpAddress["kind"], ReadonlyArray<readonly [name: string, ranges: Cidr[]]>> = {
  ipv4: [
    ["unspecified", ["0.0.0.0/8"]],
    ["broadcast", ["255.255.255.255/32"]],
    ["multicast", ["224.0.0.0/4"]], // RFC 3171
    ["linkLocal", ["169.254.0.0/16"]], // RFC 3927
    ["loopback", ["127.0.0.0/8"]], // RFC 5735
    ["carrierGradeNat", ["100.64.0.0/10"]], // RFC 6598
    ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]], // RFC 1918
    // IETF protocol, documentation, 6to4 relay, benchmarking, future use (RFCs 5735, 5737, 2544, 1700)
    ["reserved", ["192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4"]],
    ["as112", ["192.175.48.0/24", "192.31.196.0/24"]], // RFCs 7534, 7535
    ["amt", ["192.52.193.0/24"]], // RFC 7450
  ].map(([name, ranges]) => [name as string, (ranges as string[]).map(cidr)] as const),
  ipv6: [
    ["unspecified", ["::/128"]], // RFC 4291, here and after
    ["linkLocal", ["fe80::/10"]],
    ["multicast", ["ff00::/8"]],
    ["loopback", ["::1/128"]],
    ["uniqueLocal", ["fc00::/7"]],
    ["ipv4Mapped", ["::ffff:0:0/96"]],
    ["deprecatedSiteLocal", ["fec0::/10"]], // RFC 3879
    ["discard", ["100::/64"]], // RFC 6666
    ["rfc6145", ["::ffff:0:0:0/96"]],
    ["rfc6052", ["64:ff9b::/96", "64:ff9b:1::/48"]], // RFCs 6052, 8215
    ["6to4", ["2002::/16"]], // RFC 3056
    ["teredo", ["2001::/32"]], // RFCs 6052, 6146
    ["benchmarking", ["2001:2::/48"]], // RFC 5180
    ["amt", ["2001:3::/32"]], // RFC 7450
    ["as112v6", ["2001:4:112::/48", "2620:4f:8000::/48"]], // RFCs 7535, 7534
    ["deprecatedOrchid", ["2001:10::/28"]], // RFC 4843
    ["orchid2", ["2001:20::/28"]], // RFC 7343
    ["droneRemoteIdProtocolEntityTags", ["2001:30::/28"]], // RFC 9374
    ["segmentRouting", ["5f00::/16"]], // RFC 9602
    ["reserved", ["2001::/23", "2001:db8::/32", "3fff::/20"]], // RFCs 3849, 2928, 9637
  ].map(([name, ranges]) => [name as string, (ranges as string[]).map(cidr)] as const),
};

/** The name of the special-purpose range an address is in ("loopback", "private", ...), or "unicast". */
export function rangeOf(address: IpAddress): string {
  const found = SPECIAL_RANGES[address.kind].find(([, ranges]) => ranges.some((range) => inRange(address, range)));
  return found?.[0] ?? "unicast";
}

const GLOBAL_UNICAST = cidr("2000::/3");
const NAT64 = cidr("64:ff9b::/96");

/** Whether an IPv6 address is in 2000::/3, the only range IANA allocates global unicast from. */
export function isGlobalUnicastIpv6(address: IpAddress): boolean {
  return inRange(address, GLOBAL_UNICAST);
}

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.kind !== "ipv6") return undefined;
  const { bytes } = address;
  const ipv4 = (from: number): IpAddress => ({ kind: "ipv4", bytes: bytes.slice(from, from + 4) });
  const range = rangeOf(address);
  if (range === "ipv4Mapped") return ipv4(12); // ::ffff:a.b.c.d
  const compatible = bytes.slice(0, 12).every((byte) => byte === 0) && !(bytes.slice(12, 15).every((byte) => byte === 0) && bytes[15] <= 1); // ::a.b.c.d, not :: or ::1
  if (compatible || inRange(address, NAT64)) return ipv4(12);
  if (range === "6to4") return ipv4(2); // 2002:aabb:ccdd::/48
  return undefined;
}

/** Same destination: an IPv4-mapped IPv6 address is its IPv4 address. */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  const plain = (address: IpAddress) => (rangeOf(address) === "ipv4Mapped" ? embeddedIpv4(address)! : address);
  const [x, y] = [plain(a), plain(b)];
  return x.kind === y.kind && x.bytes.every((byte, i) => byte === y.bytes[i]);
}
