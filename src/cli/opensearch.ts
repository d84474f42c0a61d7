/**
 * `npm run opensearch`: a local OpenSearch 2.19 for development, CI and small boards: one node,
 * or with `--nodes N` a cluster of N nodes on this host (fixed ports from a base port, each node
 * seeding discovery with the transport ports of all, the first election naming all). Builds
 * tools/opensearch-node with Maven the first time (the published server and plugin jars from Maven
 * Central), prints the URL list to give OPENSEARCH_URL once the cluster is green or yellow with
 * every node in it, and stops the nodes cleanly on SIGTERM or SIGINT. A node that dies later is
 * reported and the others keep serving, as a cluster does. Production runs compose.yaml or a
 * managed cluster.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfigOrExit } from '../config.js';
import { parseCommandLine, UsageError, usageErrorExit } from '../lib/command-line.js';

export const USAGE = `Usage: npm run opensearch -- [--build] [--nodes N]

Starts OpenSearch 2.19 on 127.0.0.1:OPENSEARCH_PORT (default 9200) with its data under
DATA_DIR/opensearch, and stops it on SIGTERM or Ctrl-C. The first run builds the node with Maven
(Java 17 and network access to Maven Central needed once); --build only builds and exits.
Then: OPENSEARCH_URL=http://127.0.0.1:9200 npm start

  --nodes N         a local cluster of N nodes (1 to 9; default 1): HTTP ports OPENSEARCH_PORT
                    to OPENSEARCH_PORT+N-1, transport ports from OPENSEARCH_PORT+100, data under
                    DATA_DIR/opensearch-cluster/node-<i>; prints the OPENSEARCH_URL list of all
  OPENSEARCH_PORT   HTTP port of the (first) node (default 9200)
  OPENSEARCH_HEAP   JVM heap of each node, as -Xmx takes it (default 2g, 512m each in a cluster)
`;

const moduleDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/opensearch-node');
const jar = join(moduleDir, 'target/opensearch-node-1.jar');
const libDir = join(moduleDir, 'target/lib');
/** Transport ports of a cluster start this far above its HTTP ports (9200 → 9300). */
const TRANSPORT_OFFSET = 100;
const MAX_NODES = 9;

/** Newest modification time under `path` (a file or a directory tree). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** True when the jar and its libraries exist and are newer than the pom and the sources. */
export function isBuilt(): boolean {
  if (!existsSync(jar) || !existsSync(libDir)) return false;
  return statSync(jar).mtimeMs >= Math.max(newest(join(moduleDir, 'pom.xml')), newest(join(moduleDir, 'src')));
}

/** Builds the node with Maven; throws when Maven fails. */
export function build(): void {
  console.error('Building the OpenSearch node (Maven; the first build downloads about 70 MB)...');
  const result = spawnSync('mvn', ['-B', '-q', 'package'], { cwd: moduleDir, stdio: 'inherit' });
  if (result.error) throw new Error(`could not run mvn: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`mvn package failed with status ${result.status}`);
}

/** One node to start: its name, HTTP URL and the environment LocalNode reads. */
export interface NodePlan {
  name: string;
  url: string;
  env: Record<string, string>;
}

/**
 * The nodes of a local cluster of `count` on ports from `basePort`. One node is a single-node
 * cluster in DATA_DIR/opensearch (as it always was); several each get a fixed transport port, a
 * home of their own and the discovery settings that let them find each other.
 */
export function planNodes(count: number, basePort: number, dataDir: string): NodePlan[] {
  if (count === 1) {
    const env = { OPENSEARCH_PORT: String(basePort), OPENSEARCH_HOME: join(dataDir, 'opensearch') };
    return [{ name: 'tagwise-local', url: `http://127.0.0.1:${basePort}`, env }];
  }
  const names = Array.from({ length: count }, (_, i) => `tagwise-${i + 1}`);
  const seeds = names.map((_, i) => `127.0.0.1:${basePort + TRANSPORT_OFFSET + i}`).join(',');
  return names.map((name, i) => ({
    name,
    url: `http://127.0.0.1:${basePort + i}`,
    env: {
      OPENSEARCH_PORT: String(basePort + i),
      OPENSEARCH_TRANSPORT_PORT: String(basePort + TRANSPORT_OFFSET + i),
      OPENSEARCH_HOME: join(dataDir, 'opensearch-cluster', `node-${i + 1}`),
      OPENSEARCH_NODE_NAME: name,
      OPENSEARCH_SEED_HOSTS: seeds,
      OPENSEARCH_INITIAL_MANAGERS: names.join(','),
    },
  }));
}

/** True when `url` answers and its cluster is at least yellow with `nodes` nodes in it. */
async function isHealthy(url: string, nodes: number): Promise<boolean> {
  try {
    const query = `wait_for_status=yellow&wait_for_nodes=${nodes}&timeout=1s`;
    const res = await fetch(`${url}/_cluster/health?${query}`, { signal: AbortSignal.timeout(5000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

interface Options {
  build: boolean;
  nodes: number;
  port: number;
  heap: string;
}

/** The command line and the launcher's own variables; a mistake in either is a `UsageError`. */
function readOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const { values } = parseCommandLine({
    args: argv,
    options: { build: { type: 'boolean' }, nodes: { type: 'string' } },
  });
  const nodes = Number(values.nodes ?? '1');
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) {
    throw new UsageError(`--nodes must be a whole number from 1 to ${MAX_NODES}, not ${values.nodes}`);
  }
  const port = env.OPENSEARCH_PORT?.trim() || '9200';
  const highest = Number(port) + (nodes > 1 ? TRANSPORT_OFFSET : 0) + nodes - 1;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || highest > 65535) {
    throw new UsageError(`OPENSEARCH_PORT must be a port number leaving room for ${nodes} node(s), not ${port}`);
  }
  const heap = env.OPENSEARCH_HEAP?.trim() || (nodes > 1 ? '512m' : '2g');
  if (!/^\d+[kmg]$/i.test(heap)) throw new UsageError(`OPENSEARCH_HEAP must be a size like 2g or 512m, not ${heap}`);
  return { build: values.build === true, nodes, port: Number(port), heap };
}

/** Starts one node's JVM; its output goes to ours. */
function startNode(plan: NodePlan, heap: string): ChildProcess {
  return spawn('java', [`-Xms${heap}`, `-Xmx${heap}`, '-cp', `${jar}:${libDir}/*`, 'org.tagwise.opensearch.LocalNode'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...plan.env },
  });
}

/** Resolves with the node's exit status once it is gone, reporting it when it goes uninvited. */
function watchExit(child: ChildProcess, name: string, stopping: () => boolean): Promise<number> {
  return new Promise((done) =>
    child.on('exit', (code, signal) => {
      if (!stopping()) process.stderr.write(`OpenSearch node ${name} exited (${signal ?? `status ${code}`}).\n`);
      done(code ?? (signal ? 0 : 1));
    }),
  );
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = readOptions(process.argv.slice(2), process.env);
  } catch (err) {
    return usageErrorExit(err, USAGE);
  }
  const config = loadConfigOrExit();
  if (options.build || !isBuilt()) build();
  if (options.build) return 0;

  const plans = planNodes(options.nodes, options.port, config.dataDir);
  for (const { url } of plans) {
    if (await answers(url)) {
      process.stderr.write(`Something already answers on ${url}; set OPENSEARCH_PORT to another port.\n`);
      return 1;
    }
  }
  let stopping = false;
  const children = plans.map((plan) => startNode(plan, options.heap));
  const stopAll = () => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
  };
  const exits = children.map((child, i) => watchExit(child, plans[i]!.name, () => stopping));
  const allGone = Promise.all(exits);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, stopAll);
  // `npm run` passes SIGTERM to its shell only, which dies without passing it on: a launcher
  // whose parent is gone stops the nodes rather than leaving them running unowned.
  const parent = process.ppid;
  const orphanCheck = setInterval(() => process.ppid !== parent && stopAll(), 1000);
  void allGone.then(() => clearInterval(orphanCheck));

  // before the cluster is up, one node gone means it cannot form as asked
  let anyGone = false;
  for (const exit of exits) void exit.then(() => (anyGone = true));
  const urls = plans.map((p) => p.url);
  const deadline = Date.now() + 300_000;
  let healthy = false;
  while (!anyGone && !healthy && Date.now() < deadline) {
    healthy = (await Promise.all(urls.map((url) => isHealthy(url, plans.length)))).every(Boolean);
    if (!healthy) await new Promise((r) => setTimeout(r, 500));
  }
  if (healthy) console.log(`OpenSearch is up: ${urls.join(',')}`);
  else {
    const why = anyGone ? 'a node exited before the cluster became healthy' : 'the cluster did not become healthy within 5 minutes';
    process.stderr.write(`OpenSearch on ${urls.join(',')}: ${why}; stopping it.\n`);
    stopAll();
  }
  const codes = await allGone;
  const worst = Math.max(...codes);
  return healthy ? worst : worst || 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
