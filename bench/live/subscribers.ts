/**
 * The subscribers of `npm run bench -- live`, in a process of their own: N plain TCP connections
 * to the live search stream (`GET /api/v1/json/search/images/live?q=…`, HTTP/1.1), each reading
 * its `image` events. The parent sends each created image's start time (`{ created: [id, ms] }`);
 * the latency of a delivery is its arrival time minus that. Messages to the parent: `connected`
 * with the count, and at the end (`{ end: true }` from the parent) the sorted latencies' figures; `{ count: true }` asks how many arrived so far.
 */
import { connect, type Socket } from 'node:net';

interface Start {
  port: number;
  paths: string[];
  /** Connections opened at once before waiting for their answers' first bytes. */
  burst: number;
}

/** Where an `image` event's data starts, and the image's own id in it (its first `"id":`). */
const MARK = Buffer.from('event: image\ndata: {');
const ID = Buffer.from('"id":');

const created = new Map<number, number>();
/** Deliveries whose image's start time has not arrived yet: image id → arrival times. */
const early = new Map<number, number[]>();
const latencies: number[] = [];
const sockets: Socket[] = [];
let failed = 0;

function record(id: number, at: number): void {
  const start = created.get(id);
  if (start !== undefined) latencies.push(at - start);
  else {
    const list = early.get(id);
    if (list) list.push(at);
    else early.set(id, [at]);
  }
}

function open(port: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let opened = false;
    let tail: Buffer = Buffer.alloc(0);
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      const at = Date.now();
      if (!opened) {
        opened = true;
        if (!chunk.subarray(0, 12).equals(Buffer.from('HTTP/1.1 200'))) failed++;
        resolve();
      }
      // Searched as bytes (no decoding): the subscribers must cost little beside the server.
      const buf = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
      let pos = 0;
      tail = Buffer.alloc(0);
      for (;;) {
        const mark = buf.indexOf(MARK, pos);
        if (mark < 0) {
          tail = Buffer.from(buf.subarray(Math.max(pos, buf.length - MARK.length + 1)));
          break;
        }
        const id = buf.indexOf(ID, mark + MARK.length);
        let end = id < 0 ? -1 : id + ID.length;
        while (end >= 0 && end < buf.length && buf[end]! >= 0x30 && buf[end]! <= 0x39) end++;
        if (id < 0 || end >= buf.length) {
          tail = Buffer.from(buf.subarray(mark));
          break;
        }
        record(Number(buf.toString('latin1', id + ID.length, end)), at);
        pos = end;
      }
    });
    socket.on('error', () => {
      if (!opened) {
        opened = true;
        failed++;
        resolve();
      }
    });
    sockets.push(socket);
  });
}

process.on('message', async (msg: { start?: Start; created?: [number, number][]; count?: boolean; end?: boolean }) => {
  if (msg.count) process.send!({ counted: latencies.length + [...early.values()].reduce((n, l) => n + l.length, 0) });
  if (msg.start) {
    const { port, paths, burst } = msg.start;
    for (let i = 0; i < paths.length; i += burst) await Promise.all(paths.slice(i, i + burst).map((p) => open(port, p)));
    process.send!({ connected: paths.length - failed, failed });
  }
  if (msg.created) {
    for (const [id, at] of msg.created) {
      created.set(id, at);
      for (const arrival of early.get(id) ?? []) latencies.push(arrival - at);
      early.delete(id);
    }
  }
  if (msg.end) {
    for (const s of sockets) s.destroy();
    latencies.sort((a, b) => a - b);
    const q = (p: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!);
    process.send!({ deliveries: latencies.length, unmatched: [...early.values()].reduce((n, l) => n + l.length, 0), p50: q(0.5), p99: q(0.99), max: latencies[latencies.length - 1] ?? Number.NaN });
  }
});
