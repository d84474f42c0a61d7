import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complexProblem } from '../../src/contexts/search/filter-check.js';
import * as schema from '../../src/db/schema/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { boxesSmallerThan } from '../../src/media/representations.js';
import { representationExtension } from '../../src/media/formats.js';
import { isBoardEmpty, planDemoBoard, seedDemoBoard, type DemoSummary } from '../../src/seed/demo.js';
import { counterProblems } from '../../src/seed/verify.js';
import { isRatingTag, isValidRatingCombination } from '../../src/contexts/tags/categories.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { pathFor } from '../../src/media/storage.js';

const IMAGES = 40;
const { comments, filters, imageFeatures, images, imageTaggings, posts, tags, tagImplications, userLinks, users } = schema;

let first: TestDatabase;
let second: TestDatabase;
let dirA: string;
let dirB: string;
let summary: DemoSummary;

beforeAll(async () => {
  [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  dirA = mkdtempSync(join(tmpdir(), 'tagwise-demo-a-'));
  dirB = mkdtempSync(join(tmpdir(), 'tagwise-demo-b-'));
  expect(await isBoardEmpty(first.db)).toBe(true);
  const phases = new Set<string>();
  summary = await seedDemoBoard(first.db, { seed: 7, images: IMAGES, storage: new DirectoryStorage(dirA), onProgress: (p) => phases.add(p.phase) });
  expect([...phases]).toEqual(['files', 'rows', 'done']);
  await seedDemoBoard(second.db, { seed: 7, images: IMAGES, storage: new DirectoryStorage(dirB) });
}, 300_000);

afterAll(async () => {
  await Promise.all([first?.drop(), second?.drop()]);
  for (const d of [dirA, dirB]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('demo board', () => {
  it('is no longer empty, and refuses to seed twice', async () => {
    expect(await isBoardEmpty(first.db)).toBe(false);
    await expect(seedDemoBoard(first.db, { seed: 7, images: 5, withFiles: false })).rejects.toThrow(/not empty/);
    expect(summary.images).toBe(IMAGES);
    expect(summary.users).toBe(25);
  });

  it('has counters that agree with the rows they count', async () => {
    expect(await counterProblems(first.db)).toEqual([]);
  });

  it('gives every image 3 to 25 tags with exactly one valid rating combination', async () => {
    const rows = await first.db
      .select({ imageId: imageTaggings.imageId, name: tags.name, position: imageTaggings.position, aliased: tags.aliasedTagId })
      .from(imageTaggings)
      .innerJoin(tags, eq(tags.id, imageTaggings.tagId))
      .orderBy(asc(imageTaggings.imageId), asc(imageTaggings.position));
    const byImage = new Map<number, string[]>();
    for (const r of rows) {
      expect(r.aliased).toBeNull();
      byImage.set(r.imageId, [...(byImage.get(r.imageId) ?? []), r.name]);
    }
    expect(byImage.size).toBe(IMAGES);
    for (const [id, names] of byImage) {
      expect(names.length, `image ${id}`).toBeGreaterThanOrEqual(3);
      expect(names.length, `image ${id}`).toBeLessThanOrEqual(25);
      expect(isValidRatingCombination(names.filter(isRatingTag)), `image ${id}: ${names.join(', ')}`).toBe(true);
    }
  });

  it('has the system filters first, the seeded ratings, aliases and implications', async () => {
    const fs = await first.db.select().from(filters).orderBy(asc(filters.id));
    const tagRows = await first.db.select().from(tags);
    const byName = new Map(tagRows.map((t) => [t.name, t]));
    const id = (name: string) => byName.get(name)!.id;
    expect(fs.slice(0, 2).map((f) => [f.id, f.name, f.system, f.userId])).toEqual([
      [1, 'Default', true, null],
      [2, 'Everything', true, null],
    ]);
    expect(fs[0]).toMatchObject({ hiddenTagIds: [id('explicit'), id('grotesque')], spoileredTagIds: [id('questionable')] });
    expect(fs[1]).toMatchObject({ hiddenTagIds: [], spoileredTagIds: [], hiddenComplexStr: '', spoileredComplexStr: '' });
    const own = fs.filter((f) => !f.system);
    expect(own.some((f) => f.public)).toBe(true);
    expect(own.some((f) => !f.public)).toBe(true);
    for (const f of own) {
      for (const q of [f.hiddenComplexStr, f.spoileredComplexStr]) expect(await complexProblem(q, { role: 'user', userId: f.userId })).toBeNull();
    }
    expect(own.some((f) => f.hiddenComplexStr.includes('\n'))).toBe(true);

    for (const r of ['safe', 'suggestive', 'questionable', 'explicit', 'semi-grimdark', 'grimdark', 'grotesque']) {
      expect(byName.get(r)?.category).toBe('rating');
    }
    expect(byName.get('pegasus pony')).toMatchObject({ slug: 'pegasus+pony', aliasedTagId: id('pegasus'), imagesCount: 0 });
    const artist = tagRows.find((t) => t.namespace === 'artist')!;
    expect(artist).toMatchObject({ category: 'origin', slug: `artist-colon-${artist.nameInNamespace}` });
    for (const category of ['origin', 'character', 'oc', 'species', 'rating', 'spoiler', 'content-fanmade', 'content-official', 'error', 'body-type']) {
      expect(tagRows.some((t) => t.category === category), category).toBe(true);
    }
    const implied = await first.db.select().from(tagImplications).where(eq(tagImplications.tagId, id('pegasus')));
    expect(implied.map((r) => r.impliedTagId)).toEqual([id('pony')]);
  });

  it('has staff roles, links to artist tags, awards and avatars', async () => {
    const us = await first.db.select().from(users);
    const roles = us.map((u) => u.role);
    expect(roles.filter((r) => r === 'admin')).toHaveLength(1);
    expect(roles).toContain('moderator');
    expect(roles).toContain('assistant');
    expect(us.filter((u) => u.avatar !== null).length).toBeGreaterThan(0);
    const avatars = new DirectoryStorage(join(dirA, 'avatars'));
    for (const u of us) if (u.avatar) expect(await avatars.exists(u.avatar)).toBe(true);
    const links = await first.db
      .select({ state: userLinks.state, namespace: tags.namespace })
      .from(userLinks)
      .leftJoin(tags, eq(tags.id, userLinks.tagId));
    expect(links.some((l) => l.state === 'verified' && l.namespace === 'artist')).toBe(true);
    expect(links.some((l) => l.state !== 'verified')).toBe(true);
    const awards = await first.db.select().from(schema.badgeAwards);
    expect(awards.length).toBeGreaterThan(0);
  });

  it('has hidden, merged and deleted content, anonymous authors and a featured image', async () => {
    const imgs = await first.db.select().from(images);
    const hidden = imgs.filter((i) => i.hiddenFromUsers);
    expect(hidden.filter((i) => i.duplicateId !== null).length).toBeGreaterThanOrEqual(1);
    expect(hidden.filter((i) => i.duplicateId === null && i.deletionReason)).toHaveLength(1);
    for (const i of hidden.filter((x) => x.duplicateId !== null)) {
      expect(imgs.find((t) => t.id === i.duplicateId)?.hiddenFromUsers).toBe(false);
    }
    expect(imgs.some((i) => i.anonymous)).toBe(true);
    expect(imgs.some((i) => i.userId === null)).toBe(true);
    expect(imgs.every((i) => i.processed && i.thumbnailsGenerated)).toBe(true);
    const cs = await first.db.select().from(comments);
    expect(cs.filter((c) => c.destroyedContent)).toHaveLength(1);
    expect(cs.filter((c) => c.hiddenFromUsers && !c.destroyedContent)).toHaveLength(1);
    expect(cs.some((c) => c.anonymous || c.userId === null)).toBe(true);
    const [feature] = await first.db.select().from(imageFeatures);
    expect(imgs.find((i) => i.id === feature?.imageId)?.hiddenFromUsers).toBe(false);
    const forums = await first.db.select().from(schema.forums);
    expect(forums.filter((f) => f.accessLevel === 'staff')).toHaveLength(1);
    const topics = await first.db.select().from(schema.topics);
    expect(topics.some((t) => t.sticky)).toBe(true);
    expect(topics.some((t) => t.lockedAt !== null)).toBe(true);
    const firstPosts = await first.db.select().from(posts).where(eq(posts.topicPosition, 0));
    expect(firstPosts).toHaveLength(topics.length);
  });

  it('stores the original and every representation of every image', async () => {
    const store = new DirectoryStorage(join(dirA, 'images'));
    const imgs = await first.db.select().from(images);
    expect(new Set(imgs.map((i) => i.imageFormat))).toEqual(new Set(['png', 'jpg', 'gif', 'svg']));
    let files = 0;
    for (const img of imgs) {
      expect(img.storageKey).toBe(pathFor(img.createdAt, img.id, 'full', img.imageFormat));
      const original = await store.stat(img.storageKey!);
      expect(original?.size, `image ${img.id}`).toBeGreaterThan(0);
      const ext = representationExtension(img.imageFormat);
      const keys = boxesSmallerThan(img.imageWidth, img.imageHeight).map((b) => pathFor(img.createdAt, img.id, b.name, ext));
      if (img.imageFormat === 'gif' || img.imageFormat === 'svg') keys.push(pathFor(img.createdAt, img.id, 'rendered', 'png'));
      if (img.imageFormat === 'svg') keys.push(pathFor(img.createdAt, img.id, 'full', 'png'));
      for (const key of keys) expect(await store.exists(key), key).toBe(true);
      files += keys.length + 1;
      expect(img.imageSha512Hash).toMatch(/^[0-9a-f]{128}$/);
      expect(img.imageOrigSha512Hash).toMatch(/^[0-9a-f]{128}$/);
      expect(img.imageAspectRatio).toBeCloseTo(img.imageWidth / img.imageHeight, 10);
      if (img.imageFormat === 'gif') expect(img.isAnimated && img.imageDuration > 0).toBe(true);
    }
    expect(summary.files).toBeGreaterThanOrEqual(files);
    const intensities = await first.db.select().from(schema.imageIntensities);
    expect(intensities).toHaveLength(IMAGES);
  });

  it('leaves the id sequences past the seeded ids', async () => {
    const [max] = await first.db.select({ id: sql<number>`max(id)` }).from(tags);
    const [row] = await first.db.insert(tags).values({ name: 'brand new tag', slug: 'brand+new+tag', nameInNamespace: 'brand new tag' }).returning();
    expect(row!.id).toBe(max!.id + 1);
    await first.db.delete(tags).where(eq(tags.id, row!.id));
  });

  it('is deterministic: the same seed gives the same rows and files', async () => {
    const tables = ['users', 'tags', 'tag_implications', 'images', 'image_taggings', 'image_sources', 'image_intensities', 'image_faves',
      'image_votes', 'image_hides', 'comments', 'forums', 'topics', 'posts', 'galleries', 'gallery_interactions', 'filters',
      'user_links', 'badge_awards', 'image_features'];
    for (const table of tables) {
      const dump = (db: TestDatabase) => db.db.execute(sql.raw(`select * from ${table} order by 1, 2`));
      const [a, b] = await Promise.all([dump(first), dump(second)]);
      expect(b, table).toEqual(a);
    }
    const plan = planDemoBoard({ seed: 7, images: IMAGES });
    const other = planDemoBoard({ seed: 8, images: IMAGES });
    expect(plan.imageTaggings).toEqual(planDemoBoard({ seed: 7, images: IMAGES }).imageTaggings);
    expect(other.imageTaggings).not.toEqual(plan.imageTaggings);
  });
});
