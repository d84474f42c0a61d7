import ipaddr from 'ipaddr.js';

/**
 * IP addresses as OpenSearch indexes them: every address is a 128-bit IPv6 value (IPv4 maps to
 * `::ffff:a.b.c.d`). Keys are 32 hex digits, so string order is address order and a CIDR block
 * is a key range.
 */

function bytesKey(bytes: number[]): string {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

function v6Bytes(addr: ipaddr.IPv4 | ipaddr.IPv6): number[] {
  return addr.kind() === 'ipv4' ? (addr as ipaddr.IPv4).toIPv4MappedAddress().toByteArray() : addr.toByteArray();
}

/** The key of one address, or undefined when it does not parse. */
export function ipKey(value: string): string | undefined {
  if (!ipaddr.isValid(value)) return undefined;
  try {
    return bytesKey(v6Bytes(ipaddr.parse(value)));
  } catch {
    return undefined;
  }
}

/** Inclusive key range of an address or a CIDR block (`10.0.0.0/8`), or undefined if invalid. */
export function ipKeyRange(value: string): [string, string] | undefined {
  if (!value.includes('/')) {
    const k = ipKey(value);
    return k === undefined ? undefined : [k, k];
  }
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(value);
  } catch {
    return undefined;
  }
  const [addr, len] = parsed;
  // OpenSearch refuses a prefix on an IPv4-mapped IPv6 address: v4 or v6 prefix length?
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return undefined;
  const prefix = addr.kind() === 'ipv4' ? 96 + len : len;
  const bytes = v6Bytes(addr);
  const lo = bytes.slice();
  const hi = bytes.slice();
  for (let bit = prefix; bit < 128; bit++) {
    const i = bit >>> 3;
    const m = 0x80 >>> (bit & 7);
    lo[i]! &= ~m;
    hi[i]! |= m;
  }
  return [bytesKey(lo), bytesKey(hi)];
}
