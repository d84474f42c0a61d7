/**
 * The service as a process (`src/main.ts` with an embedded PostgreSQL and the embedded engine
 * under a temporary DATA_DIR): SIGTERM during a request lets it finish, closes idle keep-alive
 * connections, refuses new ones, ends live search streams and sockets; under keep-alive load
 * every request in flight is answered and answers after the signal say `Connection: close`;
 * writes the engine snapshot, stops PostgreSQL and exits 0; a request that never ends hits
 * SHUTDOWN_TIMEOUT_SECONDS (exit 1, PostgreSQL still stopped); a signal during start-up shuts down
 * cleanly too; a render bomb being decoded is killed at SIGTERM, not waited for.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isAlive, postmasterPid } from '../../src/db/embedded-postgres.js';
import { renderTimeBomb } from '../media/svg-bombs.js';
import { waitUntil } from '../support/wait.js';
import { startService } from './service-process.js';

/** The service with a small demo board; `env` adds to or overrides its settings. */
const startSmallService = (dataDir: string, env: Record<string, string> = {}) => startService(dataDir, { DEMO_IMAGES: '20', ...env });

/** Read one HTTP/1.1 response (with Content-Length) from a socket. */
function readResponse(socket: Socket): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = data.subarray(0, end).toString();
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: data.subarray(end + 4, end + 4 + length).toString() });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** The pid in the service's embedded cluster's postmaster.pid. */
function postgresPid(dataDir: string): number {
  const pid = postmasterPid(join(dataDir, 'postgres'));
  if (pid === undefined) throw new Error(`no postmaster.pid under ${dataDir}`);
  return pid;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sleep(200);
  for (const dir of dirs) {
    // a PostgreSQL left behind by a failed test: stop it before removing its files
    if (existsSync(join(dir, 'postgres', 'postmaster.pid'))) {
      const pid = postgresPid(dir);
      if (pid && isAlive(pid)) process.kill(pid, 'SIGQUIT');
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('graceful shutdown of the service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-shutdown-'));
  dirs.push(dataDir);

  it('SIGTERM during a request: it completes, idle connections close, the snapshot is written, PostgreSQL stops, exit 0', async () => {
    const svc = await startSmallService(dataDir);
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    const warning = svc.lines.find((l) => String(l.msg).startsWith('serving http URLs on localhost for development'));
    expect(warning).toMatchObject({ level: 40, msg: 'serving http URLs on localhost for development; set https BASE_URL and CDN_URL in production' });
    const base = `http://127.0.0.1:${svc.port}`;
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', database: 'up', engine: 'up', indexer: 'up', storage: 'up' });
    const pgPid = postgresPid(dataDir);
    expect(isAlive(pgPid)).toBe(true);

    // an idle keep-alive connection
    const idle = await open(svc.port);
    idle.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    expect((await readResponse(idle)).status).toBe(200);
    const idleClosed = closed(idle);

    // a request in flight: its body arrives in two parts, the second after SIGTERM
    const body = JSON.stringify({ url: 'http://127.0.0.1:9/not-https.png' });
    const slow = await open(svc.port);
    const answer = readResponse(slow);
    slow.write(
      `POST /api/v1/json/search/reverse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: in-flight-1\r\n\r\n${body.slice(0, 10)}`,
    );
    // a live search stream and a firehose socket, which never end on their own
    const live = await fetch(`${base}/api/v1/json/search/images/live?q=safe`);
    expect(live.status).toBe(200);
    const liveEnded = (async () => {
      const reader = live.body!.getReader();
      while (!(await reader.read()).done);
    })();
    const socket = new WebSocket(`ws://127.0.0.1:${svc.port}/socket/websocket?vsn=2.0.0`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const socketClosed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

    await sleep(300);
    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    await svc.waitFor('shutting down', 10_000);
    // the stream ends (its client resumes elsewhere with Last-Event-ID); the socket is told the server goes away
    await liveEnded;
    expect(await socketClosed).toBe(1001);
    await sleep(300);

    // no new connections; the idle one is closed (after a grace for a request just being sent)
    await expect(open(svc.port)).rejects.toThrow(/ECONNREFUSED/);
    await idleClosed;
    expect(svc.child.exitCode).toBeNull(); // still waiting for the request in flight

    slow.write(body.slice(10));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ images: [], interactions: [], total: 0 });
    expect(res.headers).toMatch(/x-request-id: in-flight-1/i);
    // under way when the stop began: its answer, not sent yet then, asks the client not to reuse the connection
    expect(res.headers).toMatch(/^connection: close$/im);

    const exit = await svc.exited;
    expect(exit, svc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(20_000);
    await closed(slow);
    expect(svc.lines.find((l) => l.msg === 'stopped')).toMatchObject({ clean: true });
    const requestLine = svc.lines.find((l) => l.reqId === 'in-flight-1' && l.msg === 'request');
    expect(requestLine).toMatchObject({ method: 'POST', route: '/api/v1/json/search/reverse', status: 200 });

    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(isAlive(pgPid)).toBe(false);
    expect(readdirSync(join(dataDir, 'index')).some((f) => /^images_v\d+\.snap$/.test(f))).toBe(true);
  }, 240_000);

  it('restarts from the snapshot; a request that never ends meets SHUTDOWN_TIMEOUT_SECONDS: exit 1, PostgreSQL stopped', async () => {
    const svc = await startSmallService(dataDir, { SHUTDOWN_TIMEOUT_SECONDS: '3' });
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    // the snapshot written at the last shutdown was loaded: nothing was rebuilt
    expect(svc.lines.some((l) => String(l.msg).startsWith('rebuilding indices'))).toBe(false);
    expect(svc.lines.some((l) => l.msg === 'empty board: creating the demo board')).toBe(false);
    const pgPid = postgresPid(dataDir);

    const stuck = await open(svc.port);
    stuck.write('POST /api/v1/json/search/reverse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":');
    await sleep(300);
    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    const elapsed = Date.now() - signalled;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(15_000);
    expect(svc.lines.some((l) => String(l.msg).startsWith('shutdown deadline passed'))).toBe(true);
    expect(isAlive(pgPid)).toBe(false);
    stuck.destroy();
  }, 240_000);
});

/** The service's decode children (src/media/sandbox/): its Node child processes. */
function nodeChildren(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) {
      if (existsSync(`/proc/${child}/comm`) && readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'node') out.push(child);
    }
  }
  return out;
}

describe('SIGTERM while a render bomb is being decoded', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-shutdown-bomb-'));
  dirs.push(dataDir);

  it('kills the decode, answers its request 503, exits 0 within seconds, and leaves no decode process behind', async () => {
    const svc = await startSmallService(dataDir);
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    const decoders = await waitUntil('the decode children', () => {
      const pids = nodeChildren(svc.child.pid!);
      return pids.length >= 3 && pids;
    }, 30_000);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(renderTimeBomb())], { type: 'image/svg+xml' }), 'bomb.svg');
    const answer = fetch(`${svc.base}/api/v1/json/search/reverse`, { method: 'POST', body: form }).then(async (res) => ({ status: res.status, body: await res.json() }));
    // The bomb renders for over a minute; the request decode deadline is 10 s.
    await sleep(2_000);
    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    expect(await answer).toEqual({ status: 503, body: { error: 'Too many images are being decoded; retry shortly' } });
    const exit = await svc.exited;
    expect(exit, svc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(8_000);
    await sleep(200);
    expect(decoders.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  }, 240_000);
});

describe('SIGTERM under keep-alive load', () => {
  /**
   * A client that sends its next request on the same connection as soon as an answer is read, as
   * long as the answer does not say `Connection: close` and the server has not closed the
   * connection; a connection that closes while a request is outstanding is a reset.
   */
  async function keepAliveClient(port: number, stop: () => boolean, log: { status: number; connection: string; at: number }[], resets: string[]) {
    while (!stop()) {
      let socket: Socket;
      try {
        socket = await open(port);
      } catch {
        return; // refused: the server stopped accepting
      }
      let ended = false;
      socket.once('end', () => (ended = true));
      for (;;) {
        if (ended || socket.destroyed || stop()) break;
        socket.write('GET /api/v1/json/search/images?q=*&per_page=50 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        const res = await Promise.race([readResponse(socket), closed(socket).then(() => undefined)]).catch(() => undefined);
        if (!res) {
          resets.push(`connection closed with a request outstanding (ended by server: ${ended})`);
          break;
        }
        const connection = /^connection: *(.*)$/im.exec(res.headers)?.[1]?.trim().toLowerCase() ?? '';
        log.push({ status: res.status, connection, at: Date.now() });
        if (connection === 'close') break;
      }
      socket.destroy();
    }
  }

  it('every request in flight is answered, answers after the signal say Connection: close, the process exits 0 in time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-shutdown-'));
    dirs.push(dataDir);
    const svc = await startSmallService(dataDir, { RATE_LIMITS: 'off' });
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    const log: { status: number; connection: string; at: number }[] = [];
    const resets: string[] = [];
    let signalled = 0;
    const clients = Array.from({ length: 16 }, () => keepAliveClient(svc.port, () => signalled > 0 && Date.now() - signalled > 10_000, log, resets));
    // every client has been answered at least once before the signal (a loaded machine is slow)
    for (const until = Date.now() + 60_000; log.length <= 16 && Date.now() < until; ) await sleep(100);
    const before = log.length;
    signalled = Date.now();
    svc.child.kill('SIGTERM');
    await svc.waitFor('shutting down', 10_000);
    const drainedAt = Date.now();
    const exit = await svc.exited;
    await Promise.all(clients);
    expect(exit, svc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(before).toBeGreaterThan(16);
    expect(resets).toEqual([]);
    expect(log.every((r) => r.status === 200)).toBe(true);
    // once draining began, no answer invites another request on its connection
    const late = log.filter((r) => r.at > drainedAt + 100);
    expect(late.filter((r) => r.connection !== 'close')).toEqual([]);
  }, 240_000);
});

describe('a signal during start-up', () => {
  it('stops at the next step and shuts down cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-shutdown-'));
    dirs.push(dataDir);
    // The deadline is not under test here (the keep-alive test has it): on a loaded machine the
    // demo board alone can take longer than the default 20 s.
    const svc = await startSmallService(dataDir, { SHUTDOWN_TIMEOUT_SECONDS: '180' });
    children.push(svc.child);
    // the demo board takes a few seconds to create: the signal arrives in the middle
    await svc.waitFor('empty board: creating the demo board');
    const pgPid = postgresPid(dataDir);
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    expect(exit, svc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    // the step in progress (the demo board) finished, and nothing after it started
    expect(svc.lines.some((l) => l.msg === 'demo board created')).toBe(true);
    expect(svc.lines.some((l) => l.msg === 'indexer following the outbox')).toBe(false);
    expect(svc.lines.some((l) => l.msg === 'failed to start')).toBe(false);
    expect(isAlive(pgPid)).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 240_000);
});
