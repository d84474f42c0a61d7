/**
 * The demo board of a first start made once when processes start together on an empty database
 * (src/seed/demo-once.ts): each racer here has a pool of its own, as a process would; one seeds,
 * the others wait for it and find the board made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { seedDemoBoardOnce } from '../../src/seed/demo-once.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('the demo board at a first start', () => {
  let t: TestDatabase;
  let pools: Database[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-demo-once-'));
  beforeAll(async () => {
    t = await createTestDatabase();
    pools = [0, 1, 2].map(() => createDatabase(t.url, { max: 3 }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.$client.end({ timeout: 5 })));
    await t.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is made by one of the processes that start together; the others wait for it', async () => {
    const said: string[] = [];
    const seeded = await Promise.all(
      pools.map((db, i) => seedDemoBoardOnce(db, { seed: 3, images: 12, storage: new DirectoryStorage(join(dir, String(i))) }, (msg) => said.push(msg))),
    );
    expect(seeded.filter(Boolean)).toHaveLength(1);
    const [row] = await t.db.$client`select count(*)::int as n from images`;
    expect(row!.n).toBe(12);
    expect(said.filter((m) => m === 'empty board: creating the demo board')).toHaveLength(1);
    // and a later start finds the board made
    expect(await seedDemoBoardOnce(pools[0]!, { seed: 3, images: 12, withFiles: false })).toBe(false);
  });
});
