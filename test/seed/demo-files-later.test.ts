/**
 * The demo board with its image files made after its rows (`imageFilesLater`, the first start's
 * way): the rows land at once with every image unprocessed and one job per image queued newest
 * first; once a job worker has run them, the board is the one a seed with its files made first
 * writes (same rows, intensities, fingerprints and files, byte for byte).
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.js';
import { JobWorker } from '../../src/jobs/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { createDemoFilesJobHandlers, DEMO_IMAGE_FILES_JOB } from '../../src/seed/demo-files-job.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

const IMAGES = 12;
const OPTIONS = { seed: 5, images: IMAGES, maxImageSide: 200 };

let first: TestDatabase;
let later: TestDatabase;
let dirFirst: string;
let dirLater: string;

beforeAll(async () => {
  [first, later] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  dirFirst = mkdtempSync(join(tmpdir(), 'tagwise-demo-first-'));
  dirLater = mkdtempSync(join(tmpdir(), 'tagwise-demo-later-'));
  await Promise.all([
    seedDemoBoard(first.db, { ...OPTIONS, storage: new DirectoryStorage(dirFirst) }),
    seedDemoBoard(later.db, { ...OPTIONS, storage: new DirectoryStorage(dirLater), imageFilesLater: true }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.drop(), later?.drop()]);
  for (const d of [dirFirst, dirLater]) if (d) rmSync(d, { recursive: true, force: true });
});

/** Every file under `dir`, by path relative to it, with its bytes in hex. */
function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path).toString('hex'));
    }
  };
  walk(dir);
  return out;
}

const imageRows = (t: TestDatabase) =>
  t.db.execute<Record<string, unknown>>(sql`select * from images order by id`).then((rows) => rows.map(({ updated_at: _u, ...rest }) => rest));

describe('demo image files made after the rows', () => {
  it('writes the rows at once: every image unprocessed, its avatars made, one job per image, newest first', async () => {
    const rows = await later.db.select({ id: schema.images.id, processed: schema.images.processed, thumbs: schema.images.thumbnailsGenerated }).from(schema.images).orderBy(asc(schema.images.id));
    expect(rows).toHaveLength(IMAGES);
    expect(rows.every((r) => !r.processed && !r.thumbs)).toBe(true);
    expect(await later.db.select().from(schema.imageIntensities)).toEqual([]);
    const jobs = await later.db.execute<{ kind: string; state: string; image: number }>(sql`select kind, state, (payload->>'id')::int as image from jobs order by id`);
    expect(jobs.every((j) => j.kind === DEMO_IMAGE_FILES_JOB && j.state === 'queued')).toBe(true);
    expect(jobs.map((j) => j.image)).toEqual(rows.map((r) => r.id).reverse());
    // no image file yet; the avatars and other assets are there
    const made = [...filesUnder(dirLater).keys()];
    expect(made.some((p) => p.startsWith('images/'))).toBe(false);
    expect(made.some((p) => p.startsWith('avatars/'))).toBe(true);
  });

  it('once its jobs have run, is the board whose files were made first', async () => {
    const said: string[] = [];
    const worker = new JobWorker({
      db: later.db,
      handlers: createDemoFilesJobHandlers({ db: later.db, images: new DirectoryStorage(join(dirLater, 'images')), log: (msg) => said.push(msg) }),
      pollMs: 100,
    });
    await worker.start();
    try {
      await waitUntil(
        'every demo job done',
        async () => (await later.db.execute<{ n: number }>(sql`select count(*)::int as n from jobs where state <> 'done'`))[0]!.n === 0,
        90_000,
        100,
      );
    } finally {
      await worker.stop();
    }
    expect(said.at(-1)).toBe('demo board: every image has its files');
    expect(await imageRows(later)).toEqual(await imageRows(first));
    const ordered = { intensities: sql`select * from image_intensities order by image_id`, fingerprints: sql`select * from image_fingerprints order by image_id` };
    for (const query of Object.values(ordered)) expect(await later.db.execute(query)).toEqual(await first.db.execute(query));
    const [a, b] = [filesUnder(dirFirst), filesUnder(dirLater)];
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [path, bytes] of a) expect(b.get(path) === bytes, path).toBe(true);
  });

  it('a job run again for an image whose files are made does nothing', async () => {
    const before = filesUnder(dirLater);
    const [job] = await later.db.execute<{ id: number; payload: Record<string, unknown> }>(sql`select id, payload from jobs order by id limit 1`);
    const handler = createDemoFilesJobHandlers({ db: later.db, images: new DirectoryStorage(join(dirLater, 'images')) })[DEMO_IMAGE_FILES_JOB]!;
    const rowsBefore = await imageRows(later);
    await handler({ id: job!.id, kind: DEMO_IMAGE_FILES_JOB, payload: job!.payload, attempts: 2, maxAttempts: 5 });
    expect(await imageRows(later)).toEqual(rowsBefore);
    expect(filesUnder(dirLater)).toEqual(before);
  });
});
