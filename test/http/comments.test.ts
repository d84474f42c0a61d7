import { pbkdf2Sync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { avatarDataUri } from '../../src/contexts/users/avatar.js';
import { assertResource } from '../support/resources.js';
import { COMMENT, HIDDEN_COMMENT } from '../support/spec-shapes.js';
import { CDN_URL, insertImage, insertTag, insertUser, SALT, startHarness, type Harness } from './harness.js';

let h: Harness;
let safe: { id: number };

/** The reference's anonymous name, computed independently of the implementation. */
const pony = (objectId: string, who: string) =>
  `Background Pony #${pbkdf2Sync(objectId + who, SALT, 100, 2, 'sha256').toString('hex').toUpperCase()}`;

beforeAll(async () => {
  h = await startHarness();
  safe = await insertTag(h.db, 'safe', { category: 'rating' });
});
afterAll(async () => {
  await h?.close();
});

async function insertComment(values: Partial<typeof s.comments.$inferInsert> & { imageId: number }) {
  const [row] = await h.db.insert(s.comments).values({ body: 'Nice pony!', ...values }).returning();
  return row!;
}

describe('GET /comments/:comment_id', () => {
  it('answers the exact body of a signed comment', async () => {
    const user = await insertUser(h.db, { name: 'Commenter' });
    const image = await insertImage(h.db, { tags: [safe] });
    const comment = await insertComment({
      imageId: image.id,
      userId: user.id,
      body: 'Hello >>1',
      createdAt: new Date('2024-05-06T07:08:09.500Z'),
      updatedAt: new Date('2024-05-07T00:00:00Z'),
      editedAt: new Date('2024-05-06T08:00:00Z'),
      editReason: 'typo',
    });
    const res = await h.api(`/comments/${comment.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      comment: {
        id: comment.id,
        image_id: image.id,
        user_id: user.id,
        author: 'Commenter',
        avatar: avatarDataUri('Commenter'),
        body: 'Hello >>1',
        created_at: '2024-05-06T07:08:09Z',
        updated_at: '2024-05-07T00:00:00Z',
        edited_at: '2024-05-06T08:00:00Z',
        edit_reason: 'typo',
      },
    });
    assertResource(res.body.comment, COMMENT);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('credits anonymous comments to a stable Background Pony name and a generated avatar', async () => {
    const user = await insertUser(h.db);
    const image = await insertImage(h.db, { tags: [safe] });
    const other = await insertImage(h.db, { tags: [safe] });
    const a = await insertComment({ imageId: image.id, userId: user.id, anonymous: true });
    const b = await insertComment({ imageId: image.id, userId: user.id, anonymous: true });
    const c = await insertComment({ imageId: other.id, userId: user.id, anonymous: true });
    const byFingerprint = await insertComment({ imageId: image.id, fingerprint: 'c0ffee', ip: '10.0.0.1' });
    const byIp = await insertComment({ imageId: image.id, ip: '10.0.0.2' });
    const nobody = await insertComment({ imageId: image.id });

    const get = async (id: number) => (await h.api(`/comments/${id}`)).body.comment;
    const ca = await get(a.id);
    expect(ca.author).toBe(pony(String(image.id), String(user.id)));
    expect(ca.author).toMatch(/^Background Pony #[0-9A-F]{4}$/);
    expect(ca.user_id).toBeNull();
    expect(ca.avatar).toBe(avatarDataUri(ca.author));
    expect(ca.avatar).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(ca.avatar.split(',')[1], 'base64').toString()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assertResource(ca, COMMENT);
    // Same author, same image: same name. Another image: another name.
    expect((await get(b.id)).author).toBe(ca.author);
    expect((await get(c.id)).author).toBe(pony(String(other.id), String(user.id)));
    expect((await get(byFingerprint.id)).author).toBe(pony(String(image.id), 'c0ffee'));
    expect((await get(byIp.id)).author).toBe(pony(String(image.id), '10.0.0.2'));
    expect((await get(nobody.id)).author).toBe(pony(String(image.id), ''));
  });

  it("uses the uploaded avatar's absolute URL", async () => {
    const user = await insertUser(h.db, { name: 'Has Avatar', avatar: 'abc123.png' });
    const image = await insertImage(h.db, { tags: [safe] });
    const comment = await insertComment({ imageId: image.id, userId: user.id });
    const { body } = await h.api(`/comments/${comment.id}`);
    expect(body.comment.avatar).toBe(`${CDN_URL}/avatars/abc123.png`);
    // Anonymous content never reveals the uploaded avatar.
    const anon = await insertComment({ imageId: image.id, userId: user.id, anonymous: true });
    expect((await h.api(`/comments/${anon.id}`)).body.comment.avatar).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('withholds the body of a hidden comment but keeps its author', async () => {
    const user = await insertUser(h.db, { name: 'Hidden Author' });
    const image = await insertImage(h.db, { tags: [safe] });
    const comment = await insertComment({
      imageId: image.id,
      userId: user.id,
      hiddenFromUsers: true,
      deletionReason: 'spam',
      editedAt: new Date(),
      editReason: 'why',
    });
    const res = await h.api(`/comments/${comment.id}`);
    expect(res.status).toBe(200);
    expect(res.body.comment).toMatchObject({ author: 'Hidden Author', user_id: user.id, body: null, edited_at: null, edit_reason: null });
    assertResource(res.body.comment, HIDDEN_COMMENT);
  });

  it('answers 404 for destroyed comments and 403 JSON for comments on hidden images', async () => {
    const image = await insertImage(h.db, { tags: [safe] });
    const destroyed = await insertComment({ imageId: image.id, destroyedContent: true, hiddenFromUsers: true });
    const hiddenImage = await insertImage(h.db, { values: { hiddenFromUsers: true, deletionReason: 'x' }, tags: [safe] });
    const onHidden = await insertComment({ imageId: hiddenImage.id });
    const a = await h.api(`/comments/${destroyed.id}`);
    expect(a.status).toBe(404);
    expect(a.body).toStrictEqual({ error: 'Not found' });
    const b = await h.api(`/comments/${onHidden.id}`);
    expect(b.status).toBe(403);
    expect(b.body).toStrictEqual({ error: 'Forbidden' });
    expect(b.headers.get('content-type')).toMatch(/^application\/json/);
    expect(b.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['0', '999999', 'x', '2147483648', '1.0', '-5'])('answers 404 for comment id %s', async (id) => {
    const res = await h.api(`/comments/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ error: 'Not found' });
  });
});
