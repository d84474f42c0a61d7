import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { binaries, isAlive, postmasterPid, reachableCopy, unreachableDirectory } from '../../src/db/embedded-postgres.js';
import { waitUntil } from '../support/wait.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tagwise-pg-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('embedded PostgreSQL', () => {
  it('names the private directory that keeps the server user from its binaries', () => {
    const root = tempDir();
    const bin = join(root, 'app', 'node_modules', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'initdb'), '');
    const someoneElse = { uid: 65_534, gid: 65_534 };
    chmodSync(root, 0o755);
    chmodSync(join(root, 'app'), 0o755);
    expect(unreachableDirectory(join(bin, 'initdb'), someoneElse)).toBeUndefined();
    chmodSync(join(root, 'app'), 0o700);
    expect(unreachableDirectory(join(bin, 'initdb'), someoneElse)).toBe(join(root, 'app'));
    chmodSync(root, 0o700);
    expect(unreachableDirectory(join(bin, 'initdb'), someoneElse)).toBe(root);
    chmodSync(root, 0o755);
  });

  it('copies the binaries where every user may enter, once, and they run from there', async () => {
    const copy = reachableCopy(await binaries());
    expect(copy.initdb.startsWith(tmpdir())).toBe(true);
    expect(unreachableDirectory(copy.initdb, { uid: 65_534, gid: 65_534 })).toBeUndefined();
    expect(statSync(copy.postgres).mode & 0o001).toBe(0o001);
    // the libraries beside them are found: both run
    expect(execFileSync(copy.initdb, ['--version']).toString()).toMatch(/PostgreSQL/);
    expect(execFileSync(copy.postgres, ['--version']).toString()).toMatch(/PostgreSQL/);
    // a second call reuses the copy
    expect(reachableCopy(await binaries())).toEqual(copy);
  });

  it('initialises a cluster, keeps data across restarts', async () => {
    const dataDir = tempDir();
    const first = await openDatabase({ dataDir });
    expect(first.embedded).toBe(true);
    await first.db.$client`insert into users (name, slug) values ('kept', 'kept')`;
    await first.close();

    const second = await openDatabase({ dataDir });
    const rows = await second.db.$client`select name from users`;
    expect(rows.map((r) => r.name)).toEqual(['kept']);
    await second.close();
  });

  it('lets a second process join a running server instead of racing it', async () => {
    const dataDir = tempDir();
    const a = await openDatabase({ dataDir });
    const b = await openDatabase({ dataDir });
    expect(b.url).toBe(a.url);
    await b.close(); // joined, so it does not stop the server
    const rows = await a.db.$client`select 1 as ok`;
    expect(rows[0]!.ok).toBe(1);
    await a.close();
  });

  it('recovers after its owner was killed with SIGKILL', async () => {
    const dataDir = tempDir();
    const script = `
      import { openDatabase } from './src/db/client.js';
      const h = await openDatabase({ dataDir: ${JSON.stringify(dataDir)} });
      await h.db.$client\`insert into users (name, slug) values ('before-kill', 'before-kill')\`;
      console.log('ready');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    // a tool joins the orphan and leaves it running: it did not start it
    const tool = await openDatabase({ dataDir });
    const rows = await tool.db.$client`select name from users`;
    expect(rows.map((r) => r.name)).toEqual(['before-kill']);
    await tool.close();
    expect(isAlive(postmasterPid(join(dataDir, 'postgres'))!)).toBe(true);
    // a service takes it over, and stops it
    const service = await openDatabase({ dataDir, role: 'service' });
    expect(service.server?.owned).toBe(true);
    await service.close();
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  it('a tool leaves the server it started running when a service took it over meanwhile', async () => {
    const dataDir = tempDir();
    const tool = await openDatabase({ dataDir });
    const pid = postmasterPid(join(dataDir, 'postgres'))!;
    const service = await openDatabase({ dataDir, role: 'service' });
    expect(service.url).toBe(tool.url);
    await tool.close();
    expect(isAlive(pid)).toBe(true);
    const [row] = await service.db.$client`select 1 as ok`;
    expect(row!.ok).toBe(1);
    await service.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('a service starts again on the same port a server that went away, and a tool started meanwhile uses that port too', async () => {
    const dataDir = tempDir();
    const service = await openDatabase({ dataDir, role: 'service' });
    const cluster = join(dataDir, 'postgres');
    const first = postmasterPid(cluster)!;
    process.kill(first, 'SIGINT');
    await waitUntil('PostgreSQL to stop', () => !isAlive(first), 20_000, 50);
    // a tool comes first: it starts the server where the service's pools point
    const tool = await openDatabase({ dataDir });
    expect(tool.url).toBe(service.url);
    expect(await service.server!.restartIfDown()).toBe(false); // running: taken over, not started
    await tool.close();
    const [row] = await service.db.$client`select 1 as ok`;
    expect(row!.ok).toBe(1);
    // stopped again with no tool about: the service starts it itself
    const second = postmasterPid(cluster)!;
    process.kill(second, 'SIGINT');
    await waitUntil('PostgreSQL to stop', () => !isAlive(second), 20_000, 50);
    expect(await service.server!.restartIfDown()).toBe(true);
    await waitUntil('the pool to reconnect', () => service.db.$client`select 1`.then(() => true, () => false), 20_000, 100);
    await service.close();
    expect(existsSync(join(cluster, 'postmaster.pid'))).toBe(false);
  }, 60_000);

  it('a service starts again a killed server whose pid another process has since been given', async () => {
    const dataDir = tempDir();
    const service = await openDatabase({ dataDir, role: 'service' });
    const cluster = join(dataDir, 'postgres');
    const killed = postmasterPid(cluster)!;
    process.kill(killed, 'SIGKILL');
    await waitUntil('PostgreSQL to be gone', () => !isAlive(killed), 20_000, 50);
    // A busy host gives pids again within minutes: the pid the dead server left in postmaster.pid
    // now names a live process that is no server (here, a sleep).
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const file = join(cluster, 'postmaster.pid');
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[0] = String(stranger.pid);
      writeFileSync(file, lines.join('\n'));
      // (its backends may hold the port a little longer: the supervisor's later rounds retry)
      await waitUntil('the service to start it again', () => service.server!.restartIfDown().catch(() => false), 20_000, 200);
      const [row] = await service.db.$client`select 1 as ok`.catch(async () => {
        await waitUntil('the pool to reconnect', () => service.db.$client`select 1`.then(() => true, () => false), 20_000, 100);
        return service.db.$client`select 1 as ok`;
      });
      expect(row!.ok).toBe(1);
      expect(postmasterPid(cluster)).not.toBe(stranger.pid);
      expect(isAlive(stranger.pid!)).toBe(true);
    } finally {
      stranger.kill('SIGKILL');
      await service.close();
    }
  }, 60_000);
});
