/**
 * `npm run opensearch`: a local single-node OpenSearch 2.19 for development, CI and small boards.
 * Builds tools/opensearch-node with Maven the first time (the published server and plugin jars
 * from Maven Central), starts it with data under DATA_DIR/opensearch, prints its URL once the
 * cluster is green or yellow, and stops it cleanly on SIGTERM or SIGINT. Production runs
 * compose.yaml or a managed cluster.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfigOrExit } from '../config.js';

export const USAGE = `Usage: npm run opensearch -- [--build]

Starts OpenSearch 2.19 on 127.0.0.1:OPENSEARCH_PORT (default 9200) with its data under
DATA_DIR/opensearch, and stops it on SIGTERM or Ctrl-C. The first run builds the node with Maven
(Java 17 and network access to Maven Central needed once); --build only builds and exits.
Then: OPENSEARCH_URL=http://127.0.0.1:9200 npm start

  OPENSEARCH_PORT   HTTP port (default 9200)
  OPENSEARCH_HEAP   JVM heap, as -Xmx takes it (default 2g)
`;

const moduleDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/opensearch-node');
const jar = join(moduleDir, 'target/opensearch-node-1.jar');
const libDir = join(moduleDir, 'target/lib');

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

async function isHealthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(5000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = args.filter((a) => a !== '--build');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown argument: ${unknown[0]}\n\n${USAGE}`);
    return 2;
  }
  const port = process.env.OPENSEARCH_PORT?.trim() || '9200';
  const heap = process.env.OPENSEARCH_HEAP?.trim() || '2g';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    process.stderr.write(`OPENSEARCH_PORT must be a port number, not ${port}\n`);
    return 2;
  }
  if (!/^\d+[kmg]$/i.test(heap)) {
    process.stderr.write(`OPENSEARCH_HEAP must be a size like 2g or 512m, not ${heap}\n`);
    return 2;
  }
  const config = loadConfigOrExit();

  if (args.includes('--build') || !isBuilt()) build();
  if (args.includes('--build')) return 0;

  const url = `http://127.0.0.1:${port}`;
  if (await isHealthy(url)) {
    process.stderr.write(`Something already answers on ${url}; set OPENSEARCH_PORT to another port.\n`);
    return 1;
  }
  const node = spawn(
    'java',
    [`-Xms${heap}`, `-Xmx${heap}`, '-cp', `${jar}:${libDir}/*`, 'org.tagwise.opensearch.LocalNode'],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, OPENSEARCH_PORT: port, OPENSEARCH_HOME: join(config.dataDir, 'opensearch') },
    },
  );
  const exited = new Promise<number>((done) => node.on('exit', (code, signal) => done(code ?? (signal ? 0 : 1))));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => node.kill('SIGTERM'));
  // `npm run` passes SIGTERM to its shell only, which dies without passing it on: a launcher
  // whose parent is gone stops the node rather than leaving it running unowned.
  const parent = process.ppid;
  const orphanCheck = setInterval(() => process.ppid !== parent && node.kill('SIGTERM'), 1000);
  void exited.then(() => clearInterval(orphanCheck));

  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 300_000;
  let healthy = false;
  while (!gone && !healthy && Date.now() < deadline) {
    healthy = await isHealthy(url);
    if (!healthy) await new Promise((r) => setTimeout(r, 500));
  }
  if (healthy) console.log(`OpenSearch is up: ${url}`);
  else if (gone) process.stderr.write('OpenSearch exited before it became healthy.\n');
  else {
    process.stderr.write(`OpenSearch did not become healthy on ${url} within 5 minutes; stopping it.\n`);
    node.kill('SIGTERM');
  }
  const code = await exited;
  return healthy ? code : code || 1;
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
