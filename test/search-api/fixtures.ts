/**
 * The fixture board of the search API tests, written with Drizzle, and a model of it from which the
 * tests compute what each search must answer (visibility, order).
 *
 * Images: 14 "sortable" images S0..S13 with pseudo-random but fixed attributes (some ties, so
 * the id tie-breaker matters), and three more tagged `sortable` that no search may show to
 * ordinary callers: U (unapproved), H (deleted) and M (merged into S0).
 */
import { eq } from 'drizzle-orm';
import * as s from '../../src/db/schema/index.js';
import type { Database } from '../../src/db/client.js';
import { wilsonScore } from '../../src/contexts/search/documents/images-documents.js';
import { insertFilter, insertImage, insertKey, insertTag, insertUser } from '../http/harness.js';
import { mulberry32 } from '../../src/lib/random.js';

type TagRow = typeof s.tags.$inferSelect;
type FilterRow = typeof s.filters.$inferSelect;

export interface ImageModel {
  id: number;
  label: string;
  tags: string[];
  width: number;
  height: number;
  size: number;
  aspectRatio: number;
  upvotes: number;
  downvotes: number;
  score: number;
  faves: number;
  hides: number;
  comments: number;
  animated: boolean;
  duration: number;
  createdAt: Date;
  updatedAt: Date;
  firstSeenAt: Date;
  approved: boolean;
  hidden: boolean;
  duplicateOf: number | null;
}

/** Deterministic pseudo-random integers in [lo, hi]. */
function rng(seed: number) {
  const next = mulberry32(seed);
  return (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
}

const BASE = Date.UTC(2024, 0, 10, 12, 0, 0);
const minutes = (n: number) => new Date(BASE + n * 60_000);

/** Extra tags of S0..S13 besides `sortable` and a rating. */
const EXTRA_TAGS: Record<number, string[]> = {
  0: ['solo', 'pony'],
  1: ['solo'],
  2: ['pony'],
  3: ['questionable'],
  4: ['spoilme'],
  5: ['twilight sparkle'],
  6: ['twilight sparkle', 'solo'],
  7: ['artist:painter'],
  8: ['explicit'],
  9: ['extra one'],
  10: ['extra one', 'extra two'],
  11: ['extra one', 'extra two', 'extra three'],
};

export interface Board {
  tags: Record<string, TagRow>;
  users: { alice: number; bob: number; carol: number; mod: number; asst: number };
  keys: { alice: string; bob: string; mod: string; asst: string };
  filters: Record<'default' | 'everything' | 'bobPublic' | 'bobPrivate' | 'aliceOwn' | 'broken' | 'hidesBig', FilterRow>;
  /** S0..S13 by index, then U, H, M. */
  images: ImageModel[];
  s: ImageModel[];
  excluded: { unapproved: ImageModel; deleted: ImageModel; merged: ImageModel };
  galleries: { best: number; misc: number };
  /** Image ids of the "Best Ponies" gallery by position. */
  bestByPosition: number[];
  comments: Record<'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6' | 'c7', number>;
  posts: Record<'p1' | 'p2' | 'p3' | 'p4' | 'p5', number>;
  tagCounts: Record<string, number>;
}

export async function buildBoard(db: Database): Promise<Board> {
  const tagCounts: Record<string, number> = {
    safe: 10, questionable: 2, explicit: 1, solo: 3, pony: 2, 'twilight sparkle': 2, sortable: 17,
    'artist:painter': 1, spoilme: 1, 'extra one': 4, 'extra two': 4, 'extra three': 4,
  };
  const tags: Record<string, TagRow> = {};
  for (const [name, imagesCount] of Object.entries(tagCounts)) {
    const category = ['safe', 'questionable', 'explicit'].includes(name) ? 'rating' : name === 'artist:painter' ? 'origin' : null;
    tags[name] = await insertTag(db, name, { imagesCount, ...(category ? { category } : {}) });
  }

  const alice = await insertUser(db, { name: 'Alice' });
  const bob = await insertUser(db, { name: 'Bob' });
  const carol = await insertUser(db, { name: 'Carol' });
  const mod = await insertUser(db, { name: 'Moddy', role: 'moderator' });
  const asst = await insertUser(db, { name: 'Assy', role: 'assistant' });
  const keys = {
    alice: await insertKey(db, alice.id),
    bob: await insertKey(db, bob.id),
    mod: await insertKey(db, mod.id),
    asst: await insertKey(db, asst.id),
  };

  const t = (name: string) => tags[name]!;
  const filters = {
    default: await insertFilter(db, {
      name: 'Default',
      system: true,
      hiddenTagIds: [t('explicit').id],
      spoileredTagIds: [t('questionable').id],
      spoileredComplexStr: 'spoilme\nwidth.gt:100000',
    }),
    everything: await insertFilter(db, { name: 'Everything', system: true }),
    bobPublic: await insertFilter(db, { name: 'Bob Public', public: true, userId: bob.id, hiddenTagIds: [t('solo').id] }),
    bobPrivate: await insertFilter(db, { name: 'Bob Private', userId: bob.id, hiddenTagIds: [t('pony').id] }),
    aliceOwn: await insertFilter(db, { name: 'Alice Own', userId: alice.id, hiddenTagIds: [t('pony').id], hiddenComplexStr: 'solo' }),
    broken: await insertFilter(db, { name: 'Broken', system: true, hiddenComplexStr: '(safe' }),
    hidesBig: await insertFilter(db, { name: 'Hides Big', system: true, hiddenComplexStr: 'width.gte:800' }),
  };
  await db
    .update(s.users)
    .set({ watchedTagIds: [t('twilight sparkle').id], watchedImagesQueryStr: 'artist:painter', watchedImagesExcludeStr: 'solo' })
    .where(eq(s.users.id, alice.id));

  const r = rng(20240110);
  const models: ImageModel[] = [];
  const firstSeenOrder = [7, 2, 11, 0, 13, 5, 9, 1, 12, 4, 10, 3, 8, 6, 14, 15, 16];
  const updatedOrder = [3, 12, 0, 9, 6, 15, 1, 10, 14, 2, 8, 5, 13, 11, 4, 7, 16];
  const labels = [...Array.from({ length: 14 }, (_, i) => `S${i}`), 'U', 'H', 'M'];
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    const width = 100 + r(0, 14) * 50;
    const height = 100 + r(0, 14) * 40;
    const upvotes = r(0, 30);
    const downvotes = r(0, 10);
    const animated = i % 4 === 0;
    const extra = EXTRA_TAGS[i] ?? [];
    const rating = extra.includes('questionable') || extra.includes('explicit') ? [] : ['safe'];
    const m: ImageModel = {
      id: 0,
      label,
      tags: ['sortable', ...rating, ...extra],
      width,
      height,
      size: 1000 + r(0, 40) * 25,
      aspectRatio: width / height,
      upvotes,
      downvotes,
      score: upvotes - downvotes,
      faves: r(0, 6),
      hides: r(0, 4),
      comments: r(0, 5),
      animated,
      duration: animated ? 0.5 + r(0, 20) / 4 : 0,
      createdAt: minutes(i * 10 + r(0, 5)),
      updatedAt: minutes(1000 + updatedOrder[i]! * 7),
      firstSeenAt: minutes(2000 + firstSeenOrder[i]! * 3),
      approved: label !== 'U',
      hidden: label === 'H' || label === 'M',
      duplicateOf: null,
    };
    models.push(m);
  }
  // merged into S0
  models[16]!.duplicateOf = -1;

  const uploaderOf = (label: string) => (label === 'S7' || label === 'S8' ? alice.id : carol.id);
  for (const m of models) {
    const row = await insertImage(db, {
      values: {
        imageWidth: m.width,
        imageHeight: m.height,
        imageSize: m.size,
        imageOrigSize: m.size,
        imageAspectRatio: m.aspectRatio,
        imageFormat: m.animated ? 'gif' : 'png',
        imageMimeType: m.animated ? 'image/gif' : 'image/png',
        isAnimated: m.animated,
        imageDuration: m.duration,
        upvotesCount: m.upvotes,
        downvotesCount: m.downvotes,
        score: m.score,
        favesCount: m.faves,
        hidesCount: m.hides,
        commentsCount: m.comments,
        createdAt: m.createdAt,
        updatedAt: m.updatedAt,
        firstSeenAt: m.firstSeenAt,
        approved: m.approved,
        hiddenFromUsers: m.hidden,
        deletionReason: m.label === 'H' ? 'Rule #0' : null,
        duplicateId: m.duplicateOf === null ? null : models[0]!.id,
        userId: uploaderOf(m.label),
        anonymous: m.label === 'S8',
        description: `image ${m.label}`,
      },
      tags: m.tags.map(t),
    });
    m.id = row.id;
    if (m.duplicateOf !== null) m.duplicateOf = models[0]!.id;
  }
  const S = models.slice(0, 14);
  const id = (i: number) => S[i]!.id;

  // interactions
  await db.insert(s.imageFaves).values([
    { imageId: id(0), userId: alice.id },
    { imageId: id(2), userId: alice.id },
    { imageId: id(4), userId: bob.id },
  ]);
  await db.insert(s.imageVotes).values([
    { imageId: id(0), userId: alice.id, up: true },
    { imageId: id(1), userId: alice.id, up: true },
    { imageId: id(5), userId: alice.id, up: false },
    { imageId: id(2), userId: bob.id, up: false },
  ]);
  await db.insert(s.imageHides).values([
    { imageId: id(3), userId: alice.id },
    { imageId: id(0), userId: bob.id },
  ]);

  // galleries
  const [best] = await db
    .insert(s.galleries)
    .values({ title: 'Best Ponies', description: 'the very best', thumbnailId: id(1), creatorId: alice.id, createdAt: minutes(50), imageCount: 5 })
    .returning();
  const [misc] = await db
    .insert(s.galleries)
    .values({ title: 'Misc Stuff', description: 'odds and ends', thumbnailId: id(0), creatorId: bob.id, createdAt: minutes(60), imageCount: 1 })
    .returning();
  const bestByPosition = [id(4), id(6), id(1), id(9), models[15]!.id];
  await db.insert(s.galleryInteractions).values([
    ...bestByPosition.map((imageId, position) => ({ galleryId: best!.id, imageId, position })),
    { galleryId: misc!.id, imageId: id(0), position: 0 },
  ]);

  // comments
  const comment = async (imageId: number, n: number, values: Partial<typeof s.comments.$inferInsert> = {}) => {
    const [row] = await db
      .insert(s.comments)
      .values({ imageId, userId: bob.id, body: `comment number ${n}`, createdAt: minutes(3000 + n), ...values })
      .returning();
    return row!.id;
  };
  const comments = {
    c1: await comment(id(0), 1, { body: 'hello there friend' }),
    c2: await comment(id(1), 2, { userId: alice.id, body: 'another comment' }),
    c3: await comment(id(0), 3, { hiddenFromUsers: true }),
    c4: await comment(models[15]!.id, 4),
    c5: await comment(id(1), 5, { userId: alice.id, approved: false }),
    c6: await comment(id(8), 6),
    c7: await comment(models[14]!.id, 7),
  };

  // forums
  const [general] = await db.insert(s.forums).values({ name: 'General', shortName: 'general' }).returning();
  const [staff] = await db.insert(s.forums).values({ name: 'Staff', shortName: 'staff', accessLevel: 'staff' }).returning();
  const topic = async (forumId: number, title: string, hidden = false) => {
    const [row] = await db
      .insert(s.topics)
      .values({ forumId, userId: bob.id, title, slug: title.toLowerCase().replace(/ /g, '-'), hiddenFromUsers: hidden })
      .returning();
    return row!.id;
  };
  const t1 = await topic(general!.id, 'Open Topic');
  const t2 = await topic(general!.id, 'Hidden Topic', true);
  const t3 = await topic(staff!.id, 'Staff Topic');
  const post = async (topicId: number, n: number, position: number, values: Partial<typeof s.posts.$inferInsert> = {}) => {
    const [row] = await db
      .insert(s.posts)
      .values({ topicId, userId: bob.id, body: `post body ${n}`, topicPosition: position, createdAt: minutes(4000 + n), ...values })
      .returning();
    return row!.id;
  };
  const posts = {
    p1: await post(t1, 1, 0, { body: 'first post body' }),
    p2: await post(t1, 2, 1),
    p3: await post(t2, 3, 0),
    p4: await post(t3, 4, 0),
    p5: await post(t1, 5, 2, { hiddenFromUsers: true }),
  };

  return {
    tags,
    users: { alice: alice.id, bob: bob.id, carol: carol.id, mod: mod.id, asst: asst.id },
    keys,
    filters,
    images: models,
    s: S,
    excluded: { unapproved: models[14]!, deleted: models[15]!, merged: models[16]! },
    galleries: { best: best!.id, misc: misc!.id },
    bestByPosition,
    comments,
    posts,
    tagCounts,
  };
}

// ---------------------------------------------------------------------------------------------
// The model: what searches must answer
// ---------------------------------------------------------------------------------------------

/** Index document values of the sortable fields. */
export function sortValue(m: ImageModel, field: string): number {
  switch (field) {
    case 'id':
      return m.id;
    case 'created_at':
      return m.createdAt.getTime();
    case 'updated_at':
      return m.updatedAt.getTime();
    case 'first_seen_at':
      return m.firstSeenAt.getTime();
    case 'aspect_ratio':
      return m.aspectRatio;
    case 'faves':
      return m.faves;
    case 'downvotes':
      return m.downvotes;
    case 'upvotes':
      return m.upvotes;
    case 'width':
      return m.width;
    case 'height':
      return m.height;
    case 'score':
      return m.score;
    case 'comment_count':
      return m.comments;
    case 'tag_count':
      return m.tags.length;
    case 'wilson_score':
      return wilsonScore(m.upvotes, m.downvotes);
    case 'pixels':
      return m.width * m.height;
    case 'size':
      return m.size;
    case 'duration':
      return m.duration;
    case 'hides':
      return m.hides;
    default:
      throw new Error(`no model for sort field ${field}`);
  }
}

/** Ids in the order `sf`/`sd` must give: the field, then id, both in the direction. */
export function expectedOrder(list: readonly ImageModel[], field: string, dir: 'asc' | 'desc'): number[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...list]
    .sort((a, b) => sign * (sortValue(a, field) - sortValue(b, field)) || sign * (a.id - b.id))
    .map((m) => m.id);
}

/** Images any caller may find: approved and not hidden. */
export const listable = (m: ImageModel) => m.approved && !m.hidden;
