/**
 * The cluster acceptance test: three OpenSearch nodes, a real S3-compatible server (S3Proxy),
 * PostgreSQL and three API processes (test/support/cluster.ts). Uploads through one process are
 * served by the others (JSON, full files, thumbnails) and found by searches on all three; during a
 * mixed load (reads and an upload a second) one OpenSearch node and the API process leading the
 * outbox are killed with SIGKILL, and a client that retries a failed request once on another
 * process sees no failure, and every upload it was told succeeded is visible everywhere after.
 *
 * Slow (a cluster of its own, some minutes), so it runs only where asked: CLUSTER_SUITE=on (what
 * `.ci/run` sets, once the shared CI cluster is gone) or OPENSEARCH_CLUSTER_URL (a cluster on this
 * host it may use up, as test/search/opensearch-cluster.test.ts does).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterSetup, type ClusterSetup } from '../support/cluster.js';
import { checkVisibility, RetryingClient, searchIds, startLoad } from '../support/cluster-load.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

const runs = process.env.CLUSTER_SUITE === 'on' || Boolean(process.env.OPENSEARCH_CLUSTER_URL);
const log = (msg: string) => console.log(`[cluster] ${msg}`);

describe.skipIf(!runs)('a cluster of three API processes, three OpenSearch nodes, S3 and PostgreSQL', () => {
  let t: TestDatabase;
  let c: ClusterSetup;
  const alive = () => c.api.filter((p) => p.alive()).map((p) => p.base);

  beforeAll(async () => {
    t = await createTestDatabase();
    c = await startClusterSetup({ databaseUrl: t.url, log });
    await c.startApi(2);
  }, 600_000);

  afterAll(async () => {
    await c?.stop();
    await t?.drop();
  }, 120_000);

  it('serves an upload made through one process from the others, and finds it by search on all three', async () => {
    const tag = `clusterfirst${randomBytes(3).toString('hex')}`;
    const [first] = c.api;
    const acked: number[] = [];
    for (let n = 0; n < 3; n++) {
      const res = await fetch(`${first!.base}/api/v1/json/images?key=${encodeURIComponent(c.uploaderKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: c.imageUrl(1_000 + n), image: { tag_input: `safe, ${tag}, cluster test` } }),
      });
      const body = await res.text();
      expect(res.status, body).toBe(200);
      acked.push((JSON.parse(body) as { image: { id: number } }).image.id);
    }
    const seen = await checkVisibility(alive(), acked, tag, 180_000);
    expect(seen.problems).toEqual([]);
    const found = await Promise.all(alive().map((base) => searchIds(base, tag)));
    expect(found).toEqual([acked, acked, acked]);
  }, 300_000);

  it('loses no acknowledged upload and fails no retried request when a node and the leading API process are killed', async () => {
    const runTag = `clusterload${randomBytes(3).toString('hex')}`;
    const bases = c.api.map((p) => p.base); // the client keeps the dead one in its list, as DNS would
    const load = startLoad({ client: new RetryingClient(() => bases), uploaderKey: c.uploaderKey, runTag, imageUrl: c.imageUrl, readers: 3, writesPerSecond: 1, firstSeed: 2_000 });
    await sleep(8_000);
    log(`killing OpenSearch node ${c.opensearchNodes[1]}`);
    await c.killOpenSearchNode(c.opensearchNodes[1]!);
    await sleep(6_000);
    const leader = await c.leader();
    expect(leader, 'one process leads the outbox').toBeDefined();
    log(`killing ${leader!.name}, the leader`);
    await leader!.kill('SIGKILL');
    await sleep(14_000);
    const stats = await load.stop();
    log(`${stats.requests} requests (${stats.retried} retried), ${stats.acked.length} uploads acknowledged, ${stats.unacked} not`);

    expect(stats.failures).toEqual([]);
    expect(stats.unacked).toBe(0);
    expect(stats.acked.length).toBeGreaterThanOrEqual(10); // one a second when an upload takes under a second
    expect(stats.requests).toBeGreaterThan(stats.acked.length);
    const survivors = alive();
    expect(survivors).toHaveLength(2);
    // a processing job held by the killed process waits for its lock to go stale (60 s)
    const seen = await checkVisibility(survivors, stats.acked, runTag, 240_000);
    expect(seen.problems).toEqual([]);
    expect(seen.lost).toEqual([]);
  }, 600_000);
});
