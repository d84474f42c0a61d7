/**
 * A node restarted in the middle of a reindex: the reindex fails, the alias keeps serving the
 * complete old version across the restart, and the next reindex builds a new one that verifies
 * clean. Starts a node of its own (`npm run opensearch` on another port, small heap) so the
 * restart disturbs no other suite; runs only where OPENSEARCH_URL says a node can run here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';

const IMAGES = 3000;
const port = 9251;
const url = `http://127.0.0.1:${port}`;

/** Starts the launcher and resolves once it printed that the node is up. */
function startNode(dataDir: string): Promise<ChildProcess> {
  // the launcher reads the service's configuration: none of the test run's settings
  const { BASE_URL: _b, CDN_URL: _c, DATABASE_URL: _d, OPENSEARCH_URL: _o, RATE_LIMITS: _r, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/opensearch.ts'], {
    env: { ...inherited, DATA_DIR: dataDir, OPENSEARCH_PORT: String(port), OPENSEARCH_HEAP: '512m' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('OpenSearch is up')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`the node exited (${code}) before it was up`)));
  });
}

function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe.skipIf(!process.env.OPENSEARCH_URL)('a node restarted in the middle of a reindex', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-os-restart-'));
  let node: ChildProcess;
  let t: TestDatabase;
  let engine: OpenSearchEngine;
  let indexer: Indexer;

  beforeAll(async () => {
    [node, t] = await Promise.all([startNode(dataDir), createTestDatabase()]);
    await bulkBoard(t.db, { images: IMAGES });
    engine = new OpenSearchEngine({ node: url, retry: { attempts: 2, initialDelayMs: 50, maxDelayMs: 100 } });
    indexer = new Indexer({ db: t.db, engine });
    await indexer.ensureIndexes(['images']);
  }, 180_000);

  afterAll(async () => {
    await engine?.close();
    if (node) await stopNode(node);
    await t?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('fails that reindex, keeps the old version searchable, and the next reindex completes', async () => {
    const [first] = await indexer.reindex(['images']);
    expect(first).toMatchObject({ docs: IMAGES, version: 'images_v2' });

    // The node goes down once the new version holds 1000 documents: the next bulk write of the
    // build meets a stopped node. It comes back before the alias is looked at again.
    const write = engine.write.bind(engine);
    let written = 0;
    let stopped: Promise<void> | undefined;
    engine.write = async (index, docs) => {
      written += docs.length;
      if (written > 1000) await (stopped ??= stopNode(node));
      return write(index, docs);
    };
    const failed = await indexer.reindex(['images'], { batchSize: 250 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    engine.write = write;
    expect(stopped).toBeDefined();
    expect(failed).toBeInstanceOf(Error);
    node = await startNode(dataDir);

    // the alias never moved: the complete first version answers after the restart
    expect(await engine.search('images', { query: { match_all: {} }, size: 0 })).toMatchObject({ total: IMAGES });

    const [again] = await indexer.reindex(['images']);
    expect(again!.docs).toBe(IMAGES);
    expect(await engine.count('images')).toBe(IMAGES);
    const report = await indexer.verify(['images'], { sample: 200 });
    expect(report.ok).toBe(true);
    // the build the restart broke is dropped with the version the switch retired
    const res = await engine.client.cat.indices({ index: 'images_v*', format: 'json', h: ['index'] });
    expect((res.body as { index: string }[]).map((r) => r.index)).toEqual([again!.version]);
  }, 300_000);
});
