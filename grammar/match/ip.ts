import ipaddr from 'ipaddr.js';
import { queryError } from './query-body.js';
import type { RangeBounds } from './range-bounds.js';

/**
 * IP addresses as OpenSearch indexes them: every address is a 128-bit IPv6 value (IPv4 maps to
 * `::ffff:a.b.c.d`). Keys are 32 hex digits, so string order is address order and a CIDR block
 * is a key range. IPv4 is read only in its four-part decimal form and IPv6 without a zone, as
 * OpenSearch reads them (not `10.1`, `0x0a.0.0.1` or `fe80::1%eth0`).
 */

function bytesKey(bytes: number[]): string {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

/** IPv4 in four-part decimal, each part 0–255 without leading zeros (OpenSearch's only IPv4 form). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function parseAddress(value: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (IPV4.test(value)) return ipaddr.IPv4.parse(value);
  if (!value.includes(':') || value.includes('%')) return undefined;
  try {
    return ipaddr.IPv6.parse(value);
  } catch {
    return undefined;
  }
}

function v6Bytes(addr: ipaddr.IPv4 | ipaddr.IPv6): number[] {
  return addr.kind() === 'ipv4' ? (addr as ipaddr.IPv4).toIPv4MappedAddress().toByteArray() : addr.toByteArray();
}

/** The key of one address, or undefined when it does not parse. */
export function ipKey(value: string): string | undefined {
  const addr = parseAddress(value);
  return addr === undefined ? undefined : bytesKey(v6Bytes(addr));
}

/** Inclusive key range of an address or a CIDR block (`10.0.0.0/8`), or undefined if invalid. */
export function ipKeyRange(value: string): [string, string] | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) {
    const k = ipKey(value);
    return k === undefined ? undefined : [k, k];
  }
  const addr = parseAddress(value.slice(0, slash));
  const len = value.slice(slash + 1);
  if (addr === undefined || !/^\d{1,3}$/.test(len)) return undefined;
  const v4 = addr.kind() === 'ipv4';
  if (Number(len) > (v4 ? 32 : 128)) return undefined;
  // OpenSearch refuses a prefix on an IPv4-mapped IPv6 address: is it a v4 or a v6 length?
  if (!v4 && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return undefined;
  const prefix = (v4 ? 96 : 0) + Number(len);
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

/** The key bounds of a range on an ip field (undefined: open); OpenSearch's error for a non-address. */
export function ipRangeKeys(range: RangeBounds): { lo: string | undefined; hi: string | undefined } {
  const key = (raw: unknown) => {
    if (raw === undefined) return undefined;
    const k = typeof raw === 'string' ? ipKey(raw) : undefined;
    if (k === undefined) throw queryError('range', `'${String(raw)}' is not an IP string literal`);
    return k;
  };
  return { lo: key(range.lo), hi: key(range.hi) };
}
