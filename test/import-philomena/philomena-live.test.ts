/**
 * `philomena` import from a live database of each schema dialect: after the import every record
 * renders as the reference would render it from the source rows, the search indices verify clean,
 * and nothing private reached the board.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { eq } from 'drizzle-orm';
import { sqlClientOf } from '../../src/db/client.js';
import { galleries as galleryTable } from '../../src/db/schema/index.js';
import { galleryView } from '../../src/api/views/gallery.js';
import { rebuildIndices } from '../../src/import/philomena/rebuild-indices.js';
import { createSearchEngine } from '../../src/search/create-engine.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import { migratePhilomena, type MigrateResult } from '../../src/import/philomena/run.js';
import { CDN_URL, startHarness, type Harness } from '../http/harness.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';
import type { Dialect } from '../support/philomena/schema.js';
import { findPrivateValues } from './privacy.js';
import { expectedComment, expectedFilter, expectedImage, expectedPost, expectedProfile, expectedTag, expectedTopic } from './reference-render.js';

describe.each<Dialect>(['current', 'derpibooru'])('philomena import from the %s schema', (dialect) => {
  const rows: Record<string, any[]> = fixtureRows();
  if (dialect === 'derpibooru') for (const g of rows.galleries!) delete g.anonymous; // that schema has no anonymous galleries
  let h: Harness;
  let src: PhilomenaDatabase;
  let result: MigrateResult;

  beforeAll(async () => {
    h = await startHarness();
    src = await createPhilomenaDatabase(dialect, rows);
    const source = await openLiveSource(src.url);
    try {
      result = await migratePhilomena(h.db, source);
    } finally {
      await source.close();
    }
  });
  afterAll(async () => {
    await h?.close();
    await src?.drop();
  });

  test('detects the dialect and reads every table', () => {
    expect(result.dialect).toBe(dialect === 'current' ? 'current Philomena' : 'Derpibooru (older Philomena)');
    expect(result.absent).toEqual({});
    expect(result.firstImport).toBe(true);
    for (const [table, tally] of result.tallies) {
      expect(tally.skipped, table).toEqual({});
      expect(tally.inserted, table).toBe(tally.read);
    }
  });

  test('every image renders as the reference renders it', async () => {
    for (const image of rows.images!) {
      const res = await h.api(`/images/${image.id}`);
      expect(res.status, `image ${image.id}`).toBe(200);
      expect(res.body.image, `image ${image.id}`).toMatchObject(expectedImage(rows, image, CDN_URL));
    }
  });

  test('every tag renders as the reference renders it', async () => {
    for (const tag of rows.tags!) {
      const res = await h.api(`/tags/${encodeURIComponent(tag.slug)}`);
      expect(res.status, tag.name).toBe(200);
      const body = res.body.tag;
      for (const k of ['aliases', 'implied_tags', 'implied_by_tags']) body[k] = [...body[k]].sort();
      body.dnp_entries = [...body.dnp_entries].sort((a: any, b: any) => a.id - b.id);
      expect(body, tag.name).toEqual(expectedTag(rows, tag, CDN_URL));
    }
  });

  test('profiles render as the reference renders them; a deleted user has none', async () => {
    for (const user of rows.users!) {
      const res = await h.api(`/profiles/${user.id}`);
      if (user.deleted_at) {
        expect(res.status, user.name).toBe(404);
        continue;
      }
      expect(res.status, user.name).toBe(200);
      expect(res.body.user, user.name).toMatchObject(expectedProfile(rows, user, CDN_URL));
    }
  });

  test('comments render as the reference renders them', async () => {
    for (const c of rows.comments!) {
      const image = rows.images!.find((i) => i.id === c.image_id)!;
      const res = await h.api(`/comments/${c.id}`);
      if (c.destroyed_content) expect(res.status, `comment ${c.id}`).toBe(404);
      else if (image.hidden_from_users) expect(res.status, `comment ${c.id}`).not.toBe(200);
      else {
        expect(res.status, `comment ${c.id}`).toBe(200);
        expect(res.body.comment, `comment ${c.id}`).toMatchObject(expectedComment(rows, c));
      }
    }
  });

  test('forums, topics and posts render as the reference renders them', async () => {
    const forums = await h.api('/forums');
    expect(forums.body.forums.map((f: any) => f.short_name)).toEqual(['dis']);
    expect(forums.body.forums[0]).toMatchObject({ name: 'General Discussion', short_name: 'dis', description: 'Talk', topic_count: 3, post_count: 6 });
    for (const t of rows.topics!.filter((x) => x.forum_id === 1 && !x.hidden_from_users)) {
      const res = await h.api(`/forums/dis/topics/${t.slug}`);
      expect(res.status, t.slug).toBe(200);
      expect(res.body.topic, t.slug).toMatchObject(expectedTopic(rows, t));
      for (const p of rows.posts!.filter((x) => x.topic_id === t.id && !x.destroyed_content)) {
        const post = await h.api(`/forums/dis/topics/${t.slug}/posts/${p.id}`);
        expect(post.status, `post ${p.id}`).toBe(200);
        expect(post.body.post, `post ${p.id}`).toMatchObject(expectedPost(rows, p));
      }
    }
  });

  test('system and public filters render; private ones stay private', async () => {
    for (const f of rows.filters!) {
      const res = await h.api(`/filters/${f.id}`);
      if (f.system || f.public) {
        expect(res.status, f.name).toBe(200);
        expect(res.body.filter, f.name).toEqual(expectedFilter(f));
      } else expect(res.status, f.name).not.toBe(200);
    }
    const system = await h.api('/filters/system');
    expect(system.body.filters.map((f: any) => f.id)).toEqual([1]);
  });

  test('the featured image, galleries with positions, faves, votes and hides', async () => {
    const featured = await h.api('/images/featured');
    expect(featured.body.image.id).toBe(3);
    const sql = sqlClientOf(h.db);
    // Who featured it is kept (staff information, never rendered).
    const features = await sql`select id, image_id, user_id from image_features order by id`;
    expect(features).toEqual(rows.image_features!.map((f) => ({ id: f.id, image_id: f.image_id, user_id: f.user_id })));
    expect(JSON.stringify(featured.body)).not.toContain('"user_id"');
    const slots = await sql`select gallery_id, image_id, position from gallery_interactions order by gallery_id, position`;
    expect(slots.map((r) => [r.gallery_id, r.image_id, r.position])).toEqual(rows.gallery_interactions!.map((g) => [g.gallery_id, g.image_id, g.position]));
    const galleries = await sql`select id, title, creator_id, anonymous from galleries order by id`;
    expect(galleries).toEqual(rows.galleries!.map((g) => ({ id: g.id, title: g.title, creator_id: g.user_id, anonymous: g.anonymous ?? false })));
    // An anonymous gallery does not show its creator.
    const [secret] = await h.db.select().from(galleryTable).where(eq(galleryTable.id, 3));
    const shown = galleryView(secret!, 'Ünïcødé 名前');
    expect([shown.creator, shown.creator_id, shown.user, shown.user_id]).toEqual(dialect === 'current' ? [null, null, null, null] : ['Ünïcødé 名前', 3, 'Ünïcødé 名前', 3]);
    const count = async (table: string) => Number((await sql.unsafe(`select count(*) as n from ${table}`))[0]!.n);
    expect(await count('image_faves')).toBe(rows.image_faves!.length);
    expect(await count('image_votes')).toBe(rows.image_votes!.length);
    expect(await count('image_hides')).toBe(rows.image_hides!.length);
    expect(await count('api_keys')).toBe(0);
  });

  test('the rebuilt search indices verify clean', { timeout: 120_000 }, async () => {
    await rebuildIndices(h.db, h.config, () => {});
    const engine = createSearchEngine(h.config);
    try {
      const report = await new Indexer({ db: h.db, engine, log: () => {} }).verify();
      expect(report.indexes.filter((i) => !i.ok)).toEqual([]);
      expect(report.ok).toBe(true);
    } finally {
      await engine.close();
    }
  });

  test('no private value reached the database or the data directory', async () => {
    expect(await findPrivateValues(sqlClientOf(h.db), [h.dataDir])).toEqual([]);
    // The search finds the markers where they are: in the source.
    expect((await findPrivateValues(src.sql, [])).length).toBeGreaterThan(5);
  });

  test('new ids continue after the imported ones', async () => {
    const sql = sqlClientOf(h.db);
    const [row] = await sql`insert into tags (name, slug, name_in_namespace) values ('brand new', 'brand+new', 'brand new') returning id`;
    expect(row!.id).toBe(14);
  });
});
