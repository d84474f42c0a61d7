import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.js';
import { ImportError, importBoard, type ImportSummary } from '../../src/import/api-json/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { boardTables } from '../../src/seed/common.js';
import { findUserByApiKey, hashApiKey } from '../../src/contexts/users/api-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runTool } from '../support/run-tool.js';
import type { MediaStorage } from '../../src/media/storage.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/import');
const load = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

const { apiKeys, images, imageTaggings, posts, searchOutbox, tags, topics, forums, users } = schema;

let tdb: TestDatabase;
let dataDir: string;
let store: MediaStorage;
let first: ImportSummary;

/** Every row of every table (outbox included), for before/after comparisons. */
async function dump(t: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of await boardTables(t.db)) out[table] = await t.db.execute(sql.raw(`select * from "${table}" order by 1, 2`));
  return out;
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-import-'));
  store = new DirectoryStorage(join(dataDir, 'images'));
  first = await importBoard(tdb.db, load('sample-board.json'), { fileStore: store, baseDir: FIXTURES });
});

afterAll(async () => {
  await tdb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('importing the sample board', () => {
  it('keeps ids and writes every resource', async () => {
    expect(first.inserted).toMatchObject({ users: 3, tags: 13, images: 5, comments: 3, forums: 2, topics: 3, posts: 4, galleries: 1, filters: 3 });
    expect(first.updated).toEqual({});
    const us = await tdb.db.select().from(users).orderBy(asc(users.id));
    expect(us.map((u) => [u.id, u.name, u.role, u.slug])).toEqual([
      [1, 'Curator', 'admin', 'Curator'],
      [2, 'Sample Artist', 'user', 'Sample+Artist'],
      [3, 'Reader', 'user', 'Reader'],
    ]);
    expect(us[1]).toMatchObject({ avatar: '2024/1/3/sample-artist.png', imagesCount: 2, postsCount: 1 });
    const fs = await tdb.db.select().from(schema.filters).orderBy(asc(schema.filters.id));
    expect(fs.map((f) => [f.id, f.name, f.system])).toEqual([[1, 'Default', true], [2, 'Everything', true], [3, 'No OCs', false]]);
    expect(fs[2]).toMatchObject({ userId: 3, public: true, hiddenComplexStr: 'oc || oc only\nscore.lt:-3', spoileredTagIds: [2] });
    const [gallery] = await tdb.db.select().from(schema.galleries);
    expect(gallery).toMatchObject({ id: 1, creatorId: 3, thumbnailId: 1, imageCount: 3 });
    const items = await tdb.db.select().from(schema.galleryInteractions).orderBy(asc(schema.galleryInteractions.position));
    expect(items.map((i) => i.imageId)).toEqual([2, 1, 3]);
    const [feature] = await tdb.db.select().from(schema.imageFeatures);
    expect(feature?.imageId).toBe(1);
    const [link] = await tdb.db.select().from(schema.userLinks);
    expect(link).toMatchObject({ userId: 2, tagId: 6, state: 'verified' });
    const [award] = await tdb.db.select().from(schema.badgeAwards);
    expect(award).toMatchObject({ userId: 2, badgeId: 1, label: 'Sample Artist' });
    const [badge] = await tdb.db.select().from(schema.badges);
    expect(badge).toMatchObject({ id: 1, title: 'Artist', image: 'artist.svg' });
  });

  it('registers API keys hashed, and they work', async () => {
    const rows = await tdb.db.select().from(apiKeys).orderBy(asc(apiKeys.id));
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.map((r) => r.keyHash)).toContain(hashApiKey('sample-admin-key-0123456789abcdef'));
    expect(JSON.stringify(rows)).not.toContain('sample-admin-key-0123456789abcdef');
    expect((await findUserByApiKey(tdb.db, 'sample-admin-key-0123456789abcdef'))?.name).toBe('Curator');
    expect((await findUserByApiKey(tdb.db, 'sample-artist-key-second-0123456789'))?.name).toBe('Sample Artist');
  });

  it('analyses and stores image files with their representations', async () => {
    const [one] = await tdb.db.select().from(images).where(eq(images.id, 1));
    expect(one).toMatchObject({
      imageWidth: 200, imageHeight: 150, imageFormat: 'png', imageMimeType: 'image/png', processed: true, thumbnailsGenerated: true,
      imageName: 'meadow.png', score: 3, favesCount: 2, commentsCount: 2, description: 'A *sunny* meadow.',
    });
    expect(one!.imageAspectRatio).toBeCloseTo(4 / 3, 10);
    expect(one!.imageOrigSha512Hash).toMatch(/^[0-9a-f]{128}$/);
    expect(one!.storageKey).toBe('2024/2/1/1/full.png');
    for (const name of ['full', 'thumb_tiny', 'thumb_small']) expect(await store.exists(`2024/2/1/1/${name}.png`), name).toBe(true);
    const [two] = await tdb.db.select().from(images).where(eq(images.id, 2));
    expect(two).toMatchObject({ imageFormat: 'jpg', imageWidth: 180, imageHeight: 240, userId: null, imageName: 'night-sky.jpg' });
    expect(await store.exists('2024/2/3/2/full.jpg')).toBe(true);
    const [merged] = await tdb.db.select().from(images).where(eq(images.id, 4));
    expect(merged).toMatchObject({ hiddenFromUsers: true, duplicateId: 3, deletionReason: null });
    const intensities = await tdb.db.select().from(schema.imageIntensities).orderBy(asc(schema.imageIntensities.imageId));
    expect(intensities.map((i) => i.imageId)).toEqual([1, 2, 3]);
    expect(intensities[2]).toMatchObject({ nw: 120.5, ne: 118.25, sw: 60, se: 64.75 });
  });

  it('applies aliases and implications to images tagged by name, and keeps tag rules', async () => {
    const rows = await tdb.db
      .select({ name: tags.name })
      .from(imageTaggings)
      .innerJoin(tags, eq(tags.id, imageTaggings.tagId))
      .where(eq(imageTaggings.imageId, 5))
      .orderBy(asc(imageTaggings.position));
    expect(rows.map((r) => r.name)).toEqual(['safe', 'pegasus', 'cloud', 'artist:sample_artist', 'pony']);
    const [alias] = await tdb.db.select().from(tags).where(eq(tags.id, 9));
    expect(alias).toMatchObject({ aliasedTagId: 7, slug: 'pegasus+pony' });
    const [artist] = await tdb.db.select().from(tags).where(eq(tags.id, 6));
    expect(artist).toMatchObject({ namespace: 'artist', nameInNamespace: 'sample_artist', category: 'origin', imagesCount: 3 });
    const [cloud] = await tdb.db.select().from(tags).where(eq(tags.id, 13));
    expect(cloud?.image).toBe('cloud.png');
    const implications = await tdb.db.select().from(schema.tagImplications);
    expect(implications).toEqual([{ tagId: 7, impliedTagId: 8 }]);
    const [dnp] = await tdb.db.select().from(schema.dnpEntries);
    expect(dnp).toMatchObject({ id: 1, tagId: 6, dnpType: 'With Permission Only' });
  });

  it('files posts under the right topics, with positions from 0', async () => {
    const rows = await tdb.db
      .select({ id: posts.id, position: posts.topicPosition, slug: topics.slug, forum: forums.shortName })
      .from(posts)
      .innerJoin(topics, eq(topics.id, posts.topicId))
      .innerJoin(forums, eq(forums.id, topics.forumId))
      .orderBy(asc(posts.id));
    expect(rows).toEqual([
      { id: 1, position: 0, slug: 'welcome', forum: 'dis' },
      { id: 2, position: 1, slug: 'welcome', forum: 'dis' },
      { id: 3, position: 0, slug: 'art-tips', forum: 'dis' },
      { id: 4, position: 0, slug: 'welcome', forum: 'staff' },
    ]);
    const [staff] = await tdb.db.select().from(forums).where(eq(forums.shortName, 'staff'));
    expect(staff?.accessLevel).toBe('staff');
    const [locked] = await tdb.db.select().from(topics).where(eq(topics.slug, 'art-tips'));
    expect(locked?.lockedAt).not.toBeNull();
    const hidden = await tdb.db.select().from(schema.comments).where(eq(schema.comments.id, 3));
    expect(hidden[0]).toMatchObject({ hiddenFromUsers: true, body: '', deletionReason: 'Spam' });
  });

  it('changes nothing when imported again', async () => {
    const before = await dump(tdb);
    const again = await importBoard(tdb.db, load('sample-board.json'), { fileStore: store, baseDir: FIXTURES });
    expect(again.inserted).toEqual({});
    expect(again.updated).toEqual({});
    expect(again.filesWritten).toBe(0);
    expect(await dump(tdb)).toEqual(before);
  });

  it('updates only what changed', async () => {
    const board = load('sample-board.json');
    (board.images as Array<Record<string, unknown>>)[2]!.description = 'Edited.';
    (board.tags as Array<Record<string, unknown>>)[9]!.short_description = 'One character.';
    const outbox = (await tdb.db.select().from(searchOutbox)).length;
    const changed = await importBoard(tdb.db, board, { fileStore: store, baseDir: FIXTURES });
    expect(changed.inserted).toEqual({});
    expect(changed.updated).toEqual({ images: 1, tags: 1 });
    const [img] = await tdb.db.select().from(images).where(eq(images.id, 3));
    expect(img?.description).toBe('Edited.');
    expect((await tdb.db.select().from(searchOutbox)).length).toBeGreaterThan(outbox);
  });
});

describe('aliases across imports', () => {
  it('aliases an existing tag to a tag created by the same import', async () => {
    await importBoard(tdb.db, { tags: [{ id: 20, name: 'mare' }] });
    const summary = await importBoard(tdb.db, {
      tags: [
        { id: 20, name: 'mare', aliased_tag: 'female' },
        { id: 21, name: 'female', aliases: ['mare'] },
      ],
    });
    expect(summary.inserted).toEqual({ tags: 1 });
    expect(summary.updated).toEqual({ tags: 1 });
    expect(summary.unchanged).toEqual({});
    const [mare] = await tdb.db.select().from(tags).where(eq(tags.id, 20));
    expect(mare?.aliasedTagId).toBe(21);
  });
});

describe('refusing a broken board', () => {
  let empty: TestDatabase;
  beforeAll(async () => {
    empty = await createTestDatabase();
  });
  afterAll(async () => {
    await empty?.drop();
  });

  it('reports every problem and writes nothing', async () => {
    const before = await dump(empty);
    const error = await importBoard(empty.db, load('broken-board.json'), { fileStore: store, baseDir: FIXTURES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).problems).toEqual([
      'user 2: role: Invalid option: expected one of "user"|"assistant"|"moderator"|"admin"',
      'user 2: created_at: Invalid ISO datetime',
      'image 2: width: required when there is no file',
      'image 2: height: required when there is no file',
      'image 2: format: required when there is no file',
      'image 2: mime_type: required when there is no file',
      'image 2: score: must be upvotes - downvotes (2)',
      'tag 5: name "Solo" is not clean (it would be "solo")',
      'tag 3: pegasus pony has aliases of its own and may not be aliased',
      'tag 4: pegasus pony is itself aliased and would create a transitive alias',
      'image 1: uploader_id 7 is not a known user',
      'image 1: tag_ids: unknown tag 99',
      'image 3: file: cannot read missing.png (ENOENT)',
      'board: featured_image_id 77 is not a known image',
      'comment 1: image_id 42 is not a known image',
      'topic nowhere/lost: forum nowhere is not a known forum',
      'filter 1: hidden_complex is invalid: Imbalanced parentheses.',
    ]);
    expect(await dump(empty)).toEqual(before);
  });

  it('refuses a file whose top level is wrong', async () => {
    await expect(importBoard(empty.db, [1, 2])).rejects.toMatchObject({ problems: [expect.stringMatching(/^board: /)] });
    await expect(importBoard(empty.db, { pictures: [] })).rejects.toMatchObject({ problems: [expect.stringMatching(/^board: .*pictures/)] });
  });

  it('accepts references to rows already in the database', async () => {
    const board = { comments: [{ id: 10, image_id: 3, user_id: 2, body: 'Late to the party.', created_at: '2024-03-01T00:00:00Z' }] };
    const summary = await importBoard(tdb.db, board);
    expect(summary.inserted).toEqual({ comments: 1 });
    const bad = { comments: [{ id: 11, image_id: 999, body: 'x', created_at: '2024-03-01T00:00:00Z' }] };
    await expect(importBoard(tdb.db, bad)).rejects.toMatchObject({ problems: ['comment 11: image_id 999 is not a known image'] });
  });
});

describe('images with both tag_ids and tags, as GET /images/:id serves them', () => {
  const image = (id: number, tagIds: number[], names: string[]) => ({
    id, created_at: '2024-05-01T00:00:00Z', width: 10, height: 10, format: 'png', mime_type: 'image/png',
    tag_ids: tagIds, tags: names, tag_count: tagIds.length,
  });
  const vocabulary = [{ id: 31, name: 'safe' }, { id: 32, name: 'artist:someone' }, { id: 33, name: 'solo' }];
  let both: TestDatabase;
  beforeAll(async () => {
    both = await createTestDatabase();
  });
  afterAll(async () => {
    await both?.drop();
  });

  it('imports the ids when the names agree, in any order', async () => {
    const summary = await importBoard(both.db, { tags: vocabulary, images: [image(1, [31, 32], ['artist:someone', 'safe'])] });
    expect(summary.inserted).toMatchObject({ images: 1, image_taggings: 2 });
    const rows = await both.db.select().from(imageTaggings).where(eq(imageTaggings.imageId, 1)).orderBy(asc(imageTaggings.tagId));
    expect(rows.map((r) => r.tagId)).toEqual([31, 32]);
    // Tags already in the database are named from there.
    await importBoard(both.db, { images: [image(2, [33], ['solo'])] });
  });

  it('reports a disagreement with the image id and writes nothing', async () => {
    const before = await dump(both);
    const error = await importBoard(both.db, { images: [image(3, [31, 33], ['safe', 'artist:someone']), image(4, [31], ['safe'])] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).problems).toEqual(['image 3: tags and tag_ids disagree: tags has "artist:someone" not in tag_ids; tag_ids has "solo" not in tags']);
    expect(await dump(both)).toEqual(before);
  });
});

describe('ids the board already holds as other records', () => {
  const image = (id: number, createdAt: string, description = '') => ({
    id, created_at: createdAt, width: 10, height: 10, format: 'png', mime_type: 'image/png', tag_ids: [41], tags: ['safe'], tag_count: 1, description,
  });
  let live: TestDatabase;
  beforeAll(async () => {
    live = await createTestDatabase();
  });
  afterAll(async () => {
    await live?.drop();
  });

  it('reports an image, a user and a tag uploaded or made on the board under an id of the file, and writes nothing', async () => {
    await importBoard(live.db, { tags: [{ id: 41, name: 'safe' }], images: [image(1, '2020-01-01T00:00:00Z')] });
    // The board goes on: an upload takes image id 2, a submission creates tag 42, an account is opened as user 7.
    await live.db.insert(schema.images).values({ id: 2, imageName: 'live.png', imageWidth: 5, imageHeight: 5, imageSize: 1, imageFormat: 'png', imageMimeType: 'image/png', imageAspectRatio: 1, description: 'uploaded live', createdAt: new Date('2026-11-25T12:00:00Z') });
    await live.db.insert(schema.tags).values({ id: 42, name: 'live tag', slug: 'live+tag', nameInNamespace: 'live tag' });
    await live.db.insert(schema.users).values({ id: 7, name: 'Live User', slug: 'live+user', createdAt: new Date('2026-11-25T12:00:00Z') });
    const before = await dump(live);

    const later = {
      users: [{ id: 7, name: 'Imported User', created_at: '2019-06-01T00:00:00Z' }],
      tags: [{ id: 41, name: 'safe' }, { id: 42, name: 'imported tag' }],
      images: [image(1, '2020-01-01T00:00:00Z', 'edited in the source'), image(2, '2020-02-02T00:00:00Z', 'imported')],
    };
    const error = await importBoard(live.db, later).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).problems).toEqual([
      'image 2: the board already has another image 2 (created 2026-11-25T12:00:00Z, this one 2020-02-02T00:00:00Z); it is not overwritten',
      'user 7: the board already has another user 7 ("Live User", created 2026-11-25T12:00:00Z); it is not overwritten',
      'tag 42: the board already has another tag 42 ("live tag"); it is not overwritten',
    ]);
    expect(await dump(live)).toEqual(before);
  });

  it('updates the records an earlier import of the same board wrote', async () => {
    const again = await importBoard(live.db, { tags: [{ id: 41, name: 'safe' }], images: [image(1, '2020-01-01T00:00:00Z', 'edited in the source')] });
    expect(again.updated).toEqual({ images: 1 });
    const [row] = await live.db.select().from(schema.images).where(eq(schema.images.id, 1));
    expect(row?.description).toBe('edited in the source');
    const [upload] = await live.db.select().from(schema.images).where(eq(schema.images.id, 2));
    expect(upload?.description).toBe('uploaded live');
  });
});

describe('import CLI', () => {
  let cli: TestDatabase;
  let cliData: string;
  beforeAll(async () => {
    cli = await createTestDatabase();
    cliData = mkdtempSync(join(tmpdir(), 'tagwise-import-cli-'));
  });
  afterAll(async () => {
    await cli?.drop();
    if (cliData) rmSync(cliData, { recursive: true, force: true });
  });

  const run = (...args: string[]) => runTool('src/cli/import.ts', args, { DATABASE_URL: cli.url, DATA_DIR: cliData });

  it('exits 1 with the report on a broken file, 0 on the sample, 2 on usage errors', async () => {
    const [broken, usage, missing] = await Promise.all([
      run('test/fixtures/import/broken-board.json'),
      run(),
      run('test/fixtures/import/no-such-file.json'),
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^error: test\/fixtures\/import\/broken-board.json was not imported \(17 problems\); nothing was written\n/);
    expect(broken.stderr).toContain('\ncomment 1: image_id 42 is not a known image\n');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run import');
    expect(missing.code).toBe(1);
    const [n] = await cli.db.execute<{ n: number }>(sql`select count(*)::int as n from users`);
    expect(n!.n).toBe(0);

    const ok = await run('test/fixtures/import/sample-board.json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('images: 5 inserted, 0 updated, 0 unchanged');
    expect(await new DirectoryStorage(join(cliData, 'images')).exists('2024/2/1/1/full.png')).toBe(true);
    const again = await run('test/fixtures/import/sample-board.json');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('images: 0 inserted, 0 updated, 5 unchanged');
  }, 300_000);
});
