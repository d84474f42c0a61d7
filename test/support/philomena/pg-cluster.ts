/**
 * A throwaway PostgreSQL cluster of the machine's own version (Debian's postgresql package), for
 * writing archives with the machine's pg_dump: the embedded test server is newer than Debian's
 * pg_dump can read. Runs as the `postgres` system user when we are root.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface Cluster {
  url: string;
  bin: string;
  stop(): Promise<void>;
}

/** The newest Debian PostgreSQL binaries directory, or undefined. */
export function debianPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], ids?: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...ids });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err}`))));
  });
}

export async function startCluster(bin: string): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'philomena-pg-'));
  let ids: { uid: number; gid: number } | undefined;
  if (userInfo().uid === 0) {
    ids = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
    chownSync(dir, ids.uid, ids.gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], ids);
  await run(join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start'], ids);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    bin,
    stop: async () => {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'fast', 'stop'], ids).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Write a database as a custom-format archive with the cluster's pg_dump. */
export async function dumpDatabase(cluster: Cluster, database: string, file: string): Promise<void> {
  const url = new URL(cluster.url);
  url.pathname = `/${database}`;
  await run(join(cluster.bin, 'pg_dump'), ['-Fc', '--no-owner', '-f', file, url.toString()]);
}
