/**
 * The batch renderers the search routes use (hit ids in, JSON out in hit order), checked against
 * the spec shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { renderCommentJson, renderComments } from '../../src/http/render/comments.js';
import { renderGalleries } from '../../src/http/render/galleries.js';
import { renderImageListJson, renderImages } from '../../src/http/render/images.js';
import { renderPosts } from '../../src/http/render/posts.js';
import { renderTagRows } from '../../src/api/tag-rows.js';
import { renderTagJson } from '../../src/http/render/tags.js';
import { createReadCaches } from '../../src/caches/read-caches.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { loadTags } from '../../src/contexts/tags/load.js';
import type { RenderDeps } from '../../src/http/render/deps.js';
import { assertResource } from '../support/resources.js';
import { COMMENT, GALLERY, HIDDEN_IMAGE, IMAGE, POST, TAG } from '../support/spec-shapes.js';
import { insertFilter, insertImage, insertTag, insertUser, startHarness, type Harness } from './harness.js';

let h: Harness;
let deps: RenderDeps;
beforeAll(async () => {
  h = await startHarness();
  deps = { config: h.config, db: h.db };
});
afterAll(async () => {
  await h?.close();
});

describe('batch renderers', () => {
  it('renders images in hit order, drops missing ids, and spoilers per image', async () => {
    const safe = await insertTag(h.db, 'safe', { category: 'rating' });
    const solo = await insertTag(h.db, 'solo');
    const a = await insertImage(h.db, { tags: [safe] });
    const b = await insertImage(h.db, { tags: [safe, solo] });
    const filter = await insertFilter(h.db, { name: 'f', spoileredTagIds: [solo.id] });
    const list = await renderImages(deps, [b.id, 999999, a.id, b.id], { filter, user: null });
    expect(list.map((i) => [i.id, 'spoilered' in i && i.spoilered])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
    for (const i of list) assertResource(i, IMAGE);
    expect(await renderImages(deps, [], { filter: null, user: null })).toEqual([]);
    // without caches (as while changes cannot be heard), the list text is rendered afresh: the same
    const { parts, fingerprint } = await renderImageListJson(deps, [b.id, 999999, a.id, b.id], { filter, user: null });
    expect(Buffer.concat(parts).toString()).toEqual(list.map((i) => JSON.stringify(i)).join(','));
    // each listed image's digest and spoiler flag, in order
    expect(fingerprint).toMatch(/^([A-Za-z0-9_-]{22}[01]){2}$/);
  });

  it('lists a merged or deleted image as its stub beside spoilered images, with the caches on (cold and warm) and off', async () => {
    const caches = createReadCaches(h.db);
    for (let i = 0; i < 200 && !caches.feed.listening; i++) await new Promise((r) => setTimeout(r, 25));
    const cached = { ...deps, caches };
    const marked = await insertTag(h.db, 'marked');
    const filter = await insertFilter(h.db, { name: 'spoils marked', spoileredTagIds: [marked.id] });
    const shown = await insertImage(h.db, { tags: [marked] });
    const deleted = await insertImage(h.db, { tags: [marked], values: { hiddenFromUsers: true, deletionReason: 'Rule #3' } });
    const merged = await insertImage(h.db, { tags: [marked], values: { hiddenFromUsers: true, duplicateId: shown.id, deletionReason: 'dup' } });
    const ids = [deleted.id, shown.id, merged.id];
    const list = await renderImages(deps, ids, { filter, user: null });
    expect(list[0]).toStrictEqual({
      id: deleted.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      first_seen_at: expect.any(String),
      deletion_reason: 'Rule #3',
      duplicate_of: null,
      hidden_from_users: true,
    });
    expect(list[1]).toMatchObject({ id: shown.id, spoilered: true });
    expect(list[2]).toMatchObject({ id: merged.id, deletion_reason: null, duplicate_of: shown.id, hidden_from_users: true });
    expect(Object.keys(list[2]!)).toHaveLength(7);
    assertResource(list[0], HIDDEN_IMAGE);
    assertResource(list[2], HIDDEN_IMAGE);
    const text = list.map((i) => JSON.stringify(i)).join(',');
    for (const d of [deps, cached, cached]) {
      expect(Buffer.concat((await renderImageListJson(d, ids, { filter, user: null })).parts).toString()).toBe(text);
    }
  });

  it('renders galleries with both user/user_id and creator/creator_id', async () => {
    const user = await insertUser(h.db, { name: 'Curator' });
    const cover = await insertImage(h.db);
    const [g] = await h.db
      .insert(s.galleries)
      .values({ title: 'Best', description: 'the best', spoilerWarning: 'none', thumbnailId: cover.id, creatorId: user.id })
      .returning();
    const [json] = await renderGalleries(deps, [g!.id, 999]);
    expect(json).toStrictEqual({
      id: g!.id,
      title: 'Best',
      thumbnail_id: cover.id,
      spoiler_warning: 'none',
      description: 'the best',
      user: 'Curator',
      user_id: user.id,
      creator: 'Curator',
      creator_id: user.id,
    });
    assertResource(json, GALLERY);
  });

  it('renders comments: destroyed as null, on hidden images with the author withheld', async () => {
    const image = await insertImage(h.db);
    const hiddenImage = await insertImage(h.db, { values: { hiddenFromUsers: true } });
    const [ok, destroyed, withheld] = await h.db
      .insert(s.comments)
      .values([
        { imageId: image.id, body: 'ok' },
        { imageId: image.id, body: 'gone', destroyedContent: true },
        { imageId: hiddenImage.id, body: 'secret' },
      ])
      .returning();
    const out = await renderComments(deps, [withheld!.id, destroyed!.id, ok!.id]);
    expect(out[1]).toBeNull();
    assertResource(out[2], COMMENT);
    expect(out[0]).toMatchObject({ id: withheld!.id, image_id: hiddenImage.id, user_id: null, author: null, body: null, created_at: null });
    expect(out[0]!.avatar).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('renders posts and tags in hit order', async () => {
    const [forum] = await h.db.insert(s.forums).values({ name: 'F', shortName: 'f' }).returning();
    const [topic] = await h.db.insert(s.topics).values({ forumId: forum!.id, title: 'T', slug: 't' }).returning();
    const [p1, p2] = await h.db
      .insert(s.posts)
      .values([
        { topicId: topic!.id, topicPosition: 0, body: 'one' },
        { topicId: topic!.id, topicPosition: 1, body: 'two' },
      ])
      .returning();
    const posts = await renderPosts(deps, [p2!.id, p1!.id]);
    expect(posts.map((p) => p?.body)).toEqual(['two', 'one']);
    for (const p of posts) assertResource(p, POST);
    const x = await insertTag(h.db, 'x');
    const y = await insertTag(h.db, 'y');
    const tags = (await renderTagJson(deps, [y.id, x.id, 12345])).map((text) => JSON.parse(text));
    expect(tags.map((t) => t.name)).toEqual(['y', 'x']);
    for (const t of tags as unknown[]) assertResource(t, TAG);
  });

  it('answers tags and comments byte for byte alike with the caches on (cold and warm) and off', async () => {
    const caches = createReadCaches(h.db);
    for (let i = 0; i < 200 && !caches.feed.listening; i++) await new Promise((r) => setTimeout(r, 25));
    expect(caches.feed.listening).toBe(true);
    const cached = { ...deps, caches };
    const target = await insertTag(h.db, 'target');
    const aliased = await insertTag(h.db, 'aliased', { aliasedTagId: target.id });
    const implied = await insertTag(h.db, 'implied');
    await h.db.insert(s.tagImplications).values({ tagId: target.id, impliedTagId: implied.id });
    await h.db.insert(s.dnpEntries).values({ tagId: target.id, dnpType: 'No Edits', conditions: 'ask first', reason: 'because' });
    const tagIds = [implied.id, target.id, 99999, aliased.id];
    const off = (await renderTagRows(deps, await loadTagRowsOf(tagIds))).map((t) => JSON.stringify(t));
    // The inserts' announcements, heard late, would drop what the first render keeps.
    await recordChangeFeedOf(h.db).sync();
    expect(await renderTagJson(cached, tagIds)).toEqual(off);
    expect(await renderTagJson(cached, tagIds)).toEqual(off);
    expect(caches.tags.size).toBe(3);

    const author = await insertUser(h.db, { name: 'Writer' });
    const image = await insertImage(h.db);
    const hiddenImage = await insertImage(h.db, { values: { hiddenFromUsers: true } });
    const comments = await h.db
      .insert(s.comments)
      .values([
        { imageId: image.id, userId: author.id, body: 'signed', editedAt: new Date(), editReason: 'typo' },
        { imageId: image.id, body: 'gone', destroyedContent: true },
        { imageId: hiddenImage.id, body: 'secret' },
        { imageId: image.id, userId: author.id, body: 'hidden', hiddenFromUsers: true, deletionReason: 'spam' },
      ])
      .returning();
    const commentIds = [...comments.map((c) => c.id).reverse(), 99999];
    const commentsOff = (await renderComments(deps, commentIds)).map((c) => JSON.stringify(c));
    await recordChangeFeedOf(h.db).sync();
    expect(await renderCommentJson(cached, commentIds)).toEqual(commentsOff);
    expect(await renderCommentJson(cached, commentIds)).toEqual(commentsOff);
    expect(caches.comments.size).toBe(4);
  });
});

/** Tag rows as stored now, in the order of `ids`. */
async function loadTagRowsOf(ids: number[]) {
  const rows = await loadTags(h.db, ids);
  return ids.flatMap((id) => rows.get(id) ?? []);
}
