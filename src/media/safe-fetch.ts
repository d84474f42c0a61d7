/**
 * Fetching user-submitted URLs without letting them reach our own network (SSRF): https only;
 * every address checked after DNS resolution, on every redirect, and again on the connected
 * socket (so a DNS answer that changes between check and connect gains nothing); bounded
 * redirects, time and size, and a minimum transfer rate so that a server dripping its answer
 * cannot hold a submission for the whole time limit. The type of what arrives is sniffed later from its bytes.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch } from 'undici';

export type FetchErrorCode = 'bad_url' | 'forbidden_address' | 'too_many_redirects' | 'timeout' | 'too_large' | 'http_status' | 'network';

export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SafeFetchOptions {
  /** `host:port` pairs exempt from the address check (local test servers only). */
  allowHosts?: readonly string[];
  maxBytes?: number;
  maxRedirects?: number;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** Below this many bytes per second over a `rateWindowMs` window, the fetch gives up. */
  minBytesPerSecond?: number;
  rateWindowMs?: number;
  userAgent?: string;
  /**
   * Called with each chunk of the body as it arrives (e.g. an IntakeGuard reading the image's
   * declared size); what it throws ends the download and is thrown as it is.
   */
  inspect?: (chunk: Uint8Array) => void;
}

export interface FetchedFile {
  bytes: Buffer;
  /** The URL the bytes came from, after redirects. */
  url: string;
  /** From Content-Disposition, else the last path segment; at most 127 characters. */
  filename: string;
}

const DEFAULTS = {
  maxBytes: 131_072_000,
  maxRedirects: 3,
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 60_000,
  minBytesPerSecond: 16_384,
  rateWindowMs: 5_000,
  userAgent: 'Mozilla/5.0 (compatible; Tagwise image fetcher)',
};

/**
 * The IPv4 address an IPv6 address carries and that a packet to it would reach, or null: the
 * IPv4-mapped `::ffff:0:0/96`, the deprecated IPv4-compatible `::/96` (which ipaddr.js calls
 * unicast, so `::7f00:1` would pass as public), NAT64's well-known prefix `64:ff9b::/96`
 * (RFC 6052) and 6to4's `2002::/16` (RFC 3056, the address in bits 16–47).
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = ip.parts;
  const high = (from: number, to: number) => parts.slice(from, to).every((p) => p === 0);
  const fromWords = (a: number, b: number) => new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (high(0, 6)) return fromWords(parts[6]!, parts[7]!);
  if (parts[0] === 0x64 && parts[1] === 0xff9b && high(2, 6)) return fromWords(parts[6]!, parts[7]!);
  if (parts[0] === 0x2002) return fromWords(parts[1]!, parts[2]!);
  return null;
}

/**
 * Only globally routable unicast addresses: no loopback, private, link-local (cloud metadata),
 * CGNAT, multicast or reserved ranges, also not when embedded in an IPv6 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') ip = embeddedIPv4(ip as ipaddr.IPv6) ?? ip;
  return ip.range() === 'unicast';
}

const hostKey = (url: URL) => `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;

function makeAgent(o: Required<SafeFetchOptions>): Agent {
  const allowed = new Set(o.allowHosts);
  const filteringLookup: typeof dnsLookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const ok = addresses.filter((a) => isPublicAddress(a.address));
      if (ok.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to no public address`), { code: 'ESSRF' }));
      const wantsAll = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
      if (wantsAll) return callback(null, ok);
      return callback(null, ok[0]!.address, ok[0]!.family);
    });
  }) as typeof dnsLookup;
  const checked = buildConnector({ timeout: o.connectTimeoutMs, lookup: filteringLookup } as buildConnector.BuildOptions);
  const trusted = buildConnector({ timeout: o.connectTimeoutMs } as buildConnector.BuildOptions);
  return new Agent({
    headersTimeout: o.totalTimeoutMs,
    bodyTimeout: o.totalTimeoutMs,
    connect(opts, callback) {
      const port = opts.port || (opts.protocol === 'https:' ? '443' : '80');
      const key = `${opts.hostname.replace(/^\[|\]$/g, '')}:${port}`;
      if (allowed.has(key)) return trusted(opts, callback);
      // A custom lookup is never consulted for IP literals: check them here.
      const literal = opts.hostname.replace(/^\[|\]$/g, '');
      if (isIP(literal) && !isPublicAddress(literal)) {
        return callback(Object.assign(new Error(`address ${literal} is not allowed`), { code: 'ESSRF' }), null);
      }
      checked(opts, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('no socket'), null);
        const remote = (socket as Socket).remoteAddress;
        if (!remote || !isPublicAddress(remote)) {
          socket.destroy();
          return callback(Object.assign(new Error(`connected to a non-public address ${remote}`), { code: 'ESSRF' }), null);
        }
        callback(null, socket);
      });
    },
  });
}

function parseHttpsUrl(raw: string, allowed: Set<string>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('bad_url', 'is not a valid URL');
  }
  if (url.protocol !== 'https:') throw new FetchError('bad_url', 'must use https');
  if (url.username || url.password) throw new FetchError('bad_url', 'must not contain credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowed.has(hostKey(url)) && isIP(host) && !isPublicAddress(host)) {
    throw new FetchError('forbidden_address', 'points to an address that is not allowed');
  }
  return url;
}

function filenameOf(url: URL, disposition: string | null): string {
  const m = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition) : null;
  let name = m?.[1] ? decodeURIComponentSafe(m[1]) : decodeURIComponentSafe(url.pathname.split('/').pop() ?? '');
  name = name.replace(/[\\/\0]/g, '_').trim();
  return (name || 'image').slice(0, 127);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function classify(err: unknown): FetchError {
  if (err instanceof FetchError) return err;
  const e = err as { name?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  if (code === 'ESSRF') return new FetchError('forbidden_address', 'points to an address that is not allowed');
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchError('timeout', 'took too long to respond');
  }
  return new FetchError('network', `could not be fetched${code ? ` (${code})` : ''}`);
}

/**
 * Watches a transfer from its first byte of answer: each `windowMs` must bring at least
 * `minBytesPerSecond × windowMs / 1000` bytes, else `signal` aborts and `tooSlow` is set.
 */
class RateWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private received = 0;
  tooSlow = false;
  readonly signal = this.controller.signal;

  constructor(private readonly o: Required<SafeFetchOptions>) {}

  start(): void {
    if (this.timer) return;
    const floor = (this.o.minBytesPerSecond * this.o.rateWindowMs) / 1000;
    this.timer = setInterval(() => {
      if (this.received >= floor) {
        this.received = 0;
        return;
      }
      this.tooSlow = true;
      this.controller.abort();
    }, this.o.rateWindowMs);
  }

  add(bytes: number): void {
    this.received += bytes;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Fetch an https URL safely; throws FetchError with a message fit for a client. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<FetchedFile> {
  const o = { ...DEFAULTS, allowHosts: [], ...options } as Required<SafeFetchOptions>;
  const allowed = new Set(o.allowHosts);
  const agent = makeAgent(o);
  const rate = new RateWatch(o);
  const signal = AbortSignal.any([AbortSignal.timeout(o.totalTimeoutMs), rate.signal]);
  let refused: { error: unknown } | undefined;
  try {
    let url = parseHttpsUrl(rawUrl, allowed);
    for (let hop = 0; ; hop++) {
      const res = await fetch(url, { dispatcher: agent, redirect: 'manual', signal, headers: { 'user-agent': o.userAgent, accept: 'image/*,video/webm;q=0.9,*/*;q=0.5' } });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel();
        if (hop >= o.maxRedirects) throw new FetchError('too_many_redirects', 'redirects too many times');
        url = parseHttpsUrl(new URL(res.headers.get('location')!, url).toString(), allowed);
        continue;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new FetchError('http_status', `answered with status ${res.status}`);
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > o.maxBytes) {
        await res.body?.cancel();
        throw new FetchError('too_large', `is larger than ${o.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      rate.start();
      for await (const chunk of res.body ?? []) {
        total += (chunk as Uint8Array).byteLength;
        rate.add((chunk as Uint8Array).byteLength);
        if (total > o.maxBytes) throw new FetchError('too_large', `is larger than ${o.maxBytes} bytes`);
        try {
          options.inspect?.(chunk as Uint8Array);
        } catch (error) {
          refused = { error };
          throw error;
        }
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
      return { bytes: Buffer.concat(chunks, total), url: url.toString(), filename: filenameOf(url, res.headers.get('content-disposition')) };
    }
  } catch (err) {
    if (refused) throw refused.error;
    if (rate.tooSlow) throw new FetchError('timeout', `sent less than ${o.minBytesPerSecond} bytes per second`);
    throw classify(err);
  } finally {
    rate.stop();
    await agent.close().catch(() => {});
  }
}
