/** Starting the whole service for a benchmark, and stopping it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { isAlive, postmasterPid } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/lib/free-port.js';
import { loadAverage } from './stats.js';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

export interface Target {
  origin: string;
  /** Pid of the service when this run started it (for CPU figures). */
  pid?: number;
  dataDir?: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** DATA_DIR of the service, kept between runs so the demo board is made once. */
  dataDir: string;
  logFile: string;
  /** DEMO_IMAGES of the board made on first start. */
  images: number;
  logLevel: string;
  log: (msg: string) => void;
  /** More settings of the service. */
  env?: Record<string, string>;
  /** Node flags beside `npm start`'s (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
  /** A board made beforehand in `dataDir` (bulk-seeded): no demo board is made. */
  premade?: boolean;
  /** Runs the service under `sh -c 'ulimit -n N; exec node …'` (for many open connections). */
  fileLimit?: number;
  /**
   * After `/readyz`, wait for the image cache's warm start to end (its `image cache warmed` log
   * line, written at log level info or below), so that the phases measure the steady state and not
   * a cache filling beside them. `IMAGE_CACHE_WARM=off`, given here or inherited from the shell,
   * has no warm start to wait for.
   */
  awaitWarmStart?: boolean;
}

/** Log levels at which the service writes its info lines. */
const INFO_LEVELS = new Set(['trace', 'debug', 'info']);

/**
 * The V8 and Node flags `npm start` gives the service (e.g. the young generation's size), so it is
 * measured as it runs: the words between `node` and `--import` of its script, after the
 * environment settings before `node` (`bench/run.ts` gives those to every benchmark).
 */
export function startFlags(script?: string): string[] {
  const start = script ?? (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.trim().split(/\s+/);
  const node = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  const until = words.indexOf('--import');
  if (words[node] !== 'node' || until <= node) throw new Error(`npm start's script is not \`[VAR=value …] node [flags] --import …\`: ${start}`);
  return words.slice(node + 1, until);
}

/**
 * The service (`src/main.ts`, with `npm start`'s node flags) as a child process on a free loopback port, `RATE_LIMITS=off`, with
 * none of this shell's BASE_URL, DATABASE_URL, …; waited for until `/readyz` says ready, stopped
 * with SIGTERM (SIGKILL and its PostgreSQL stopped after 60 s).
 */
export async function startService(o: ServiceOptions): Promise<Target> {
  const { dataDir, images, logLevel, log, logFile } = o;
  mkdirSync(dataDir, { recursive: true });
  const fresh = !existsSync(join(dataDir, 'postgres', 'PG_VERSION'));
  const port = await freePort();
  mkdirSync(dirname(logFile), { recursive: true });
  // the log file is appended to: this start's lines begin here
  const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
  const out = openSync(logFile, 'a');
  // The service reads only its own settings: nothing of this shell's BASE_URL, DATABASE_URL, …
  const { BASE_URL: _b, CDN_URL: _c, DATABASE_URL: _d, OPENSEARCH_URL: _o, RATE_LIMITS: _r, ...inherited } = process.env;
  const node = [process.execPath, ...startFlags(), ...(o.nodeFlags ?? []), '--import', 'tsx', 'src/main.ts'];
  const [command, ...args] = o.fileLimit === undefined ? node : ['sh', '-c', `ulimit -n ${o.fileLimit} && exec "$@"`, 'sh', ...node];
  const child: ChildProcess = spawn(command!, args, {
    cwd: ROOT,
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DEMO_IMAGES: String(Math.min(images, 100_000)),
      DEMO_DATA: o.premade ? 'false' : 'true',
      RATE_LIMITS: 'off',
      LOG_LEVEL: logLevel,
      ...o.env,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  const origin = `http://127.0.0.1:${port}`;
  log(`starting the service on ${origin} (DATA_DIR ${dataDir}${fresh ? `, first start: creating a ${images}-image demo board` : ''}; log in ${logFile})`);
  const started = Date.now();
  // a first start creates a demo board; a premade bulk board's engine index may be built at start
  // (some 10 minutes for a million images on a busy machine)
  const deadline = started + (fresh || o.premade ? 30 : 5) * 60_000;
  // the log's last lines of this start only (a log kept across runs grows to gigabytes)
  const tail = () => {
    const text = readFileSync(logFile);
    return text.subarray(Math.max(logStart, text.length - 65_536)).toString().split('\n').slice(-15).join('\n');
  };
  for (;;) {
    if (gone) throw new Error(`the service exited during start-up:\n${tail()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready in time:\n${tail()}`);
    }
    try {
      const res = await fetch(`${origin}/readyz`);
      if (res.status === 200) break;
      await res.body?.cancel();
    } catch {
      /* not listening yet */
    }
    await sleep(500);
  }
  log(`service ready after ${((Date.now() - started) / 1000).toFixed(1)} s (load ${loadAverage()})`);
  if (o.awaitWarmStart && (o.env?.IMAGE_CACHE_WARM ?? process.env.IMAGE_CACHE_WARM ?? 'on') === 'on') {
    if (!INFO_LEVELS.has(logLevel)) log(`not waiting for the image cache's warm start: log level ${logLevel} does not write its line`);
    else {
      const warmed = () => readFileSync(logFile).subarray(logStart).toString().split('\n').find((l) => l.includes('"msg":"image cache warmed"'));
      const ready = Date.now();
      for (let line = warmed(); line === undefined; line = warmed()) {
        if (gone) throw new Error(`the service exited during the image cache's warm start:\n${tail()}`);
        if (Date.now() > ready + 30 * 60_000) throw new Error(`the image cache's warm start did not end within 30 minutes:\n${tail()}`);
        await sleep(1000);
      }
      const { images: n, bytes, ms } = JSON.parse(warmed()!) as { images: number; bytes: number; ms: number };
      log(`image cache warmed: ${n} images, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${(ms / 1000).toFixed(1)} s (load ${loadAverage()})`);
    }
  }
  let stopping: Promise<void> | undefined;
  return {
    origin,
    ...(child.pid !== undefined ? { pid: child.pid } : {}),
    dataDir,
    stop: () =>
      (stopping ??= (async () => {
        if (gone) return;
        const pg = postmasterPid(join(dataDir, 'postgres'));
        child.kill('SIGTERM');
        const result = await Promise.race([exited, sleep(60_000).then(() => null)]);
        if (result === null) {
          child.kill('SIGKILL');
          await exited;
          if (pg && isAlive(pg)) process.kill(pg, 'SIGINT');
          log('the service did not stop within 60 s: killed it and stopped its PostgreSQL');
        } else if (result.code !== 0) {
          log(`the service exited with ${result.signal ?? result.code}:\n${tail()}`);
        }
      })()),
  };
}

