/**
 * Phoenix's JSON serializer, both versions the JS client speaks (as in the `phoenix` package's
 * serializer.js and Phoenix.Socket.V1/V2.JSONSerializer): version 2.0.0 frames a message as
 * `[join_ref, ref, topic, event, payload]`, version 1.0.0 as `{topic, event, payload, ref}`.
 * Replies are event `phx_reply` with `{status, response}`; broadcasts carry no refs.
 */

export type PhoenixVsn = '1.0.0' | '2.0.0';

export interface PhoenixMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** The serializer version of `?vsn=` (absent: 1.0.0, as Phoenix assumes), or null if unsupported. */
export function parseVsn(vsn: string | undefined): PhoenixVsn | null {
  if (vsn === undefined || vsn === '1.0.0') return '1.0.0';
  return vsn === '2.0.0' ? '2.0.0' : null;
}

const refOf = (v: unknown): string | null | undefined => (v === null || v === undefined ? null : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** A client frame decoded, or null when it is not a message of this version. */
export function decode(vsn: PhoenixVsn, text: string): PhoenixMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(value) || value.length !== 5) return null;
    const [joinRef, ref, topic, event, payload] = value as unknown[];
    const j = refOf(joinRef);
    const r = refOf(ref);
    if (j === undefined || r === undefined || typeof topic !== 'string' || typeof event !== 'string') return null;
    return { joinRef: j, ref: r, topic, event, payload };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const r = refOf(o.ref);
  const j = refOf(o.join_ref);
  if (r === undefined || j === undefined || typeof o.topic !== 'string' || typeof o.event !== 'string') return null;
  return { joinRef: j, ref: r, topic: o.topic, event: o.event, payload: o.payload ?? {} };
}

/** A server frame; `payloadJson` is the payload as JSON text already. */
export function encode(vsn: PhoenixVsn, m: Omit<PhoenixMessage, 'payload'>, payloadJson: string): string {
  const topic = JSON.stringify(m.topic);
  const event = JSON.stringify(m.event);
  if (vsn === '2.0.0') return `[${JSON.stringify(m.joinRef)},${JSON.stringify(m.ref)},${topic},${event},${payloadJson}]`;
  return `{"topic":${topic},"event":${event},"payload":${payloadJson},"ref":${JSON.stringify(m.ref)}}`;
}

/** The reply to a client message. */
export function reply(vsn: PhoenixVsn, to: PhoenixMessage, status: 'ok' | 'error', response: unknown): string {
  return encode(vsn, { joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply' }, JSON.stringify({ status, response }));
}
