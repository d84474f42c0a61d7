/**
 * Values of ip fields: an IPv4 address (octets 0–255 without leading zeros) or an IPv6 address
 * (the RFC 3986 forms, tried in the reference's order), with an optional CIDR prefix (`/0`–`/32`
 * or `/0`–`/128`; none on an IPv4-mapped IPv6 address). The term query carries the text as
 * written, e.g. `192.168.1.0/24`.
 */
import ipaddr from 'ipaddr.js';
import { expected, failedAt } from './value-error.js';

export const IP_LABEL = 'a valid IPv4 or IPv6 address and optional CIDR prefix';

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** One IPv4 octet at `i` (first matching of `25[0-5]`, `2[0-4]d`, `1dd`, `[1-9]d`, `d`), or -1. */
function octet(s: string, i: number): number {
  const a = s.charCodeAt(i);
  const b = s.charCodeAt(i + 1);
  const c = s.charCodeAt(i + 2);
  if (a === 50 && b === 53 && c >= 48 && c <= 53) return i + 3;
  if (a === 50 && b >= 48 && b <= 52 && isDigit(c)) return i + 3;
  if (a === 49 && isDigit(b) && isDigit(c)) return i + 3;
  if (a >= 49 && a <= 57 && isDigit(b)) return i + 2;
  if (isDigit(a)) return i + 1;
  return -1;
}

function ipv4(s: string, i: number): number {
  for (let k = 0; k < 3; k++) {
    i = octet(s, i);
    if (i === -1 || s.charCodeAt(i) !== 46 /* . */) return -1;
    i++;
  }
  return octet(s, i);
}

/** 1–4 hex digits (greedy), or -1. */
function hexadectet(s: string, i: number): number {
  let j = i;
  while (j < i + 4 && isHex(s.charCodeAt(j))) j++;
  return j === i ? -1 : j;
}

function fragment(s: string, i: number): number {
  const j = hexadectet(s, i);
  return j !== -1 && s.charCodeAt(j) === 58 /* : */ ? j + 1 : -1;
}

function ls32(s: string, i: number): number {
  const h = hexadectet(s, i);
  if (h !== -1 && s.charCodeAt(h) === 58) {
    const h2 = hexadectet(s, h + 1);
    if (h2 !== -1) return h2;
  }
  return ipv4(s, i);
}

function doubleColon(s: string, i: number): number {
  return s.charCodeAt(i) === 58 && s.charCodeAt(i + 1) === 58 ? i + 2 : -1;
}

type Part = 'F' | 'H' | 'D' | 'L';

/** The reference's IPv6 alternatives in order: F = `h16:`, H = `h16`, D = `::`, L = ls32. */
const IPV6_FORMS: Part[][] = [
  'FFFFFFL',
  'DFFFFFL',
  'HDFFFFL',
  'DFFFFL',
  'FHDFFFL',
  'HDFFFL',
  'DFFFL',
  'FFHDFFL',
  'FHDFFL',
  'HDFFL',
  'DFFL',
  'FFFHDFL',
  'FFHDFL',
  'FHDFL',
  'HDFL',
  'DFL',
  'FFFFHDL',
  'FFFHDL',
  'FFHDL',
  'FHDL',
  'HDL',
  'DL',
  'FFFFFHDH',
  'FFFFHDH',
  'FFFHDH',
  'FFHDH',
  'FHDH',
  'HDH',
  'DH',
  'FFFFFFHD',
  'FFFFFHD',
  'FFFFHD',
  'FFFHD',
  'FFHD',
  'FHD',
  'HD',
  'D',
].map((form) => form.split('') as Part[]);

function ipv6(s: string, i: number): number {
  for (const form of IPV6_FORMS) {
    let j = i;
    for (const part of form) {
      j = part === 'F' ? fragment(s, j) : part === 'H' ? hexadectet(s, j) : part === 'D' ? doubleColon(s, j) : ls32(s, j);
      if (j === -1) break;
    }
    if (j !== -1) return j;
  }
  return -1;
}

/** `/n` at `i` with n ≤ max (first matching of the reference's digit patterns), or -1. */
function prefix(s: string, i: number, v6: boolean): number {
  if (s.charCodeAt(i) !== 47 /* / */) return -1;
  const a = s.charCodeAt(i + 1);
  const b = s.charCodeAt(i + 2);
  const c = s.charCodeAt(i + 3);
  if (v6) {
    if (a === 49 && b === 50 && c >= 48 && c <= 56) return i + 4;
    if (a === 49 && (b === 48 || b === 49) && isDigit(c)) return i + 4;
    if (a >= 49 && a <= 57 && isDigit(b)) return i + 3;
  } else {
    if (a === 51 && b >= 48 && b <= 50) return i + 3;
    if ((a === 49 || a === 50) && isDigit(b)) return i + 3;
  }
  return isDigit(a) ? i + 2 : -1;
}

export const MAPPED_PREFIX_MESSAGE = 'a CIDR prefix is not allowed on an IPv4-mapped IPv6 address (write the IPv4 address, e.g. 10.0.0.0/8)';

/** Whether an IPv6 address is IPv4-mapped (`::ffff:0:0/96`, in any of its spellings). */
function isIpv4Mapped(address: string): boolean {
  try {
    return ipaddr.IPv6.parse(address).isIPv4MappedAddress();
  } catch {
    return false;
  }
}

export function parseIp(value: string): string {
  let v6 = false;
  let end = ipv4(value, 0);
  if (end === -1) {
    end = ipv6(value, 0);
    v6 = true;
  }
  if (end === -1) throw expected(IP_LABEL, value, 0);
  const withPrefix = prefix(value, end, v6);
  // A mapped address with a prefix: is it a v4 or a v6 length? The engines refuse it (OpenSearch
  // by its own error), so it is a query error here, not a failed search.
  if (withPrefix !== -1 && v6 && isIpv4Mapped(value.slice(0, end))) throw failedAt(MAPPED_PREFIX_MESSAGE, end);
  if (withPrefix !== -1) end = withPrefix;
  if (end !== value.length) throw expected(IP_LABEL, value, end);
  return value;
}
