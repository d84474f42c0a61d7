/**
 * API processes beside a shared OpenSearch node, with no indexer process: two processes started
 * together on an empty database with demo data both become ready and one made the board; one of
 * them leads the outbox; killed with SIGKILL, the other takes the lead, and the time from the kill
 * until a write is searchable through the survivor is measured. Runs where OPENSEARCH_URL names a
 * node (`npm run opensearch`); its indices carry a prefix of their own and are deleted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmptyTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { startService, type Service } from './service-process.js';

const node = process.env.OPENSEARCH_URL;

describe.skipIf(!node)('API processes beside a shared OpenSearch node', () => {
  const prefix = `procs_${randomBytes(4).toString('hex')}_`;
  const dirs: string[] = [];
  let t: TestDatabase;
  let services: Service[] = [];

  afterAll(async () => {
    await Promise.all(
      services.map((s) => {
        if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
        return s.exited;
      }),
    );
    await fetch(`${node}/${prefix}*`, { method: 'DELETE' }).catch(() => {});
    await t?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const readyz = async (svc: Service) => {
    const res = await fetch(`${svc.base}/readyz`).catch(() => undefined);
    return res ? { status: res.status, body: (await res.json()) as Record<string, unknown> } : undefined;
  };

  it('start together on an empty database: one makes the demo board, both become ready, one leads', async () => {
    t = await createEmptyTestDatabase();
    const env = {
      DATABASE_URL: t.url,
      OPENSEARCH_URL: node!,
      OPENSEARCH_INDEX_PREFIX: prefix,
      DEMO_DATA: 'true',
      DEMO_IMAGES: '20',
      RATE_LIMITS: 'off',
      IMAGE_CACHE_WARM: 'off',
    };
    services = await Promise.all(
      [0, 1].map(() => {
        const dir = mkdtempSync(join(tmpdir(), 'tagwise-os-procs-'));
        dirs.push(dir);
        return startService(dir, env);
      }),
    );
    for (const svc of services) {
      await waitUntil(() => `${svc.base}/readyz to answer 200:\n${svc.output().slice(-2000)}`, async () => (await readyz(svc))?.status === 200, 240_000, 500);
    }
    expect(services.filter((s) => s.lines.some((l) => l.msg === 'demo board created'))).toHaveLength(1);
    const leaders = [];
    for (const svc of services) leaders.push((await readyz(svc))?.body.indexer_leader);
    expect(leaders.filter((l) => l === true)).toHaveLength(1);
    for (const svc of services) {
      const res = await fetch(`${svc.base}/api/v1/json/search/tags?q=*&per_page=1`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total: number }).total).toBeGreaterThan(0);
    }
  }, 300_000);

  it('take over the outbox within seconds when the leader is killed', async () => {
    const leader = services.find((s) => s.lines.some((l) => l.msg === 'leading: this process follows the outbox'))!;
    const survivor = services.find((s) => s !== leader)!;
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exited;
    await t.db.$client`insert into tags (name, slug, name_in_namespace) values ('after_the_failover', 'after_the_failover', 'after_the_failover')`;
    await waitUntil(
      'the write to be searchable through the survivor',
      async () => {
        const res = await fetch(`${survivor.base}/api/v1/json/search/tags?q=after_the_failover`);
        return res.ok && ((await res.json()) as { total: number }).total === 1;
      },
      60_000,
      50,
    );
    const searchableMs = Date.now() - killedAt;
    console.log(`failover: a write searchable through the survivor ${searchableMs} ms after the leader was killed`);
    expect(searchableMs).toBeLessThan(10_000);
    expect((await readyz(survivor))?.body).toMatchObject({ status: 'ready', indexer_leader: true });
  }, 120_000);
});
