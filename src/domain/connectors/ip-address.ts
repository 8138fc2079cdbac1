/**
 * IP address literals as a connection's host may spell them, and the address ranges that
 * must not be reached without an explicit allowance. Pure: no DNS, no sockets.
 *
 * IPv4 is parsed the way C resolvers (inet_aton) and URL parsers read it, because that is
 * how the address will be dialled: "127.1", "2130706433", "0x7f.0.0.1" and "0177.0.0.1"
 * all mean 127.0.0.1.
 */

export type IpAddress =
  | { version: 4; bytes: readonly number[] } // 4 bytes
  | { version: 6; bytes: readonly number[] }; // 16 bytes

/** A parsed IPv4 literal, undefined when the text is not one (it may still be a name). */
export function parseIpv4(text: string): IpAddress | undefined {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop(); // "1.2.3.4." is allowed
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIpv4Number(part);
    if (value === undefined) return undefined;
    numbers.push(value);
  }
  // All parts but the last are one byte; the last fills the remaining bytes ("127.1").
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  const bytes = [...numbers];
  for (let i = 3 - numbers.length; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return { version: 4, bytes };
}

/** "0x1F" is hex, "017" is octal, "17" is decimal. */
function parseIpv4Number(part: string): number | undefined {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return undefined;
}

/** True when the last label is numeric: such a host must be a valid IPv4 literal. */
export function looksLikeIpv4(text: string): boolean {
  const labels = text.replace(/\.$/, "").split(".");
  return /^(0[xX][0-9a-fA-F]*|[0-9]+)$/.test(labels[labels.length - 1]);
}

/** A parsed IPv6 literal (without brackets), undefined when the text is not one. */
export function parseIpv6(text: string): IpAddress | undefined {
  if (text.includes("%")) return undefined; // zone ids ("fe80::1%eth0") name a local interface
  let head = text;
  const tail: number[] = [];
  // An embedded dotted IPv4 in the last 32 bits: "::ffff:127.0.0.1".
  const lastColon = text.lastIndexOf(":");
  if (lastColon >= 0 && text.slice(lastColon + 1).includes(".")) {
    const v4 = text.slice(lastColon + 1);
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) return undefined;
    const octets = v4.split(".").map(Number);
    if (octets.some((o) => o > 255)) return undefined;
    tail.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    for (const group of half.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const before = groups(halves[0]);
  const after = halves.length === 2 ? groups(halves[1]) : [];
  if (!before || !after) return undefined;
  const explicit = before.length + after.length + tail.length;
  let words: number[];
  if (halves.length === 2) {
    if (explicit > 7) return undefined; // "::" stands for at least one zero group
    words = [...before, ...new Array<number>(8 - explicit).fill(0), ...after, ...tail];
  } else {
    if (explicit !== 8) return undefined;
    words = [...before, ...tail];
  }
  return { version: 6, bytes: words.flatMap((w) => [w >> 8, w & 0xff]) };
}

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.version !== 6) return undefined;
  const b = address.bytes;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last4 = { version: 4 as const, bytes: b.slice(12, 16) };
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return last4; // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 12) && !(zeros(12, 15) && b[15] <= 1)) return last4; // ::a.b.c.d ("compatible"), not :: or ::1
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return last4; // 64:ff9b::/96 NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return { version: 4, bytes: b.slice(2, 6) }; // 2002::/16 6to4
  return undefined;
}

/** The canonical text: dotted IPv4, or compressed lower-case IPv6 (RFC 5952). */
export function formatIp(address: IpAddress): string {
  if (address.version === 4) return address.bytes.join(".");
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((address.bytes[i] << 8) | address.bytes[i + 1]);
  // The longest run of two or more zero words becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

interface Range {
  prefix: readonly number[];
  bits: number;
  description: string;
}

const v4 = (text: string, bits: number, description: string): Range => ({ prefix: parseIpv4(text)!.bytes, bits, description });
const v6 = (text: string, bits: number, description: string): Range => ({ prefix: parseIpv6(text)!.bytes, bits, description });

// Everything that is not an ordinary public unicast address (IANA special-purpose registries).
const SPECIAL_IPV4: readonly Range[] = [
  v4("0.0.0.0", 8, "a 'this network' address"),
  v4("10.0.0.0", 8, "a private address"),
  v4("100.64.0.0", 10, "a shared (carrier-grade NAT) address"),
  v4("127.0.0.0", 8, "a loopback address"),
  v4("169.254.0.0", 16, "a link-local address"),
  v4("172.16.0.0", 12, "a private address"),
  v4("192.0.0.0", 24, "an IETF protocol address"),
  v4("192.0.2.0", 24, "a documentation address"),
  v4("192.88.99.0", 24, "a 6to4 relay address"),
  v4("192.168.0.0", 16, "a private address"),
  v4("198.18.0.0", 15, "a benchmarking address"),
  v4("198.51.100.0", 24, "a documentation address"),
  v4("203.0.113.0", 24, "a documentation address"),
  v4("224.0.0.0", 4, "a multicast address"),
  v4("240.0.0.0", 4, "a reserved address"),
];

const SPECIAL_IPV6: readonly Range[] = [
  v6("::", 128, "the unspecified address"),
  v6("::1", 128, "a loopback address"),
  v6("64:ff9b:1::", 48, "a local-use NAT64 address"),
  v6("100::", 64, "a discard-only address"),
  v6("2001::", 32, "a Teredo tunnelling address"),
  v6("2001:db8::", 32, "a documentation address"),
  v6("3fff::", 20, "a documentation address"),
  v6("fc00::", 7, "a unique-local address"),
  v6("fe80::", 10, "a link-local address"),
  v6("fec0::", 10, "a site-local address"),
  v6("ff00::", 8, "a multicast address"),
];

/**
 * Why an address is not a public unicast address ("a loopback address", ...), or
 * undefined when it is one. IPv6 forms that carry an IPv4 address are judged by it.
 */
export function specialAddressKind(address: IpAddress): string | undefined {
  const inner = embeddedIpv4(address);
  if (inner) return specialAddressKind(inner);
  const ranges = address.version === 4 ? SPECIAL_IPV4 : SPECIAL_IPV6;
  return ranges.find((range) => inPrefix(address.bytes, range.prefix, range.bits))?.description;
}

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const index = bit / 8;
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[index] & mask) !== (prefix[index] & mask)) return false;
  }
  return true;
}

/** Same destination: an IPv4-mapped IPv6 address equals its IPv4 address. */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  const plain = (x: IpAddress) => (x.version === 6 && isMapped(x) ? embeddedIpv4(x)! : x);
  const [x, y] = [plain(a), plain(b)];
  return x.version === y.version && x.bytes.every((byte, i) => byte === y.bytes[i]);
}

function isMapped(address: IpAddress): boolean {
  const b = address.bytes;
  return b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}
