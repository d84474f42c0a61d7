/**
 * The PostgreSQL driver (postgres.js 3.4.9, patched in `patches/`) on a connection whose backend
 * died: a query sent on it fails with CONNECTION_CLOSED, and the process ends normally. Unpatched, the driver wrote the query to
 * a socket it had already dropped, from a timer, and the TypeError ended the process: the service
 * died when its PostgreSQL was killed under traffic instead of answering 503 and restarting it.
 * Run in a child process, so that a crash is seen as one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runDriverScript } from './driver-script.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

// A reserved connection keeps its dead socket (a pooled one would be rotated away); its backend is
// ended from another connection, and a query is then sent on it.
const SCRIPT = `
import postgres from 'postgres';
const url = process.argv[1];
const other = postgres(url, { max: 1, onnotice: () => {} });
const sql = postgres(url, { max: 2, onnotice: () => {} });
const reserved = await sql.reserve();
const [{ pid }] = await reserved\`select pg_backend_pid() as pid\`;
await other\`select pg_terminate_backend(\${pid})\`;
await new Promise((resolve) => setTimeout(resolve, 200));
const outcome = await reserved\`select \${1}::int as n\`.then((rows) => 'answered ' + rows[0].n, (err) => 'refused ' + (err.code ?? err.message));
console.log(outcome);
reserved.release();
await other.end();
await sql.end({ timeout: 1 });
console.log('ended');
`;

describe('the database driver on a connection whose backend died', () => {
  it('refuses the query with CONNECTION_CLOSED and the process lives on', async () => {
    const run = await runDriverScript(SCRIPT, [t.url]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('refused CONNECTION_CLOSED\nended\n');
    expect(run.code).toBe(0);
  }, 30_000);
});
