import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bans, filters, images, searchOutbox, tags, users } from '../../src/db/schema/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { seedBulkBoard, type BulkSummary } from '../../src/seed/bulk.js';
import { counterProblems, recomputeCounters } from '../../src/seed/verify.js';
import { isRatingTag, isValidRatingCombination } from '../../src/contexts/tags/categories.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runTool } from '../support/run-tool.js';

const IMAGES = 3000;

let tdb: TestDatabase;
let summary: BulkSummary;
let schemaBefore: unknown;

/** Constraints, indexes and trigger states of the board's tables: a bulk load must leave them as it found them. */
async function schemaShape(t: TestDatabase) {
  const constraints = await t.db.execute(sql`
    select conrelid::regclass::text as t, conname, pg_get_constraintdef(oid) as def, convalidated
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`);
  const indexes = await t.db.execute(sql`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2`);
  const triggers = await t.db.execute(sql`
    select tgrelid::regclass::text as t, tgname, tgenabled from pg_trigger where not tgisinternal order by 1, 2`);
  return { constraints, indexes, triggers };
}

async function taggingDigest(t: TestDatabase): Promise<string> {
  const [row] = await t.db.execute<{ d: string }>(
    sql`select md5(string_agg(image_id || ':' || tag_id || ':' || position, ',' order by image_id, position)) as d from image_taggings`,
  );
  return row!.d;
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  schemaBefore = await schemaShape(tdb);
  summary = await seedBulkBoard(tdb.db, { images: IMAGES, tags: 2000, users: 12, seed: 5 });
}, 300_000);

afterAll(async () => {
  await tdb?.drop();
});

describe('bulk seed', () => {
  it('loads the requested rows and restores every constraint, index and trigger', async () => {
    expect(summary).toMatchObject({ images: IMAGES, users: 12 });
    const [counts] = await tdb.db.execute<{ images: number; tags: number; users: number }>(
      sql`select (select count(*) from images)::int as images, (select count(*) from tags)::int as tags, (select count(*) from users)::int as users`,
    );
    expect(counts).toEqual({ images: IMAGES, tags: summary.tags, users: 12 });
    expect(await schemaShape(tdb)).toEqual(schemaBefore);
    expect(await tdb.db.select().from(searchOutbox)).toEqual([]);
  });

  it('has counters that agree with the rows they count', async () => {
    expect(await counterProblems(tdb.db)).toEqual([]);
  });

  it('tags images with ~25 tags each, one valid rating, Zipf-like usage', async () => {
    const rows = await tdb.db.execute<{ image_id: number; names: string[] }>(sql`
      select it.image_id, array_agg(t.name order by it.position) as names
      from image_taggings it join tags t on t.id = it.tag_id group by it.image_id`);
    expect(rows).toHaveLength(IMAGES);
    let total = 0;
    for (const r of rows) {
      expect(r.names.length).toBeGreaterThanOrEqual(3);
      expect(isValidRatingCombination(r.names.filter(isRatingTag)), r.names.join(', ')).toBe(true);
      total += r.names.length;
    }
    const average = total / rows.length;
    expect(average).toBeGreaterThan(20);
    expect(average).toBeLessThan(30);
    const usage = (await tdb.db.select({ n: tags.imagesCount }).from(tags)).map((r) => r.n).sort((a, b) => b - a);
    const median = usage[Math.floor(usage.length / 2)]!;
    expect(usage[7]!).toBeGreaterThan(20 * Math.max(1, median));
    const [aliased] = await tdb.db.execute<{ n: number }>(sql`select count(*)::int as n from tags where aliased_tag_id is not null`);
    expect(aliased!.n).toBeGreaterThan(0);
  });

  it('has the system filters and sparse, consistent interactions', async () => {
    const fs = await tdb.db.select().from(filters).orderBy(filters.id);
    expect(fs.map((f) => [f.id, f.name, f.system])).toEqual([
      [1, 'Default', true],
      [2, 'Everything', true],
    ]);
    expect(fs[0]!.hiddenTagIds).toHaveLength(2);
    expect(summary.faves).toBeGreaterThan(0);
    expect(summary.votes).toBeGreaterThan(summary.faves);
    expect(summary.votes).toBeLessThan(IMAGES * 2);
  });

  it('moves the id sequences past the loaded ids', async () => {
    const [img] = await tdb.db.insert(images).values({ imageFormat: 'png', imageMimeType: 'image/png' }).returning({ id: images.id });
    expect(img!.id).toBe(IMAGES + 1);
    const [user] = await tdb.db.insert(users).values({ name: 'newcomer', slug: 'newcomer' }).returning({ id: users.id });
    expect(user!.id).toBe(13);
    await tdb.db.execute(sql`delete from images where id = ${img!.id}`);
    await tdb.db.execute(sql`delete from users where id = ${user!.id}`);
  });

  it('recomputes counters that were damaged', async () => {
    await tdb.db.execute(sql`update images set score = score + 3, faves_count = faves_count + 1 where id in (1, 2)`);
    await tdb.db.execute(sql`update tags set images_count = 0 where id = 1`);
    expect((await counterProblems(tdb.db)).length).toBeGreaterThanOrEqual(5);
    await recomputeCounters(tdb.db);
    expect(await counterProblems(tdb.db)).toEqual([]);
  });

  it('refuses a non-empty board; --force replaces it with the same rows for the same seed', async () => {
    const before = await taggingDigest(tdb);
    await expect(seedBulkBoard(tdb.db, { images: 10, tags: 500 })).rejects.toThrow(/not empty/);
    await seedBulkBoard(tdb.db, { images: IMAGES, tags: 2000, users: 12, seed: 5, force: true });
    expect(await taggingDigest(tdb)).toBe(before);
    expect(await schemaShape(tdb)).toEqual(schemaBefore);
    await seedBulkBoard(tdb.db, { images: 200, tags: 500, users: 12, seed: 6, force: true });
    const [n] = await tdb.db.execute<{ n: number }>(sql`select count(*)::int as n from images`);
    expect(n!.n).toBe(200);
  });

  it('writes real files when asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagwise-bulk-'));
    try {
      await seedBulkBoard(tdb.db, { images: 4, tags: 500, seed: 2, force: true, withFiles: true, storage: new DirectoryStorage(dir) });
      const store = new DirectoryStorage(join(dir, 'images'));
      const rows = await tdb.db.select().from(images);
      expect(rows).toHaveLength(4);
      for (const r of rows) {
        expect(r.storageKey).not.toBeNull();
        expect(await store.exists(r.storageKey!)).toBe(true);
        expect(r.thumbnailsGenerated).toBe(true);
      }
      expect(await counterProblems(tdb.db)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bulk seed on an empty board', () => {
  it('leaves tables it does not load alone (an IP ban made before seeding survives)', async () => {
    const t = await createTestDatabase();
    try {
      await t.db.insert(bans).values({ ip: '203.0.113.0/24', reason: 'abuse' });
      await seedBulkBoard(t.db, { images: 50, tags: 500 });
      expect((await t.db.select().from(bans)).map((b) => b.ip)).toEqual(['203.0.113.0/24']);
    } finally {
      await t.drop();
    }
  });
});

describe('seed CLI', () => {
  let cli: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    cli = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-seed-cli-'));
  });
  afterAll(async () => {
    await cli?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const run = (...args: string[]) => runTool('src/cli/seed.ts', args, { DATABASE_URL: cli.url, DATA_DIR: dataDir });

  it('seeds, refuses a non-empty board, and replaces it with --force', async () => {
    const [bad, help] = await Promise.all([run('--images', 'many'), run('--help')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--images must be a whole number');
    expect(help).toMatchObject({ code: 0 });
    expect(help.stdout).toContain('Usage: npm run seed');

    const first = await run('--images', '300', '--tags', '600', '--no-files');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/bulk board: 300 images, [\d,]+ taggings/);
    expect(first.stderr).toContain('taggings');
    const again = await run('--images', '300', '--no-files');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not empty');
    const forced = await run('--images', '120', '--tags', '500', '--no-files', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    const [n] = await cli.db.execute<{ n: number }>(sql`select count(*)::int as n from images`);
    expect(n!.n).toBe(120);
  }, 240_000);
});
