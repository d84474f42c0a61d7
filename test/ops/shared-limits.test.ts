/**
 * Several API processes (`src/main.ts` as child processes) on one database: a caller's budget is
 * one budget however the load balancer spreads its requests, and processes racing to ban a caller
 * make one ban. (Processes started together on an empty database: test/seed/demo-once.test.ts,
 * and test/ops/opensearch-processes.test.ts where a node can run.)
 *
 * The embedded engine is one process's per database (indexer/engine-owner.ts), so the three share
 * an engine over HTTP: the OpenSearch stand-in, since the requests here (a missing image) are
 * answered from PostgreSQL and never reach the engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { FakeOpenSearch } from '../support/fake-opensearch.js';
import { startService, type Service } from './service-process.js';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-shared-'));
  dirs.push(dir);
  return dir;
};

async function stopAll(services: Service[]): Promise<void> {
  await Promise.all(
    services.map((s) => {
      if (s.child.exitCode === null) s.child.kill('SIGTERM');
      return s.exited;
    }),
  );
}

const get = (svc: Service, path: string, ip: string) => fetch(`${svc.base}${path}`, { headers: { 'x-forwarded-for': ip } });

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('three API processes on one database', () => {
  let t: TestDatabase;
  let services: Service[] = [];
  let engine: FakeOpenSearch;
  beforeAll(async () => {
    t = await createTestDatabase();
    engine = await FakeOpenSearch.start();
    const env = {
      DATABASE_URL: t.url,
      OPENSEARCH_URL: engine.url,
      DEMO_DATA: 'false',
      TRUST_PROXY: 'true',
      RATE_LIMIT_READ: '60/1h',
      BAN_AFTER_VIOLATIONS: '20',
      BAN_WINDOW_SECONDS: '600',
      IMAGE_CACHE_WARM: 'off',
    };
    services = await Promise.all([0, 1, 2].map(() => startService(dataDir(), env)));
    await Promise.all(services.map((s) => s.waitFor('listening')));
  }, 180_000);
  afterAll(async () => {
    await stopAll(services);
    await engine?.stop();
    await t?.drop();
  });

  // a caller of its own for each attempt: a retried test would otherwise meet the ban of the first
  let attempt = 0;
  it('let 180 requests spread over them spend one 60-request budget, not three', async () => {
    const ip = `203.0.113.${10 + 2 * attempt++}`;
    const statuses: number[] = [];
    for (let i = 0; i < 180; i++) statuses.push((await get(services[i % 3]!, '/api/v1/json/images/999', ip)).status);
    const passed = statuses.filter((s) => s === 404).length;
    console.log(`one budget of 60 over three processes: ${passed} of 180 requests passed`);
    // SharedBuckets' bound: at most the budget; at least the budget less a chunk (6) per other process
    expect(passed).toBeLessThanOrEqual(60);
    expect(passed).toBeGreaterThanOrEqual(48);
    expect(statuses.filter((s) => s !== 404).every((s) => s === 429 || s === 403)).toBe(true);
    // and the 20 refusals after it, counted in all three, made one ban
    expect(statuses.at(-1)).toBe(403);
    const [row] = await t.db.$client`select count(*)::int as n from bans where ip = ${`${ip}/32`}::inet`;
    expect(row!.n).toBe(1);
  });

  it('make one ban when all three race to ban the same caller', async () => {
    const ip = `203.0.113.${11 + 2 * attempt++}`;
    const statuses = await Promise.all(Array.from({ length: 150 }, (_, i) => get(services[i % 3]!, '/api/v1/json/images/999', ip).then((r) => r.status)));
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(60);
    expect(statuses).toContain(403);
    const [row] = await t.db.$client`select count(*)::int as n from bans where ip = ${`${ip}/32`}::inet`;
    expect(row!.n).toBe(1);
  });
});
