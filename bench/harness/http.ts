/**
 * The HTTP part: the real application (`createApp`) over the benchmark board and engine, and a
 * trivial Hono app as the ceiling of the same stack, each loaded by the driver in a child process.
 * Both load benchmarks (search and load) drive their targets through `drive`.
 */
import { serve, type ServerType } from '@hono/node-server';
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import type { SearchEngine } from '../../src/search/engine.js';
import type { DriverJob, DriverPhase, DriverResult } from './driver.js';

const DRIVER = fileURLToPath(new URL('./driver.ts', import.meta.url));

export interface Server {
  origin: string;
  close(): Promise<void>;
}

function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<Server> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      const s = server!;
      resolve({
        origin: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            if ('closeAllConnections' in s) s.closeAllConnections();
            s.close(() => done());
          }),
      });
    });
    server.once('error', reject);
  });
}

/** The application as `npm start` builds it, without request limits or request log lines. */
export function startApp(dataDir: string, db: Database, engine: SearchEngine): Promise<Server> {
  const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMITS: 'off', LOG_LEVEL: 'silent', DEMO_DATA: 'false' });
  const app = createApp(composeApp({ config, db, engine }));
  return listen(app.fetch);
}

/** The ceiling: a Hono app that answers a small constant JSON. */
export function startHonoCeiling(): Promise<Server> {
  const app = new Hono();
  app.get('/', (c) => c.json({ images: [], interactions: [], total: 0 }));
  return listen(app.fetch);
}

/**
 * Run the driver in a child process against `job`; `onPhase` hears when its measured window opens
 * and ends (to read CPU clocks over that window). A driver that outlives its job by two minutes
 * is killed.
 */
export function drive(job: DriverJob, onPhase: (phase: DriverPhase) => void = () => {}): Promise<DriverResult> {
  return new Promise((resolve, reject) => {
    const child = fork(DRIVER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    const limit = setTimeout(() => child.kill('SIGKILL'), (job.warmupSeconds + job.seconds + 120) * 1000);
    child.on('message', (msg: { phase?: DriverPhase; ok?: boolean; result?: DriverResult; error?: string }) => {
      if (msg.phase) return onPhase(msg.phase);
      settled = true;
      clearTimeout(limit);
      if (msg.ok && msg.result) resolve(msg.result);
      else reject(new Error(`load driver failed: ${msg.error}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      if (!settled) reject(new Error(`load driver exited (${signal ?? code}) without a result`));
    });
    child.once('error', reject);
    child.send(job);
  });
}
