/**
 * The caller's IP address, as request limits, bans and the reverse-search gate charge it: the
 * socket's peer address; with `TRUST_PROXY=true` the last entry of `X-Forwarded-For`, the address
 * our own reverse proxy saw (earlier entries are the client's word and could be forged to dodge
 * limits and bans), else the socket's.
 *
 * A socket's peer never changes, so its normalised address is worked out once per connection and
 * remembered beside the socket (a keep-alive client sends many requests over one); the forwarded
 * header is read on every request, since each may carry another.
 */
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import { requestHeader } from './request-header.js';

/** A valid IP address in its canonical text (IPv4-mapped IPv6 as IPv4), else undefined. */
function normalizeIp(text: string | undefined): string | undefined {
  const value = text?.trim();
  if (!value || !ipaddr.isValid(value)) return undefined;
  try {
    return ipaddr.process(value).toString();
  } catch {
    return undefined;
  }
}

/** Normalised peer addresses by socket; `null` when the peer's address is not a valid IP. */
const peerOfSocket = new WeakMap<Socket, string | null>();

function peerAddress(socket: Socket | undefined): string | undefined {
  if (socket === undefined) return undefined;
  let peer = peerOfSocket.get(socket);
  if (peer === undefined) {
    const address = socket.remoteAddress;
    // a socket already closed has no address yet to remember
    if (address === undefined) return undefined;
    peer = normalizeIp(address) ?? null;
    peerOfSocket.set(socket, peer);
  }
  return peer ?? undefined;
}

/** The caller's IP address (see the module comment for `TRUST_PROXY`). */
export function clientAddress(c: Context, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = requestHeader(c, 'x-forwarded-for');
    if (forwarded) {
      const ip = normalizeIp(forwarded.slice(forwarded.lastIndexOf(',') + 1));
      if (ip) return ip;
    }
  }
  const env = c.env as { incoming?: { socket?: Socket } } | undefined;
  return peerAddress(env?.incoming?.socket);
}
