/**
 * Which hosts a connector may open a connection to. Connections are created by API users,
 * so without this rule the service could be pointed at its own network (cloud metadata
 * endpoints, databases on localhost, ...). The check runs before any connection attempt.
 *
 * The setting (CONNECTOR_ALLOWED_HOSTS) is a comma-separated list of entries:
 *   db.example.com          that host name, any port
 *   db.example.com:5432     that host name, that port only
 *   *.example.com           any name under example.com (not example.com itself)
 *   10.0.0.5, [fd00::5]:5432  an IP address (any spelling of it), optionally with a port
 *   *                       any public host
 * An empty setting means "*". Private, loopback, link-local, unique-local and other
 * special-purpose addresses, and local-only names (localhost, *.local, single labels, ...)
 * are refused unless an entry names them explicitly; a wildcard never matches an IP.
 *
 * Limitation: names are checked as written. A public name whose DNS record points at a
 * private address (db.attacker.example -> 10.0.0.5, 127.0.0.1.nip.io) cannot be caught
 * here, because a Worker has no DNS lookup of its own before connect()/fetch().
 */
import { embeddedIpv4, type IpAddress, isGlobalUnicastIpv6, parseIpv4, parseIpv6, rangeOf, sameAddress } from "./ip-address";

/** `text` is the address's canonical spelling, as the runtime's URL parser writes it. */
export type ParsedHost = { kind: "ip"; address: IpAddress; text: string } | { kind: "name"; name: string };

type PolicyEntry =
  | { kind: "name"; name: string; port?: number }
  | { kind: "suffix"; suffix: string; port?: number } // ".example.com"
  | { kind: "ip"; address: IpAddress; port?: number };

export interface HostPolicy {
  /** True with "*" or an empty setting: public hosts are allowed without being listed. */
  readonly allowsPublicHosts: boolean;
  readonly entries: readonly PolicyEntry[];
}

export type HostVerdict =
  /** `host` is the canonical spelling to connect to ("0x7f.1" becomes "127.0.0.1"). */
  | { allowed: true; host: string }
  | { allowed: false; reason: string };

// Names that only ever resolve inside a local network (RFC 6761, 6762, 8375, 2606).
const LOCAL_ONLY_SUFFIXES = ["localhost", "local", "localdomain", "internal", "home.arpa", "lan", "intranet", "corp", "private", "test", "invalid"];

/** Reads the setting; entries that cannot be parsed are left out (and reported) so a typo never widens the policy. */
export function parseHostPolicy(setting: string | undefined): { policy: HostPolicy; invalidEntries: string[] } {
  const raw = (setting ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  const entries: PolicyEntry[] = [];
  const invalidEntries: string[] = [];
  let allowsPublicHosts = raw.length === 0;
  for (const text of raw) {
    if (text === "*") {
      allowsPublicHosts = true;
      continue;
    }
    const entry = parseEntry(text);
    if (entry) entries.push(entry);
    else invalidEntries.push(text);
  }
  return { policy: { allowsPublicHosts, entries }, invalidEntries };
}

function parseEntry(text: string): PolicyEntry | undefined {
  const split = splitHostAndPort(text.toLowerCase());
  if (!split) return undefined;
  const { host, port } = split;
  if (host.startsWith("*.")) {
    const parsed = parseHost(host.slice(2));
    return parsed && parsed.kind === "name" ? { kind: "suffix", suffix: `.${parsed.name}`, port } : undefined;
  }
  const parsed = parseHost(host);
  if (!parsed) return undefined;
  return parsed.kind === "ip" ? { kind: "ip", address: parsed.address, port } : { kind: "name", name: parsed.name, port };
}

/** "host", "host:port", "[v6]", "[v6]:port" or a bare IPv6 literal (which cannot carry a port). */
function splitHostAndPort(text: string): { host: string; port?: number } | undefined {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(text);
  if (bracketed) return withPort(`[${bracketed[1]}]`, bracketed[2]);
  const colons = text.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = text.split(":");
    return withPort(host, port);
  }
  return { host: text };
}

function withPort(host: string, port: string | undefined): { host: string; port?: number } | undefined {
  if (port === undefined) return { host };
  const value = Number(port);
  return /^\d{1,5}$/.test(port) && value >= 1 && value <= 65535 ? { host, port: value } : undefined;
}

/**
 * A host as a connection gives it: a DNS name, an IPv4 literal in any spelling, or an IPv6
 * literal with or without brackets. Undefined for anything else (spaces, "%", "@", "/",
 * commas, non-ASCII: a name must arrive in its ASCII/punycode form).
 *
 * The runtime's WHATWG URL parser reads the host, as fetch() and connect() will: it turns every
 * IPv4 spelling a URL may carry ("127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1") into dotted
 * decimal, refuses a name whose last label is a number but no IPv4 address ("1.2.3.256"), and
 * writes IPv6 in its compressed form. The characters are checked first, because the URL parser
 * would also percent-decode and map Unicode, and a host must arrive as it will be dialled.
 */
export function parseHost(raw: string): ParsedHost | undefined {
  const text = raw.trim().toLowerCase();
  const ipv6 = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text.includes(":") ? text : undefined;
  if (ipv6 !== undefined) {
    // No zone id ("fe80::1%eth0"): it names a local interface.
    const hostname = /^[0-9a-f:.]+$/.test(ipv6) ? urlHostname(`[${ipv6}]`) : undefined;
    if (hostname === undefined) return undefined;
    const canonical = hostname.slice(1, -1);
    const address = parseIpv6(canonical);
    return address && { kind: "ip", address, text: canonical };
  }
  if (!/^[a-z0-9._-]+$/.test(text)) return undefined;
  const hostname = urlHostname(text);
  if (hostname === undefined) return undefined;
  const ipv4 = parseIpv4(hostname);
  if (ipv4) return { kind: "ip", address: ipv4, text: hostname };
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > 253) return undefined;
  const labels = name.split(".");
  if (!labels.every((label) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label))) return undefined;
  return { kind: "name", name };
}

function urlHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/** The canonical spelling of a parsed host, as it should be dialled. */
export function formatHost(host: ParsedHost): string {
  return host.kind === "name" ? host.name : host.text;
}

/** Decides whether a connection to host:port may be attempted. */
export function checkHost(policy: HostPolicy, rawHost: string, port: number): HostVerdict {
  const host = parseHost(rawHost);
  const shown = JSON.stringify(rawHost.slice(0, 100));
  if (!host) return { allowed: false, reason: `Host ${shown} is not a valid host name or IP address.` };
  const canonical = formatHost(host);

  if (policy.entries.some((entry) => matches(entry, host, port))) return { allowed: true, host: canonical };

  if (!policy.allowsPublicHosts) {
    return { allowed: false, reason: `Host ${shown} (port ${port}) is not in the list of hosts this service may connect to.` };
  }
  const localKind = host.kind === "ip" ? specialAddressKind(host.address) : localOnlyName(host.name);
  if (localKind) {
    return {
      allowed: false,
      reason: `Host ${shown} is ${localKind}; this service connects to such hosts only when its operator allows them explicitly.`,
    };
  }
  return { allowed: true, host: canonical };
}

function matches(entry: PolicyEntry, host: ParsedHost, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  if (entry.kind === "ip") return host.kind === "ip" && sameAddress(entry.address, host.address);
  if (host.kind !== "name") return false;
  if (entry.kind === "name") return host.name === entry.name;
  return host.name.endsWith(entry.suffix);
}

function localOnlyName(name: string): string | undefined {
  if (!name.includes(".") && name !== "localhost") return "a single-label name, which resolves only on a local network";
  const suffix = LOCAL_ONLY_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  return suffix ? `a local-only name (.${suffix})` : undefined;
}

// Why an address in one of the special-purpose ranges (ip-address.ts) may not be reached
// unlisted. A range named there and not here is refused all the same.
const IPV4_RANGES: Record<string, string> = {
  unspecified: "a 'this network' address",
  broadcast: "a reserved (broadcast) address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  private: "a private address",
  reserved: "a reserved address (IETF protocol, documentation, benchmarking, 6to4 relay or future use)",
};
const IPV6_RANGES: Record<string, string> = {
  unspecified: "the unspecified address",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  uniqueLocal: "a unique-local address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  rfc6052: "a local-use NAT64 address",
  rfc6145: "an IPv4-translated address",
  teredo: "a Teredo tunnelling address",
  reserved: "a documentation or reserved address",
};

/**
 * Why an address is not a public unicast address ("a loopback address", ...), or undefined
 * when it is one. IPv6 forms that carry an IPv4 address are judged by it.
 */
export function specialAddressKind(address: IpAddress): string | undefined {
  const inner = embeddedIpv4(address);
  if (inner) return specialAddressKind(inner);
  const range = rangeOf(address);
  const names = address.kind === "ipv4" ? IPV4_RANGES : IPV6_RANGES;
  if (range !== "unicast") return names[range] ?? `a special-purpose address (${range})`;
  return address.kind === "ipv4" || isGlobalUnicastIpv6(address) ? undefined : "an address outside the global unicast range (2000::/3)";
}
