import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Networks a server-side fetch on a client's behalf must not reach (SSRF): unspecified,
 * loopback, private, shared, link-local, multicast and reserved addresses (RFC 6890 special
 * purpose registries; RFC 1918, RFC 6598, RFC 3927, RFC 4193, RFC 4291 §2.5).
 */
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) INTERNAL.addSubnet(net, bits, 'ipv6');

/**
 * Loopback and private-use networks (RFC 1122 §3.2.1.3, RFC 1918 §3, RFC 6598 §7, RFC 4193):
 * where internal services live, which an administrator may register with plain http.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** True for a loopback or private-network host (a name under `localhost`, or such an address). */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && PRIVATE.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (RFC 4291 §2.5.5), if any. */
function embeddedV4(address: string): string | undefined {
  const m = /^::(?:ffff:(?:0:)?)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when `address` (an IP literal) lies on the public Internet; false for anything else, unparsable included. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !INTERNAL.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(bare);
  if (v4 !== undefined) return isPublicAddress(v4);
  return !INTERNAL.check(bare, 'ipv6');
}

/** True when a URL's host (`[...]` around IPv6) is an IP literal of an internal address: connected to without a lookup, it is checked here. */
export function internalLiteral(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) !== 0 && !isPublicAddress(bare);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup that refuses a name resolving to any internal address. The socket connects to
 * the very addresses checked here, so a second answer cannot slip an internal one in (DNS
 * rebinding).
 */
export function publicOnlyLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void {
  dnsLookup(hostname, { family: options.family ?? 0, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
      return callback(Object.assign(new Error(`${hostname} resolves to an internal address`), { code: 'EINTERNALADDRESS' }), []);
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
}
