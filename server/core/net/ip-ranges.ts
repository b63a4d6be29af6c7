/**
 * What kind of address a resolved IP is, for the egress broker (SPEC §6: reject loopback, private,
 * link-local, CGNAT, metadata and reserved addresses, IPv4, IPv6 and v4-mapped). Pure: no DNS, no
 * sockets; the adapter resolves and this module only reads the text it got back.
 *
 * Deny when in doubt: anything this parser does not read exactly is 'invalid', every IPv6 address
 * outside global unicast (2000::/3) is 'reserved', and the broker treats every class but 'public'
 * as a refusal.
 */
export const ADDRESS_CLASSES = [
  'public',
  'loopback',
  'private',
  'link-local',
  'cgnat',
  'metadata',
  'multicast',
  'unspecified',
  'reserved',
  'invalid',
] as const;

export type AddressClass = (typeof ADDRESS_CLASSES)[number];

export type ParsedAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: bigint };

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
/**
 * Canonical dotted decimal only. `0x7f.1`, `017700000001`, `127.1` and `010.0.0.1` mean different
 * addresses to different parsers (inet_aton reads octal); the resolver never returns them, so a
 * string in any of those spellings is 'invalid' rather than guessed at.
 */
const DOTTED_QUAD = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`, 'u');
const HEXTET = /^[0-9a-fA-F]{1,4}$/u;

/** A canonical dotted quad as a 32-bit unsigned number, else undefined. */
export function parseIPv4(text: string): number | undefined {
  if (!DOTTED_QUAD.test(text)) return undefined;
  return text.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/**
 * An IPv6 address in any RFC 4291 §2.2 text form (these are unambiguous, unlike IPv4's), as a
 * 128-bit number. No brackets, no zone (`%eth0`): a scoped address is 'invalid', which refuses it.
 */
export function parseIPv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  // INVARIANT: an embedded dotted quad is only ever the last 32 bits (RFC 4291 §2.2 form 3).
  const head = hextets(halves[0] ?? '', !compressed);
  const tail = compressed ? hextets(halves[1] ?? '', true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  // `::` stands for one or more zero groups; without it there must be exactly eight.
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array.from({ length: missing }, () => 0), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

function hextets(part: string, mayEndInQuad: boolean): number[] | undefined {
  if (part === '') return [];
  const fields = part.split(':');
  const out: number[] = [];
  for (const [i, field] of fields.entries()) {
    if (HEXTET.test(field)) {
      out.push(Number.parseInt(field, 16));
      continue;
    }
    const v4 = mayEndInQuad && i === fields.length - 1 ? parseIPv4(field) : undefined;
    if (v4 === undefined) return undefined;
    out.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
  }
  return out;
}

export function parseAddress(text: string): ParsedAddress | undefined {
  if (text.includes(':')) {
    const value = parseIPv6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIPv4(text);
  return value === undefined ? undefined : { family: 4, value };
}

/** Same family and same bits. `::ffff:127.0.0.1` is not `127.0.0.1`: an allowlist names one exactly. */
export function sameAddress(a: string, b: string): boolean {
  const x = parseAddress(a);
  const y = parseAddress(b);
  return x !== undefined && y !== undefined && x.family === y.family && x.value === y.value;
}

export function classifyAddress(ip: string): AddressClass {
  const parsed = parseAddress(ip);
  if (parsed === undefined) return 'invalid';
  return parsed.family === 4 ? classifyV4(parsed.value) : classifyV6(parsed.value);
}

interface Range<T> {
  readonly prefix: T;
  readonly bits: number;
  readonly class: AddressClass;
}

function v4(text: string, bits: number, cls: AddressClass): Range<number> {
  const prefix = parseIPv4(text);
  if (prefix === undefined) throw new TypeError(`bad range \`${text}\``);
  return { prefix, bits, class: cls };
}

function v6(text: string, bits: number, cls: AddressClass): Range<bigint> {
  const prefix = parseIPv6(text);
  if (prefix === undefined) throw new TypeError(`bad range \`${text}\``);
  return { prefix, bits, class: cls };
}

/**
 * The tables, built on first use (a hook call that fetches nothing never builds them).
 */
function buildTables() {
  // First match wins, so single addresses come before the blocks that contain them (RFC 6890).
  const V4_RANGES: readonly Range<number>[] = [
    v4('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure, OCI instance metadata
    v4('169.254.170.2', 32, 'metadata'), // AWS ECS task metadata and credentials
    v4('100.100.100.200', 32, 'metadata'), // Alibaba Cloud metadata
    v4('192.0.0.192', 32, 'metadata'), // legacy OCI metadata
    v4('168.63.129.16', 32, 'metadata'), // Azure WireServer: a public-looking address only the host answers
    v4('0.0.0.0', 32, 'unspecified'), // connecting to it reaches this host on Linux
    v4('255.255.255.255', 32, 'reserved'), // limited broadcast (RFC 919)
    v4('0.0.0.0', 8, 'reserved'), // "this network" (RFC 1122 §3.2.1.3)
    v4('10.0.0.0', 8, 'private'), // RFC 1918
    v4('100.64.0.0', 10, 'cgnat'), // shared address space (RFC 6598)
    v4('127.0.0.0', 8, 'loopback'),
    v4('169.254.0.0', 16, 'link-local'), // RFC 3927
    v4('172.16.0.0', 12, 'private'), // RFC 1918
    v4('192.0.0.0', 24, 'reserved'), // IETF protocol assignments (RFC 6890)
    v4('192.0.2.0', 24, 'reserved'), // TEST-NET-1 (RFC 5737)
    v4('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast (RFC 7526)
    v4('192.168.0.0', 16, 'private'), // RFC 1918
    v4('198.18.0.0', 15, 'reserved'), // benchmarking (RFC 2544)
    v4('198.51.100.0', 24, 'reserved'), // TEST-NET-2
    v4('203.0.113.0', 24, 'reserved'), // TEST-NET-3
    v4('224.0.0.0', 4, 'multicast'),
    v4('240.0.0.0', 4, 'reserved'), // future use (RFC 1112)
  ];

  const V6_RANGES: readonly Range<bigint>[] = [
    v6('fd00:ec2::254', 128, 'metadata'), // AWS instance metadata over IPv6
    v6('64:ff9b:1::', 48, 'reserved'), // local-use NAT64 (RFC 8215): may translate to anything inside
    v6('100::', 64, 'reserved'), // discard-only (RFC 6666)
    v6('2001::', 23, 'reserved'), // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
    v6('2001:db8::', 32, 'reserved'), // documentation (RFC 3849)
    v6('3fff::', 20, 'reserved'), // documentation (RFC 9637)
    v6('fc00::', 7, 'private'), // unique local (RFC 4193)
    v6('fe80::', 10, 'link-local'),
    v6('fec0::', 10, 'private'), // deprecated site-local (RFC 3879)
    v6('ff00::', 8, 'multicast'),
  ];

  const V4_MAPPED = v6('::ffff:0:0', 96, 'reserved'); // RFC 4291 §2.5.5.2
  const NAT64 = v6('64:ff9b::', 96, 'reserved'); // well-known prefix (RFC 6052 §2.1)
  const SIX_TO_FOUR = v6('2002::', 16, 'reserved'); // RFC 3056
  const V4_COMPATIBLE = v6('::', 96, 'reserved'); // deprecated (RFC 4291 §2.5.5.1)
  const V4_TRANSLATED = v6('::ffff:0:0:0', 96, 'reserved'); // SIIT (RFC 2765)
  const GLOBAL_UNICAST = v6('2000::', 3, 'public');

  return { V4_RANGES, V6_RANGES, V4_MAPPED, NAT64, SIX_TO_FOUR, V4_COMPATIBLE, V4_TRANSLATED, GLOBAL_UNICAST };
}

let built: ReturnType<typeof buildTables> | undefined;

function tables(): ReturnType<typeof buildTables> {
  built ??= buildTables();
  return built;
}

function inV4(value: number, range: Range<number>): boolean {
  const size = 2 ** (32 - range.bits);
  return Math.floor(value / size) === Math.floor(range.prefix / size);
}

function inV6(value: bigint, range: Range<bigint>): boolean {
  const shift = BigInt(128 - range.bits);
  return value >> shift === range.prefix >> shift;
}

function classifyV4(value: number): AddressClass {
  return tables().V4_RANGES.find((range) => inV4(value, range))?.class ?? 'public';
}

function classifyV6(value: bigint): AddressClass {
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  const embedded = embeddedV4Class(value);
  if (embedded !== undefined) return embedded;
  const { V6_RANGES, GLOBAL_UNICAST } = tables();
  const listed = V6_RANGES.find((range) => inV6(value, range));
  if (listed !== undefined) return listed.class;
  return inV6(value, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/**
 * Addresses that carry an IPv4 address and can reach it: a v4-mapped address on a dual-stack
 * socket is that IPv4 address, and NAT64 or 6to4 forward to it, so each takes the embedded
 * address's class. The deprecated forms have no public use: at best 'reserved'.
 */
function embeddedV4Class(value: bigint): AddressClass | undefined {
  const { V4_MAPPED, NAT64, SIX_TO_FOUR, V4_COMPATIBLE, V4_TRANSLATED } = tables();
  const low32 = Number(value & 0xffffffffn);
  if (inV6(value, V4_MAPPED) || inV6(value, NAT64)) return classifyV4(low32);
  if (inV6(value, SIX_TO_FOUR)) return classifyV4(Number((value >> 80n) & 0xffffffffn));
  if (inV6(value, V4_COMPATIBLE) || inV6(value, V4_TRANSLATED)) {
    const inner = classifyV4(low32);
    return inner === 'public' ? 'reserved' : inner;
  }
  return undefined;
}
