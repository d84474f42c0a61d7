/**
 * One Server-Sent Events stream as a response body: `id:` is the change-log position, one
 * heartbeat comment for every open stream every HEARTBEAT_MS from one timer, and a stream whose
 * client does not read (more than MAX_BUFFERED bytes waiting) is closed: it can resume with
 * `Last-Event-ID`.
 */
import type { LiveEvent } from './types.js';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
} as const;

const HEARTBEAT_MS = 15_000;
const MAX_BUFFERED = 1 << 20;

const encoder = new TextEncoder();
const encodedEvents = new WeakMap<readonly LiveEvent[], Uint8Array>();
const open = new Set<SseStream>();
let heartbeat: NodeJS.Timeout | undefined;

function beat(): void {
  for (const stream of open) stream.write(': heartbeat\n\n');
}

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private readonly closers: (() => void)[] = [];

  constructor() {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => this.close(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 16 * 1024 }),
    );
    open.add(this);
    if (heartbeat === undefined) {
      heartbeat = setInterval(beat, HEARTBEAT_MS);
      heartbeat.unref();
    }
  }

  /** Run `fn` when the stream closes (the client left, or it was closed). */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closers.push(fn);
  }

  /** The position a client resumes from, without an event (sets the EventSource's last id). */
  position(seq: number): void {
    this.write(`retry: 2000\nid: ${seq}\n\n`);
  }

  /** Subscribers of one query get the same array: it is encoded once for all of them. */
  send(events: readonly LiveEvent[]): void {
    if (events.length === 0) return;
    let bytes = encodedEvents.get(events);
    if (bytes === undefined) {
      bytes = encoder.encode(events.map((e) => `id: ${e.seq}\nevent: ${e.event}\ndata: ${e.data}\n\n`).join(''));
      encodedEvents.set(events, bytes);
    }
    this.enqueue(bytes);
  }

  write(text: string): void {
    this.enqueue(encoder.encode(text));
  }

  private enqueue(bytes: Uint8Array): void {
    if (this.closed) return;
    if ((this.controller.desiredSize ?? 0) < -MAX_BUFFERED) {
      this.close();
      return;
    }
    this.controller.enqueue(bytes);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    open.delete(this);
    if (open.size === 0) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
    try {
      this.controller.close();
    } catch {
      // already cancelled by the reader
    }
    for (const fn of this.closers) fn();
  }
}
