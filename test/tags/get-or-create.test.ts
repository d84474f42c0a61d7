import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAG_NAMESPACES } from '../../grammar/index.js';
import { imageTaggings, images, tagImplications, tags } from '../../src/db/schema/index.js';
import { aliasProblem, aliasSetProblems, aliasTag } from '../../src/contexts/tags/aliases.js';
import {
  NAMESPACE_CATEGORIES,
  RATING_TAGS,
  categoryFor,
  isValidRatingCombination,
} from '../../src/contexts/tags/categories.js';
import { TagRuleError } from '../../src/contexts/errors.js';
import { tagInputProblems } from '../../src/contexts/images/submit.js';
import { cleanTagNames, getOrCreateTags, parseTagList } from '../../src/contexts/tags/get-or-create.js';
import { addImplication } from '../../src/contexts/tags/implications.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('tag categories and ratings', () => {
  it('maps namespaces to categories', () => {
    // A namespace the grammar does not split off would never reach the table.
    for (const ns of Object.keys(NAMESPACE_CATEGORIES)) expect(TAG_NAMESPACES).toContain(ns);
    expect(categoryFor('artist:hoofbeats', 'artist')).toBe('origin');
    expect(categoryFor('comic:foo', 'comic')).toBe('content-fanmade');
    expect(categoryFor('oc:bar', 'oc')).toBe('oc');
    expect(categoryFor('spoiler:s01e01', 'spoiler')).toBe('spoiler');
    expect(categoryFor('species:bat pony', 'species')).toBeNull();
    expect(categoryFor('solo', null)).toBeNull();
    for (const r of RATING_TAGS) expect(categoryFor(r, null)).toBe('rating');
  });

  it('checks tag lists with the reference messages, last found first', () => {
    expect(tagInputProblems(['solo'])).toEqual(['must contain at least one rating tag', 'must contain at least 3 tags']);
    expect(tagInputProblems(['safe', 'explicit', 'solo'])).toEqual(['may not contain any other rating if safe']);
    expect(tagInputProblems(['questionable', 'explicit', 'solo'])).toEqual(['may contain at most one sexual rating']);
    expect(tagInputProblems(['grimdark', 'semi-grimdark', 'solo'])).toEqual(['may contain at most one grim rating']);
    expect(tagInputProblems(['explicit', 'grimdark', 'grotesque', 'solo'])).toEqual([]);
  });

  it('knows the valid rating combinations', () => {
    expect(isValidRatingCombination(['safe'])).toBe(true);
    expect(isValidRatingCombination(['suggestive', 'semi-grimdark'])).toBe(true);
    expect(isValidRatingCombination(['safe', 'grimdark'])).toBe(false);
    expect(isValidRatingCombination(['explicit', 'explicit'])).toBe(false);
    expect(isValidRatingCombination([])).toBe(false);
    expect(isValidRatingCombination(['solo'])).toBe(false);
  });

  it('cleans and de-duplicates tag lists', () => {
    expect(parseTagList('  Twilight   Sparkle , twilight_sparkle, Artist: Some_Artist,, safe')).toEqual([
      'twilight sparkle',
      'artist:some_artist',
      'safe',
    ]);
    expect(cleanTagNames(['a'.repeat(256), 'b'.repeat(255)])).toEqual(['b'.repeat(255)]);
  });

  it('makes names storable as written: a lone surrogate becomes U+FFFD, control characters go', () => {
    expect(cleanTagNames(['\ud800', 'a\u0000b', 'x\udc00y', '\ud83d\ude00 smile', '\u0007'])).toEqual(['\ufffd', 'ab', 'x\ufffdy', '\ud83d\ude00 smile']);
  });
});

describe('alias rules', () => {
  const t = (id: number, aliasedTagId: number | null = null) => ({ id, name: `t${id}`, aliasedTagId });

  it('refuses self aliases, chains and aliasing a tag that has aliases', () => {
    expect(aliasProblem(t(1), t(1), false)).toMatch(/itself/);
    expect(aliasProblem(t(1), t(2, 3), false)).toBe('t2 is itself aliased and would create a transitive alias');
    expect(aliasProblem(t(1), t(2), true)).toMatch(/has aliases of its own/);
    expect(aliasProblem(t(1), t(2), false)).toBeNull();
  });

  it('checks a whole set', () => {
    const problems = aliasSetProblems([t(1, 2), t(2, 3), t(3), t(4, 4), t(5, 99)]);
    expect([...problems.keys()].sort()).toEqual([1, 2, 4, 5]);
  });
});

describe('getOrCreateTags', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('creates missing tags with namespace, slug and category', async () => {
    const rows = await getOrCreateTags(tdb.db, ['Artist: Hoofbeats', 'species:bat_pony', 'safe', 'pegasus pony', 'OC : foo']);
    expect(rows.map((r) => [r.name, r.slug, r.namespace, r.nameInNamespace, r.category])).toEqual([
      ['artist:hoofbeats', 'artist-colon-hoofbeats', 'artist', 'hoofbeats', 'origin'],
      ['species:bat pony', 'species-colon-bat+pony', 'species', 'bat pony', null],
      ['safe', 'safe', null, 'safe', 'rating'],
      ['pegasus pony', 'pegasus+pony', null, 'pegasus pony', null],
      ['oc:foo', 'oc-colon-foo', 'oc', 'foo', 'oc'],
    ]);
    const again = await getOrCreateTags(tdb.db, ['safe', 'artist:hoofbeats']);
    expect(again.map((r) => r.id)).toEqual([rows[2]!.id, rows[0]!.id]);
  });

  it('finds every tag it created from names with lone surrogates or control characters', async () => {
    const rows = await getOrCreateTags(tdb.db, ['odd\ud800name', 'nul\u0000name'], { implications: false });
    expect(rows.map((r) => r.name).sort()).toEqual(['nulname', 'odd\ufffdname']);
  });

  it('replaces aliases by their targets, de-duplicates, and adds implied tags one level', async () => {
    await getOrCreateTags(tdb.db, ['pegasus', 'pony', 'animal', 'wings', 'oc']);
    await tdb.db.transaction(async (tx) => {
      await aliasTag(tx, 'pegasus pony', 'pegasus');
      await addImplication(tx, 'pegasus', 'pony');
      await addImplication(tx, 'pegasus', 'wings');
      await addImplication(tx, 'pony', 'animal');
    });
    const rows = await getOrCreateTags(tdb.db, ['pegasus pony', 'pegasus', 'safe', 'oc:foo']);
    // pony is implied by pegasus; animal (implied by pony) is two levels away and not added;
    // oc is added because of oc:foo.
    expect(rows.map((r) => r.name)).toEqual(['pegasus', 'safe', 'oc:foo', 'pony', 'wings', 'oc']);
    const plain = await getOrCreateTags(tdb.db, ['pegasus pony'], { implications: false });
    expect(plain.map((r) => r.name)).toEqual(['pegasus']);
  });

  it('moves images to the target when aliasing and enforces the rules', async () => {
    const [a, b] = await getOrCreateTags(tdb.db, ['dashie', 'rainbow dash']);
    const [img] = await tdb.db
      .insert(images)
      .values({ imageFormat: 'png', imageMimeType: 'image/png' })
      .returning({ id: images.id });
    await tdb.db.insert(imageTaggings).values({ imageId: img!.id, tagId: a!.id, position: 0 });
    await tdb.db.update(tags).set({ imagesCount: 1 }).where(eq(tags.id, a!.id));
    await aliasTag(tdb.db, 'dashie', 'rainbow dash');
    const taggings = await tdb.db.select().from(imageTaggings).where(eq(imageTaggings.imageId, img!.id));
    expect(taggings.map((t) => t.tagId)).toEqual([b!.id]);
    const counts = await tdb.db.select({ name: tags.name, n: tags.imagesCount }).from(tags).where(inArray(tags.id, [a!.id, b!.id]));
    expect(Object.fromEntries(counts.map((c) => [c.name, c.n]))).toEqual({ dashie: 0, 'rainbow dash': 1 });

    await getOrCreateTags(tdb.db, ['rd']);
    await expect(aliasTag(tdb.db, 'rd', 'dashie')).rejects.toThrow(TagRuleError);
    await expect(aliasTag(tdb.db, 'rainbow dash', 'rd')).rejects.toThrow(/has aliases of its own/);
    await expect(aliasTag(tdb.db, 'rd', 'rd')).rejects.toThrow(/itself/);
    await expect(aliasTag(tdb.db, 'rd', 'no such tag')).rejects.toThrow(/unknown tag/);
  });

  it('refuses implications involving aliases or the tag itself', async () => {
    await expect(addImplication(tdb.db, 'pony', 'pony')).rejects.toThrow(/itself/);
    await expect(addImplication(tdb.db, 'pony', 'pegasus pony')).rejects.toThrow(/aliased/);
    const rows = await tdb.db.select().from(tagImplications);
    expect(rows).toHaveLength(3);
  });

  it('survives concurrent creation of the same names', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `concurrent ${i}`);
    const results = await Promise.all([
      getOrCreateTags(tdb.db, names),
      getOrCreateTags(tdb.db, [...names].reverse()),
      getOrCreateTags(tdb.db, names.slice(10)),
    ]);
    expect(new Set(results[0]!.map((r) => r.id)).size).toBe(30);
    expect(results[1]!.map((r) => r.id).sort()).toEqual(results[0]!.map((r) => r.id).sort());
  });
});
