/**
 * The embedded engine's files on disk are not trusted: after each kind of damage (a torn last log
 * line, twice; a missing snapshot; a garbage line inside a log; a deleted log; flipped bytes in a
 * snapshot) a new engine on the same directory, repaired by the indexer as `src/main.ts` does at
 * start, answers what the database holds, with no manual step. The oracle is plain SQL over the
 * images table and the indexer's drift check.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { images } from '../../src/db/schema/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';

let t: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-index-files-'));
  await bulkBoard(t.db, { images: 300, users: 5, tags: 20, prefix: 'files' });
});
afterAll(async () => {
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const indexDir = () => join(dataDir, 'index');
const imagesSnapshot = () => join(indexDir(), readdirSync(indexDir()).find((f) => /^images_v\d+\.snap$/.test(f))!);
const imagesLog = () => {
  const log = readdirSync(indexDir()).find((f) => /^images_v\d+\.[a-z0-9]+\.log$/.test(f));
  return log === undefined ? undefined : join(indexDir(), log);
};

/** Open an engine on the directory and repair it as the service does at start. */
async function openRepaired(): Promise<{ engine: EmbeddedEngine; indexer: Indexer; lines: string[] }> {
  const lines: string[] = [];
  const engine = new EmbeddedEngine({ dataDir });
  const indexer = new Indexer({ db: t.db, engine, log: (m) => lines.push(m) });
  await indexer.repairIndexes();
  await indexer.syncOnce();
  return { engine, indexer, lines };
}

let added = 0;
/** New images through the outbox, applied and flushed into the log (rows deleted). */
async function addImages(indexer: Indexer, n: number): Promise<void> {
  await t.db.insert(images).values(Array.from({ length: n }, () => ({ imageFormat: 'png' as const, imageMimeType: 'image/png' as const, score: 1000 + added++ })));
  await indexer.syncOnce();
}

/** The engine holds exactly the image ids SQL holds, and no document drifts. */
async function expectCorrect(engine: EmbeddedEngine, indexer: Indexer): Promise<void> {
  const rows = (await t.db.select({ id: images.id }).from(images).orderBy(images.id)).map((r) => r.id);
  const hits = await engine.search('images', { query: { match_all: {} }, sort: [{ id: { order: 'asc' } }], size: rows.length + 10 });
  expect(hits.total).toBe(rows.length);
  expect(hits.ids).toEqual(rows);
  const report = await indexer.verify(undefined, { sample: 1000 });
  expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
}

/** A first engine builds the indices and writes its snapshot; a second one adds a log on top. */
async function freshFilesWithLog(): Promise<void> {
  rmSync(indexDir(), { recursive: true, force: true });
  const first = await openRepaired();
  await first.engine.close();
  const second = await openRepaired();
  await addImages(second.indexer, 5);
  await second.engine.close();
  expect(imagesLog()).toBeDefined();
}

describe('damaged index files heal at start', () => {
  it('a torn last log line, twice: cut off, later appends stay readable, results correct', async () => {
    await freshFilesWithLog();
    for (let round = 0; round < 2; round++) {
      appendFileSync(imagesLog()!, '0badc0de {"w":{"id":999999,"sc');
      const { engine, indexer, lines } = await openRepaired();
      // nothing lost with the torn record: no rebuild, and the file was cut back to whole lines
      expect(lines.filter((l) => l.startsWith('rebuilding indices'))).toEqual([]);
      expect(readFileSync(imagesLog()!, 'utf8').endsWith('\n')).toBe(true);
      await expectCorrect(engine, indexer);
      await addImages(indexer, 3);
      await engine.close();
    }
    const { engine, indexer } = await openRepaired();
    await expectCorrect(engine, indexer);
    await engine.close();
  });

  it('a missing snapshot: the index is rebuilt from PostgreSQL', async () => {
    await freshFilesWithLog();
    rmSync(imagesSnapshot());
    const { engine, indexer, lines } = await openRepaired();
    expect(lines.some((l) => /^index files discarded: images_v\d+: .*ENOENT/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('rebuilding indices: images (no documents)'))).toBe(true);
    await expectCorrect(engine, indexer);
    await engine.close();
  });

  it('a garbage line inside a log: the index is rebuilt', async () => {
    await freshFilesWithLog();
    const log = imagesLog()!;
    const lines = readFileSync(log, 'utf8').split('\n');
    lines.splice(1, 0, 'garbage that is not a record');
    writeFileSync(log, lines.join('\n'));
    const { engine, indexer, lines: said } = await openRepaired();
    expect(said.some((l) => /^index files discarded: images_v\d+: .*log line 2 does not verify/.test(l))).toBe(true);
    await expectCorrect(engine, indexer);
    await engine.close();
  });

  it('a deleted log: the index covers an older outbox position than was applied, and is rebuilt', async () => {
    await freshFilesWithLog();
    rmSync(imagesLog()!);
    // a drift check in between (as `npm run indexer -- verify` runs one) does not hide the loss
    const checker = new EmbeddedEngine({ dataDir });
    await new Indexer({ db: t.db, engine: checker }).verify();
    await checker.close();
    const { engine, indexer, lines } = await openRepaired();
    expect(lines.some((l) => /^rebuilding indices: images \(covers outbox position \d+ of \d+\)/.test(l))).toBe(true);
    await expectCorrect(engine, indexer);
    await engine.close();
  });

  it('flipped bytes in a snapshot: the checksum fails and the index is rebuilt', async () => {
    await freshFilesWithLog();
    const file = imagesSnapshot();
    const bytes = readFileSync(file);
    for (const at of [Math.floor(bytes.length / 2), bytes.length - 3]) bytes[at]! ^= 0xff;
    writeFileSync(file, bytes);
    const { engine, indexer, lines } = await openRepaired();
    expect(lines.some((l) => /^index files discarded: images_v\d+: section .* does not verify/.test(l))).toBe(true);
    await expectCorrect(engine, indexer);
    await engine.close();
    expect(existsSync(imagesSnapshot())).toBe(true);
  });
});
