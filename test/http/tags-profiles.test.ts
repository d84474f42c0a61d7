import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { assertResource } from '../support/resources.js';
import { PROFILE, TAG } from '../support/spec-shapes.js';
import { CDN_URL, insertTag, insertUser, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('GET /tags/:tag_id (by slug)', () => {
  it('answers the exact body of a namespaced tag with relations and do-not-post entries', async () => {
    const artist = await insertTag(h.db, 'artist:hoofbeats', {
      category: 'origin',
      description: 'An artist.',
      shortDescription: 'artist',
      imagesCount: 42,
      image: 'hoofbeats.png',
    });
    const alias = await insertTag(h.db, 'hoofbeats', { aliasedTagId: artist.id });
    const implied = await insertTag(h.db, 'artist needed');
    const implier = await insertTag(h.db, 'artist:hoofbeats jr');
    await h.db.insert(s.tagImplications).values([
      { tagId: artist.id, impliedTagId: implied.id },
      { tagId: implier.id, impliedTagId: artist.id },
    ]);
    const created = new Date('2023-02-03T04:05:06Z');
    const [listed] = await h.db
      .insert(s.dnpEntries)
      .values({ tagId: artist.id, dnpType: 'No Edits', conditions: 'ask first', reason: 'personal', createdAt: created })
      .returning();
    const [secret] = await h.db
      .insert(s.dnpEntries)
      .values({ tagId: artist.id, dnpType: 'Other', conditions: '', reason: 'hidden reason', hideReason: true, createdAt: created })
      .returning();
    await h.db.insert(s.dnpEntries).values({ tagId: artist.id, dnpType: 'Other', state: 'rescinded' });

    const res = await h.api('/tags/artist-colon-hoofbeats');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      tag: {
        id: artist.id,
        name: 'artist:hoofbeats',
        slug: 'artist-colon-hoofbeats',
        description: 'An artist.',
        short_description: 'artist',
        images: 42,
        spoiler_image_uri: `${CDN_URL}/tag-img/hoofbeats.png`,
        namespace: 'artist',
        name_in_namespace: 'hoofbeats',
        category: 'origin',
        aliased_tag: null,
        aliases: ['hoofbeats'],
        implied_tags: ['artist+needed'],
        implied_by_tags: ['artist-colon-hoofbeats+jr'],
        dnp_entries: [
          { id: listed!.id, dnp_type: 'No Edits', conditions: 'ask first', reason: 'personal', created_at: '2023-02-03T04:05:06Z' },
          { id: secret!.id, dnp_type: 'Other', conditions: '', reason: null, created_at: '2023-02-03T04:05:06Z' },
        ],
      },
    });
    assertResource(res.body.tag, TAG);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');

    // Aliases are answered as themselves, pointing at their target.
    const a = await h.api(`/tags/${alias.slug}`);
    expect(a.body.tag).toMatchObject({ name: 'hoofbeats', aliased_tag: 'artist-colon-hoofbeats', category: null, namespace: null, spoiler_image_uri: null });
    assertResource(a.body.tag, TAG);
  });

  it('decodes percent-escapes but looks up by slug only', async () => {
    await insertTag(h.db, 'pegasus pony');
    expect((await h.api('/tags/pegasus+pony')).body.tag.name).toBe('pegasus pony');
    expect((await h.api('/tags/pegasus%2Bpony')).body.tag.name).toBe('pegasus pony');
    // The name, not the slug: not found (as in the reference).
    const byName = await h.api('/tags/artist%3Ahoofbeats');
    expect(byName.status).toBe(404);
    expect(byName.body).toStrictEqual({ error: 'Not found' });
    for (const bad of ['nope', '%00', '%E0%A4%A', '%ED%A0%80', 'x'.repeat(2000)]) {
      const r = await h.api(`/tags/${bad}`);
      expect(r.status).toBe(404);
      expect(r.body).toStrictEqual({ error: 'Not found' });
    }
  });
});

describe('GET /profiles/:user_id', () => {
  it('answers the exact body with public verified links and awards', async () => {
    const tag = await insertTag(h.db, 'artist:painter', { category: 'origin' });
    const user = await insertUser(h.db, {
      name: 'Painter',
      slug: 'painter',
      role: 'assistant',
      description: 'I paint.',
      avatar: 'painter.png',
      commentsCount: 3,
      imagesCount: 4,
      postsCount: 5,
      topicsCount: 6,
      createdAt: new Date('2022-01-02T03:04:05Z'),
    });
    const linkDate = new Date('2022-02-02T02:02:02Z');
    await h.db.insert(s.userLinks).values([
      { userId: user.id, tagId: tag.id, uri: 'https://painter.example', state: 'verified', createdAt: linkDate },
      { userId: user.id, uri: 'https://untagged.example', state: 'verified', createdAt: linkDate },
      { userId: user.id, uri: 'https://private.example', state: 'verified', public: false },
      { userId: user.id, uri: 'https://pending.example', state: 'unverified' },
    ]);
    const [badge] = await h.db.insert(s.badges).values({ title: 'Artist', image: 'artist.svg' }).returning();
    await h.db.insert(s.badgeAwards).values({ badgeId: badge!.id, userId: user.id, label: 'Great art', awardedOn: new Date('2023-03-03T03:03:03Z') });

    const res = await h.api(`/profiles/${user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      user: {
        id: user.id,
        name: 'Painter',
        slug: 'painter',
        role: 'assistant',
        description: 'I paint.',
        avatar_url: `${CDN_URL}/avatars/painter.png`,
        created_at: '2022-01-02T03:04:05Z',
        comments_count: 3,
        uploads_count: 4,
        posts_count: 5,
        topics_count: 6,
        links: [
          { user_id: user.id, created_at: '2022-02-02T02:02:02Z', state: 'verified', tag_id: tag.id },
          { user_id: user.id, created_at: '2022-02-02T02:02:02Z', state: 'verified', tag_id: null },
        ],
        awards: [
          { image_url: `${CDN_URL}/badge-img/artist.svg`, title: 'Artist', id: badge!.id, label: 'Great art', awarded_on: '2023-03-03T03:03:03Z' },
        ],
      },
    });
    assertResource(res.body.user, PROFILE);
  });

  it('masks the role when the user hides it and has a null avatar_url without an avatar', async () => {
    const user = await insertUser(h.db, { role: 'moderator', hideDefaultRole: true });
    const { body } = await h.api(`/profiles/${user.id}`);
    expect(body.user.role).toBe('user');
    expect(body.user.avatar_url).toBeNull();
    expect(body.user.links).toEqual([]);
    expect(body.user.awards).toEqual([]);
    assertResource(body.user, PROFILE);
  });

  it('answers 404 for deactivated, unknown and malformed ids', async () => {
    const gone = await insertUser(h.db, { deletedAt: new Date() });
    for (const id of [String(gone.id), '999999', 'abc', '2147483648', '']) {
      const r = await h.api(`/profiles/${id}`);
      expect(r.status).toBe(404);
      expect(r.body).toStrictEqual({ error: 'Not found' });
    }
  });
});
