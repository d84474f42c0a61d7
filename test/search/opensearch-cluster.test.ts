/**
 * Tagwise on a three-node OpenSearch cluster, taken down node by node: a reindex gives the live
 * indices OPENSEARCH_REPLICAS and OPENSEARCH_SHARDS (and keeps them on the next; a start gives the
 * others the replicas); with one replica,
 * the node listed first in OPENSEARCH_URL killed with SIGKILL during a search load fails no search
 * (the client sends the request again to another node); with every node killed, searches are
 * answered 503 with Retry-After and a JSON error, never 500, while reads that need no search
 * still answer.
 *
 * Slow (a cluster, then a reindex), so it runs only where a node can: on the cluster
 * OPENSEARCH_CLUSTER_URL gives (its nodes on this host; it is used up, so CI runs this suite
 * last), or, where OPENSEARCH_URL says OpenSearch runs here, on a cluster it starts itself.
 */
import { Client } from '@opensearch-project/opensearch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { localCluster, nodeName, nodePid, type LocalCluster } from '../support/opensearch-cluster.js';
import { runTool } from '../support/run-tool.js';
import { serveApp, testConfig } from '../http/harness.js';
import { bulkBoard } from '../indexer/fixtures.js';

const runs = Boolean(process.env.OPENSEARCH_CLUSTER_URL || process.env.OPENSEARCH_URL);
const prefix = `tagwise_cluster_${process.pid}_${Date.now().toString(36)}_`;
const IMAGES = 400;

interface Load {
  sent: number;
  failures: { status: number; body: string }[];
}

/** Resolves once `done()` holds, checking every 50 ms; throws after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Searches `url` from `workers` loops (each a different page) until `stop()`; every non-200 is a failure. */
function searchLoad(url: string, workers: number): { load: Load; stop(): Promise<Load> } {
  const load: Load = { sent: 0, failures: [] };
  let running = true;
  const loop = async (w: number) => {
    for (let i = 0; running; i++) {
      const page = 1 + ((w * 7 + i) % 16);
      const res = await fetch(`${url}/api/v1/json/search/images?q=*&per_page=25&page=${page}`);
      load.sent++;
      const body = await res.text();
      if (res.status !== 200) load.failures.push({ status: res.status, body: body.slice(0, 200) });
    }
  };
  const loops = Array.from({ length: workers }, (_, w) => loop(w));
  return {
    load,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return load;
    },
  };
}

describe.skipIf(!runs)('a three-node OpenSearch cluster losing its nodes', () => {
  let cluster: LocalCluster;
  let admin: Client;
  let t: TestDatabase;
  let dataDir: string;
  let engine: OpenSearchEngine;
  let served: { url: string; close(): Promise<void> };
  const logged: unknown[] = [];

  beforeAll(async () => {
    cluster = await localCluster(3);
    admin = new Client({ nodes: cluster.nodes });
    t = await createTestDatabase();
    await bulkBoard(t.db, { images: IMAGES });
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-cluster-'));
  }, 300_000);

  afterAll(async () => {
    await served?.close();
    await engine?.close();
    await admin?.close();
    await t?.drop();
    await cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm run indexer -- reindex images` on the test board with `env`'s settings. */
  const reindex = async (env: Record<string, string>) => {
    const run = await runTool('indexer/cli.ts', ['reindex', 'images', '--json'], {
      DATABASE_URL: t.url,
      DATA_DIR: dataDir,
      OPENSEARCH_URL: cluster.nodes.join(','),
      OPENSEARCH_INDEX_PREFIX: prefix,
      ...env,
    }, 240_000);
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.code).toBe(0);
  };

  /** The replica and shard settings of the index an alias points at, and its health. */
  const live = async (name = 'images') => {
    const alias = `${prefix}${name}`;
    const settings = await admin.indices.getSettings({ index: alias, flat_settings: true, include_defaults: true });
    const entries = Object.entries(settings.body) as [string, { settings: Record<string, string>; defaults: Record<string, string> }][];
    expect(entries).toHaveLength(1);
    const [index, s] = entries[0]!;
    const get = (key: string) => s.settings[key] ?? s.defaults[key];
    const health = await admin.cluster.health({ index: alias, wait_for_status: 'green', timeout: '60s' });
    return {
      index,
      shards: get('index.number_of_shards'),
      replicas: get('index.number_of_replicas'),
      autoExpand: get('index.auto_expand_replicas'),
      status: health.body.status,
    };
  };

  it('a reindex gives the live indices OPENSEARCH_REPLICAS and OPENSEARCH_SHARDS, and the next keeps them', async () => {
    // by default one replica once the cluster has two data nodes (the first run also creates
    // the other indices, with the same settings)
    await reindex({});
    expect(await live()).toMatchObject({ shards: '1', replicas: '1', autoExpand: '0-1', status: 'green' });
    await reindex({ OPENSEARCH_REPLICAS: '1', OPENSEARCH_SHARDS: '2' });
    const first = await live();
    expect(first).toMatchObject({ shards: '2', replicas: '1', autoExpand: 'false', status: 'green' });
    // an index not reindexed gets the new replicas when the indexer starts, its shards stay
    expect(await live('tags')).toMatchObject({ shards: '1', replicas: '1', autoExpand: 'false', status: 'green' });
    await reindex({ OPENSEARCH_REPLICAS: '1', OPENSEARCH_SHARDS: '2' });
    const second = await live();
    expect(second.index).not.toBe(first.index);
    expect(second).toMatchObject({ shards: '2', replicas: '1', autoExpand: 'false', status: 'green' });
  }, 400_000);

  it('kill -9 of the first node during searches: no search fails', async () => {
    engine = new OpenSearchEngine({ node: cluster.nodes, indexPrefix: prefix, numberOfReplicas: 1, numberOfShards: 2 });
    const app = createApp(composeApp({ config: testConfig(dataDir), db: t.db, engine, logger: { error: (obj) => logged.push(obj) } }));
    served = await serveApp(app);
    const victim = cluster.nodes[0]!;
    // the first node holds a copy of the images index, so its loss is felt by searches too
    const shards = await admin.cat.shards({ index: `${prefix}images`, format: 'json', h: ['shard', 'prirep', 'state', 'node'] });
    expect((shards.body as { node: string }[]).map((s) => s.node)).toContain(await nodeName(victim));
    const pid = await nodePid(victim);

    const { load, stop } = searchLoad(served.url, 4);
    await until(() => load.sent >= 40, 60_000, 'searches before the kill');
    const before = load.sent;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    // on through the cluster's noticing the loss (a few seconds) and well past it
    await until(() => load.sent >= before + 200 && Date.now() - killedAt >= 8_000, 90_000, 'searches after the kill');
    const done = await stop();
    console.log(`searches: ${before} before the kill, ${done.sent - before} after, ${done.failures.length} failed`);
    expect(done.failures).toEqual([]);
  }, 180_000);

  it('every node down: searches are answered 503 with Retry-After and a JSON error; reads that need no search still answer', async () => {
    for (const url of cluster.nodes.slice(1)) process.kill(await nodePid(url), 'SIGKILL');
    const { load, stop } = searchLoad(served.url, 2);
    await new Promise((r) => setTimeout(r, 1_500));
    const done = await stop();
    expect(done.sent).toBeGreaterThan(5);
    expect(new Set(done.failures.map((f) => f.status))).toEqual(new Set([503]));
    expect(load.failures.length).toBe(done.sent);

    const res = await fetch(`${served.url}/api/v1/json/search/images?q=safe`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'Search temporarily unavailable, retry later' });

    const image = await fetch(`${served.url}/api/v1/json/images/1`);
    expect(image.status).toBe(200);
    expect(((await image.json()) as { image: { id: number } }).image.id).toBe(1);
  }, 60_000);
});
