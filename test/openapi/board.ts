/**
 * A small fixture board for the conformance and fuzz tests: every kind of object the API shows,
 * in its interesting states (visible, merged, deleted, anonymous, hidden, withheld), indexed by
 * an in-memory embedded engine so that the search routes answer too. Request limits are off:
 * these tests exercise the routes, not the limiter.
 */
import { Indexer } from '../../indexer/index.js';
import * as s from '../../src/db/schema/index.js';
import type { DepsWithUploads } from '../../src/http/upload-deps.js';
import { EmbeddedEngine } from '../../src/search/embedded/index.js';
import {
  insertFilter,
  insertImage,
  insertKey,
  insertTag,
  insertUser,
  startHarness,
  type Harness,
} from '../http/harness.js';

export interface Board {
  h: Harness;
  ids: {
    visibleImage: number;
    gifImage: number;
    anonymousImage: number;
    mergedImage: number;
    deletedImage: number;
    comment: number;
    hiddenComment: number;
    anonymousComment: number;
    commentOnHiddenImage: number;
    destroyedComment: number;
    post: number;
    hiddenPost: number;
    profile: number;
    deactivatedUser: number;
    tagSlug: string;
    aliasSlug: string;
    defaultFilter: number;
    publicFilter: number;
    privateFilter: number;
    ownFilter: number;
    gallery: number;
    forum: string;
    topic: string;
  };
  /** Key of a regular user who faved and voted on the visible image. */
  key: string;
  /** Key of a moderator. */
  moderatorKey: string;
  /** Key of a deactivated user. */
  deactivatedKey: string;
  close(): Promise<void>;
}

export async function startBoard(): Promise<Board> {
  const engine = new EmbeddedEngine();
  const overrides: Partial<DepsWithUploads> = { engine, upload: { fetchTimeoutMs: 2000 } };
  const h = await startHarness(overrides);
  const db = h.db;

  // Users and keys
  const artist = await insertUser(db, { name: 'Conformance Artist', description: 'I draw.', avatar: 'a/b/artist.png', role: 'moderator', hideDefaultRole: true });
  const regular = await insertUser(db, { name: 'Regular' });
  const moderator = await insertUser(db, { name: 'Mod', role: 'moderator' });
  const gone = await insertUser(db, { name: 'Gone', deletedAt: new Date('2024-01-01T00:00:00Z') });
  const key = await insertKey(db, regular.id);
  const moderatorKey = await insertKey(db, moderator.id);
  const deactivatedKey = await insertKey(db, gone.id);

  // Tags
  const safe = await insertTag(db, 'safe', { category: 'rating', imagesCount: 3 });
  const explicit = await insertTag(db, 'explicit', { category: 'rating' });
  const artistTag = await insertTag(db, 'artist:conformance', { category: 'origin', image: 'spoiler.png', description: 'An artist.', imagesCount: 2 });
  const alias = await insertTag(db, 'conformance artist', { aliasedTagId: artistTag.id });
  const implied = await insertTag(db, 'artist needed');
  await db.insert(s.tagImplications).values({ tagId: artistTag.id, impliedTagId: implied.id });
  await db.insert(s.dnpEntries).values([
    { tagId: artistTag.id, dnpType: 'No Edits', conditions: 'ask first', reason: 'personal' },
    { tagId: artistTag.id, dnpType: 'Other', reason: 'secret', hideReason: true },
  ]);

  // Filters
  const defaultFilter = await insertFilter(db, { name: 'Default', system: true, description: 'The default', hiddenTagIds: [explicit.id], spoileredTagIds: [artistTag.id], hiddenComplexStr: 'score.lt:-100' });
  await insertFilter(db, { name: 'Everything', system: true });
  const publicFilter = await insertFilter(db, { name: 'Shared', public: true, userId: artist.id, spoileredComplexStr: 'safe' });
  const privateFilter = await insertFilter(db, { name: 'Private', userId: artist.id });
  const ownFilter = await insertFilter(db, { name: 'Mine', userId: regular.id });

  // Images
  const created = new Date('2024-05-01T10:20:30Z');
  const visible = await insertImage(db, {
    values: { userId: artist.id, createdAt: created, updatedAt: created, firstSeenAt: created, imageWidth: 1600, imageHeight: 1200, imageAspectRatio: 4 / 3, upvotesCount: 3, downvotesCount: 1, score: 2, description: 'A *test*.' },
    tags: [safe, artistTag],
    sources: ['https://example.com/art/1', 'https://example.com/art/2'],
  });
  await db.insert(s.imageIntensities).values({ imageId: visible.id, nw: 10.5, ne: 20, sw: 30.25, se: 40 });
  const gif = await insertImage(db, {
    values: { userId: artist.id, anonymous: true, imageFormat: 'gif', imageMimeType: 'image/gif', isAnimated: true, imageDuration: 1.5, imageName: 'a.gif' },
    tags: [safe],
  });
  const anonymous = await insertImage(db, { values: { anonymous: true, imageFormat: 'svg', imageMimeType: 'image/svg+xml', processed: false, thumbnailsGenerated: false }, tags: [safe] });
  const merged = await insertImage(db, { values: { hiddenFromUsers: true, duplicateId: visible.id }, tags: [safe] });
  const deleted = await insertImage(db, { values: { hiddenFromUsers: true, deletionReason: 'Rule #1' } });
  await db.insert(s.imageFeatures).values({ imageId: visible.id, userId: moderator.id });
  await db.insert(s.imageFaves).values({ imageId: visible.id, userId: regular.id });
  await db.insert(s.imageVotes).values({ imageId: visible.id, userId: regular.id, up: true });

  // Comments
  const [comment, hiddenComment, anonymousComment, onHidden, destroyed] = await db
    .insert(s.comments)
    .values([
      { imageId: visible.id, userId: artist.id, body: 'Nice', editedAt: new Date('2024-05-02T00:00:00Z'), editReason: 'typo' },
      { imageId: visible.id, userId: regular.id, body: 'Rude', hiddenFromUsers: true },
      { imageId: gif.id, userId: regular.id, anonymous: true, body: 'Anon', fingerprint: 'c123' },
      { imageId: deleted.id, userId: regular.id, body: 'On a hidden image' },
      { imageId: visible.id, body: 'Destroyed', destroyedContent: true, ip: '203.0.113.9' },
    ])
    .returning();

  // Forums
  const [forum] = await db.insert(s.forums).values({ name: 'General', shortName: 'dis', description: 'Talk', topicCount: 1, postCount: 3 }).returning();
  await db.insert(s.forums).values({ name: 'Staff', shortName: 'staff', accessLevel: 'staff' });
  const [topic] = await db
    .insert(s.topics)
    .values({ forumId: forum!.id, userId: artist.id, title: 'Hello', slug: 'hello', postCount: 3, sticky: true, lockedAt: new Date() })
    .returning();
  await db.insert(s.topics).values({ forumId: forum!.id, anonymous: true, userId: regular.id, title: 'Anon topic', slug: 'anon' });
  const [post, hiddenPost] = await db
    .insert(s.posts)
    .values([
      { topicId: topic!.id, userId: artist.id, body: 'First', topicPosition: 0, editedAt: new Date(), editReason: 'fix' },
      { topicId: topic!.id, userId: regular.id, body: 'Hidden', topicPosition: 1, hiddenFromUsers: true },
      { topicId: topic!.id, anonymous: true, userId: regular.id, body: 'Anon', topicPosition: 2 },
    ])
    .returning();

  // Profile extras and a gallery
  const [badge] = await db.insert(s.badges).values({ title: 'Artist', image: 'artist.svg' }).returning();
  await db.insert(s.badgeAwards).values({ badgeId: badge!.id, userId: artist.id, label: 'Thanks' });
  await db.insert(s.userLinks).values([
    { userId: artist.id, uri: 'https://example.com/me', state: 'verified', tagId: artistTag.id },
    { userId: artist.id, uri: 'https://example.com/hidden', state: 'unverified' },
  ]);
  const [gallery] = await db
    .insert(s.galleries)
    .values({ title: 'Best of', description: 'Good ones', thumbnailId: visible.id, creatorId: artist.id, imageCount: 1 })
    .returning();
  await db.insert(s.galleryInteractions).values({ galleryId: gallery!.id, imageId: visible.id, position: 0 });

  // Index everything once.
  const indexer = new Indexer({ db, engine, deleteRows: 'immediate' });
  await indexer.ensureIndexes();
  await indexer.reindex();

  return {
    h,
    key,
    moderatorKey,
    deactivatedKey,
    ids: {
      visibleImage: visible.id,
      gifImage: gif.id,
      anonymousImage: anonymous.id,
      mergedImage: merged.id,
      deletedImage: deleted.id,
      comment: comment!.id,
      hiddenComment: hiddenComment!.id,
      anonymousComment: anonymousComment!.id,
      commentOnHiddenImage: onHidden!.id,
      destroyedComment: destroyed!.id,
      post: post!.id,
      hiddenPost: hiddenPost!.id,
      profile: artist.id,
      deactivatedUser: gone.id,
      tagSlug: artistTag.slug,
      aliasSlug: alias.slug,
      defaultFilter: defaultFilter.id,
      publicFilter: publicFilter.id,
      privateFilter: privateFilter.id,
      ownFilter: ownFilter.id,
      gallery: gallery!.id,
      forum: forum!.shortName,
      topic: topic!.slug,
    },
    async close() {
      await h.close();
      await engine.close();
    },
  };
}
