/**
 * Submissions (`POST /images`) refused before their body is read, over raw sockets against the
 * server `src/main.ts` runs: without a key, with an unknown key, with a declared size over the
 * limit, or with a chunked body that passes the limit while it streams, the JSON 401/413 comes at
 * once and the connection is closed, so a client sending 130 MiB gets its answer after sending
 * about what the kernel buffers hold, not the whole body. A client that waits for `100 Continue`
 * is refused without being asked for its body.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertKey, insertUser } from '../http/harness.js';
import { startOps, type OpsHarness } from './support.js';

const MiB = 1024 * 1024;
const DECLARED = 130 * MiB;
/** Far below the 130 MiB sent: what the sockets' buffers on loopback can hold, and the 1 MiB limit. */
const MOST_SENT = 12 * MiB;

let h: OpsHarness;
let port: number;
let key: string;
beforeAll(async () => {
  h = await startOps({ env: { RATE_LIMITS: 'off' } });
  port = Number(new URL(h.url).port);
  const user = await insertUser(h.db, { name: 'Sender' });
  key = await insertKey(h.db, user.id);
});
afterAll(async () => {
  await h?.close();
});

interface Sent {
  /** Everything the server sent, as text. */
  text: string;
  /** Bytes of body the client had handed to the kernel when the answer arrived. */
  sentAtAnswer: number;
  /** Bytes of body handed to the kernel in all, until the connection ended. */
  sentInAll: number;
  ms: number;
}

/**
 * Send `head` then `total` bytes of body as fast as the connection takes them (64 KiB writes, in
 * `chunked` framing when asked; after a `100 Continue` when asked to wait for it), stopping when
 * the server has answered and closed.
 */
function sendBody(head: string, total: number, options: { chunked?: boolean; waitForContinue?: boolean } = {}): Promise<Sent> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let queued = 0;
    let sentAtAnswer = -1;
    let sending = !options.waitForContinue;
    let done = false;
    // bytes of body the kernel has taken (what is still queued in the socket is not sent yet)
    const sent = () => Math.max(0, socket.bytesWritten - socket.writableLength - Buffer.byteLength(head));
    const pump = () => {
      while (sending && !done && socket.writable && queued < total) {
        const piece = Buffer.alloc(Math.min(64 * 1024, total - queued), 0x61);
        queued += piece.length;
        const frame = options.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.startsWith('HTTP/1.1 100 ') && text.includes('\r\n\r\n')) {
        text = text.slice(text.indexOf('\r\n\r\n') + 4);
        sending = true;
        pump();
      }
      if (sentAtAnswer < 0 && /^HTTP\/1\.1 [2-5]/.test(text)) sentAtAnswer = sent();
    });
    socket.on('error', () => {});
    const finish = () => {
      if (done) return;
      done = true;
      const sentInAll = sent();
      socket.destroy();
      resolve({ text, sentAtAnswer, sentInAll, ms: Date.now() - started });
    };
    socket.on('close', finish);
    setTimeout(finish, 20_000).unref();
  });
}

/** Status, headers and JSON body of one raw answer. */
function parse(raw: string): { status: number; headers: string; body: unknown } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end);
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(raw.slice(end + 4)) };
}

const post = (query: string, headers: string) => `POST /api/v1/json/images${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n`;

describe('POST /images refuses a body it will not use before reading it', () => {
  it('without a key: 401 at once, the connection closed, far less than the 130 MiB sent', async () => {
    const sent = await sendBody(post('', `Content-Length: ${DECLARED}\r\n`), DECLARED);
    expect(parse(sent.text)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(parse(sent.text).headers).toMatch(/connection: close/i);
    expect(sent.sentAtAnswer).toBeLessThan(MOST_SENT);
    expect(sent.sentInAll).toBeLessThan(MOST_SENT);
    expect(sent.ms).toBeLessThan(5_000);
  });

  it('with an unknown key: 401, the same way', async () => {
    const sent = await sendBody(post('?key=not-a-key-at-all', `Content-Length: ${DECLARED}\r\n`), DECLARED);
    expect(parse(sent.text)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(sent.sentInAll).toBeLessThan(MOST_SENT);
  });

  it('with a key and a declared size over 1 MiB: 413 before the body is read', async () => {
    const sent = await sendBody(post(`?key=${key}`, `Content-Length: ${DECLARED}\r\n`), DECLARED);
    expect(parse(sent.text)).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
    expect(parse(sent.text).headers).toMatch(/connection: close/i);
    expect(sent.sentInAll).toBeLessThan(MOST_SENT);
  });

  it('with a key and a chunked body that passes 1 MiB while it streams: 413, the rest not read', async () => {
    const sent = await sendBody(post(`?key=${key}`, 'Transfer-Encoding: chunked\r\n'), DECLARED, { chunked: true });
    expect(parse(sent.text)).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
    expect(sent.sentInAll).toBeLessThan(MOST_SENT);
  });

  it('a client waiting for 100 Continue is answered 401 without sending its body', async () => {
    const sent = await sendBody(post('', `Content-Length: ${DECLARED}\r\nExpect: 100-continue\r\n`), DECLARED, { waitForContinue: true });
    expect(parse(sent.text)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(sent.sentInAll).toBe(0);
  });

  it('a body the route reads is still asked for and read: 100 Continue, then an answer on its merits', async () => {
    const sent = await sendBody(post(`?key=${key}`, 'Content-Length: 1000\r\nExpect: 100-continue\r\nConnection: close\r\n'), 1000, { waitForContinue: true });
    expect(parse(sent.text)).toMatchObject({ status: 400, body: { error: 'Malformed JSON body' } });
    expect(sent.sentInAll).toBe(1000);
  });
});
