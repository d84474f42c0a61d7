/**
 * The service as a child process (`node --import tsx src/main.ts` on a free port, its JSON log
 * lines collected and awaited), for the tests that kill and restart it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, postmasterPid } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/lib/free-port.js';
import { copyPostgresTemplate } from '../support/postgres-template.js';
import { programArgs } from '../support/programs.js';
import { childEnv } from '../support/run-tool.js';
import { waitUntil } from '../support/wait.js';

export interface Service {
  child: ChildProcess;
  port: number;
  base: string;
  lines: Record<string, unknown>[];
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(msg: string | RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
}


/**
 * Start the service on `dataDir`. A fresh DATA_DIR of the embedded mode starts from the run's
 * template cluster unless `freshCluster` asks for the initdb a first start runs.
 */
export async function startService(dataDir: string, env: Record<string, string>, { freshCluster = false } = {}): Promise<Service> {
  if (!env.DATABASE_URL && !freshCluster) copyPostgresTemplate(dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, programArgs('src/main.ts'), {
    env: childEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let pending = '';
  const lines: Record<string, unknown>[] = [];
  const waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const part of parts) {
      if (!part.startsWith('{')) continue;
      const line = JSON.parse(part) as Record<string, unknown>;
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.match(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const matches = (msg: string | RegExp) => (l: Record<string, unknown>) => (typeof msg === 'string' ? l.msg === msg : msg.test(String(l.msg)));
  return {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    lines,
    output: () => text,
    exited,
    waitFor(msg, timeoutMs = 120_000) {
      const seen = lines.find(matches(msg));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${String(msg)}" line within ${timeoutMs} ms:\n${text.slice(-3000)}`)), timeoutMs);
        waiters.push({ match: matches(msg), resolve: (l) => (clearTimeout(timer), resolve(l)) });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`the service exited before "${String(msg)}":\n${text.slice(-3000)}`));
        });
      });
    },
  };
}

/** The pid in the service's embedded cluster's postmaster.pid. */
export const postgresPid = (dataDir: string) => postmasterPid(join(dataDir, 'postgres'));

/** The postmaster of the service's embedded cluster and its children (backends, workers), e.g. to freeze them all. */
export function serverPids(dataDir: string): number[] {
  const postmaster = postgresPid(dataDir);
  if (!postmaster) throw new Error('no PostgreSQL running on this DATA_DIR');
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).toString();
  return [postmaster, ...children.split(/\s+/).filter(Boolean).map(Number)];
}


/**
 * After a suite: kill the processes still running, stop a PostgreSQL left behind under `dataDir`
 * (by a failed test) before its files go, then remove them.
 */
export async function cleanUpAfter(children: ChildProcess[], dataDir: string): Promise<void> {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exited = running.map((child) => once(child, 'exit'));
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(exited);
  const pid = postgresPid(dataDir);
  if (pid && isAlive(pid)) {
    process.kill(pid, 'SIGQUIT');
    await waitUntil('PostgreSQL to stop', () => !isAlive(pid), 10_000, 50).catch(() => {});
  }
  rmSync(dataDir, { recursive: true, force: true });
}
