/**
 * A local OpenSearch cluster for the suites that take nodes down: the one CI started
 * (OPENSEARCH_CLUSTER_URL, its nodes on this host, which such a suite uses up), or one started
 * here with `npm run opensearch -- --nodes N` on ports of its own, in a scratch directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './programs.js';
import { childEnv } from './run-tool.js';

export interface LocalCluster {
  /** The nodes' URLs, in the order OPENSEARCH_URL gives them. */
  nodes: string[];
  /** Stops what this started (nothing for a cluster given by OPENSEARCH_CLUSTER_URL). */
  stop(): Promise<void>;
}

/** The cluster given by OPENSEARCH_CLUSTER_URL, or a new one of `count` nodes on free ports. */
export async function localCluster(count: number): Promise<LocalCluster> {
  const given = process.env.OPENSEARCH_CLUSTER_URL?.trim();
  if (given) return { nodes: given.split(',').map((u) => u.trim()).filter(Boolean), stop: async () => {} };
  const basePort = await freeBasePort(count);
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-os-cluster-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/opensearch.ts', '--nodes', String(count)], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dataDir, OPENSEARCH_PORT: String(basePort), OPENSEARCH_HEAP: '512m' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return { nodes: await upLine(child), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Whether a TCP port on 127.0.0.1 can be bound now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A base port whose cluster ports (HTTP base…base+count-1, transport base+100…) were all free a
 * moment ago: the launcher's ports are fixed from its base, so one taken would stop it.
 */
async function freeBasePort(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    const ports = Array.from({ length: count }, (_, i) => [base + i, base + 100 + i]).flat();
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
  throw new Error('found no free ports for a local cluster');
}

/** Resolves with the URLs of the launcher's `OpenSearch is up: …` line. */
function upLine(child: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^OpenSearch is up: (\S+)$/m.exec(out);
      if (m) resolve(m[1]!.split(','));
    });
    child.once('exit', (code) => reject(new Error(`the OpenSearch launcher exited (${code}) before the cluster was up`)));
  });
}

/** The process id of the node at `url` (on this host), as the node reports it. */
export async function nodePid(url: string): Promise<number> {
  const res = await fetch(`${url}/_nodes/_local/process`);
  const body = (await res.json()) as { nodes: Record<string, { process: { id: number } }> };
  const [node] = Object.values(body.nodes);
  if (!node) throw new Error(`${url} did not report its process`);
  return node.process.id;
}

/** The name of the node at `url`. */
export async function nodeName(url: string): Promise<string> {
  const res = await fetch(`${url}/_nodes/_local/name`);
  const body = (await res.json()) as { nodes: Record<string, { name: string }> };
  return Object.values(body.nodes)[0]!.name;
}
