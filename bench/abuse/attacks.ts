/**
 * The abuse the `abuse` benchmark runs beside normal traffic, over loopback, bounded in count and
 * time: pixel-bomb and SVG render-bomb reverse searches and slowloris connections, and the
 * service's RSS (its decode children's included) sampled meanwhile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid PNG of `side`×`side` 8-bit grey pixels, all black: a few hundred KB on the wire that
 * decode to `side`² bytes (256 MB at 16000) or more once converted to colour.
 */
export function pixelBomb(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  // every row: filter byte 0, then `side` zero bytes
  const raw = Buffer.alloc((side + 1) * side);
  const idat = deflateSync(raw, { level: 9 });
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Issue 35's SVG render bomb (233 bytes): 9,999 × 10,000 declared, a turbulence and a gaussian
 * blur over all of it. Rendered at its declared size it took minutes and gigabytes.
 */
export function svgBomb(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="9999" height="10000"><filter id="f"><feTurbulence baseFrequency=".9" numOctaves="9"/>' +
      '<feGaussianBlur stdDeviation="99"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>',
  );
}

export interface BombResult {
  sent: number;
  statuses: Record<string, number>;
  /** Milliseconds from each request to its whole answer. */
  answerMs: number[];
}

/**
 * `concurrency` loops posting `bomb` as a multipart reverse search until `stop()`. With
 * `ownClients`, each loop names a client address of its own in `X-Forwarded-For` (for a service
 * with `TRUST_PROXY=true`): many clients rather than one.
 */
export function pixelBombs(origin: string, bomb: Buffer, concurrency: number, file: { type: string; name: string; ownClients?: boolean } = { type: 'image/png', name: 'bomb.png' }) {
  const result: BombResult = { sent: 0, statuses: {}, answerMs: [] };
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, k) => {
    const headers: Record<string, string> = file.ownClients ? { 'x-forwarded-for': `10.35.0.${k + 1}` } : {};
    while (running) {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(bomb)], { type: file.type }), file.name);
      let status = 'error';
      const started = performance.now();
      try {
        const res = await fetch(`${origin}/api/v1/json/search/reverse`, { method: 'POST', body: form, headers });
        await res.arrayBuffer();
        status = String(res.status);
      } catch (err) {
        status = (err as { cause?: { code?: string } }).cause?.code ?? 'error';
      }
      result.sent++;
      result.answerMs.push(performance.now() - started);
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    }
  });
  return {
    result,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export interface SlowlorisResult {
  /** Connections opened in all (each one the server cuts off is replaced). */
  opened: number;
  /** How those cut off ended: the status of the answer, or `closed`. */
  endings: Record<string, number>;
}

/**
 * `count` connections that each send a request line and then one header line every `dripMs`,
 * never finishing the headers; a connection the server closes is replaced, so `count` stay open.
 */
export function slowloris(port: number, count: number, dripMs = 2_000) {
  const result: SlowlorisResult = { opened: 0, endings: {} };
  const sockets = new Set<Socket>();
  let running = true;
  const open = () => {
    if (!running) return;
    const socket = connect(port, '127.0.0.1');
    result.opened++;
    sockets.add(socket);
    let answer = '';
    socket.on('connect', () => socket.write('GET /api/v1/json/search/images?q=* HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (!running) return;
      const ending = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed';
      result.endings[ending] = (result.endings[ending] ?? 0) + 1;
      setTimeout(open, 10);
    });
  };
  for (let i = 0; i < count; i++) open();
  let n = 0;
  const drip = setInterval(() => {
    n++;
    for (const s of sockets) if (s.writable) s.write(`X-Drip-${n}: 1\r\n`);
  }, dripMs);
  return {
    result,
    open: () => sockets.size,
    async stop() {
      running = false;
      clearInterval(drip);
      for (const s of sockets) s.destroy();
      await sleep(100);
    },
  };
}

/** The resident set size of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** The process ids of a process's children (Linux). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (listed) out.push(...listed.split(/\s+/).map(Number));
  }
  return out;
}

/**
 * The resident set size of a process and its Node children (the decode sandbox's), in MB: what
 * the service costs the machine. PostgreSQL's processes are left out, as the service's own RSS
 * always left them out.
 */
export function serviceRssMb(pid: number): number {
  let total = rssMb(pid);
  for (const child of childrenOf(pid)) {
    try {
      if (readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'node') total += rssMb(child);
    } catch {
      /* the child is gone */
    }
  }
  return total;
}

/** Samples the service's RSS (`serviceRssMb`) every `everyMs` until `stop()`, which answers the largest seen. */
export function sampleRss(pid: number, everyMs = 100) {
  let max = serviceRssMb(pid);
  const timer = setInterval(() => {
    try {
      max = Math.max(max, serviceRssMb(pid));
    } catch {
      /* the process is gone */
    }
  }, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      return max;
    },
  };
}
