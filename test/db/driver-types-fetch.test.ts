/**
 * The PostgreSQL driver (postgres.js 3.4.9, patched in `patches/`) on a connection torn down while
 * it fetches the server's array types, the first thing it asks on a new connection: the query
 * waiting for the connection fails with CONNECTION_DESTROYED, and the process lives on.
 * Unpatched, the driver's own fetch of the types failed with nobody to hear it, and the unhandled
 * rejection ended the process: the service died at start when its database was slow to answer
 * (a probe gave up on it and tore its connection down). Run in a child process, so that a crash
 * is seen as one, against a server that accepts the connection and then never answers.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriverScript } from './driver-script.js';

/** A server that completes a connection's start-up (no password asked) and answers nothing else. */
function silentServer(): Server {
  return createServer((socket: Socket) => {
    let startedUp = false;
    socket.on('data', () => {
      if (startedUp) return; // the types query: never answered
      startedUp = true;
      const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]); // 'R', length 8, AuthenticationOk
      const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]); // 'Z', length 5, idle
      socket.write(Buffer.concat([authOk, ready]));
    });
    socket.on('error', () => {});
  });
}

let server: Server;
let port: number;
beforeAll(async () => {
  server = silentServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The query waits behind the types fetch; ending the client with no grace destroys the connection.
const SCRIPT = `
import postgres from 'postgres';
const sql = postgres({ host: '127.0.0.1', port: Number(process.argv[1]), user: 'u', database: 'd', max: 1, onnotice: () => {} });
const waiting = sql\`select 1\`.then(() => 'answered', (err) => 'refused ' + (err.code ?? err.message));
await new Promise((resolve) => setTimeout(resolve, 300));
await sql.end({ timeout: 0 });
console.log(await waiting);
await new Promise((resolve) => setTimeout(resolve, 300));
console.log('lived on');
`;

describe('the database driver on a connection torn down while it fetches the array types', () => {
  it('refuses the waiting query with CONNECTION_DESTROYED and the process lives on', async () => {
    const run = await runDriverScript(SCRIPT, [String(port)]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('refused CONNECTION_DESTROYED\nlived on\n');
    expect(run.code).toBe(0);
  }, 30_000);
});
