/**
 * `philomena-dump`: archives written by the machine's pg_dump, one in the public dump's reduced
 * shape and one of a full private database, imported without restoring them. What the public
 * dump lacks takes the API's defaults; nothing private is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { openDumpSource, readArchiveInfo } from '../../src/import/philomena/dump-source.js';
import { migratePhilomena, type MigrateResult } from '../../src/import/philomena/run.js';
import { CDN_URL, startHarness, type Harness } from '../http/harness.js';
import { debianPostgresBin, dumpDatabase, startCluster } from '../support/philomena/pg-cluster.js';
import { fixtureRows } from '../support/philomena/rows.js';
import { createPhilomenaSchema, fillPhilomenaDatabase, type Dialect } from '../support/philomena/schema.js';
import { findPrivateValues } from './privacy.js';
import { expectedComment, expectedImage, expectedTag } from './reference-render.js';

const rows: Record<string, any[]> = fixtureRows();
const work = mkdtempSync(join(tmpdir(), 'philomena-dump-'));
const archives: Partial<Record<Dialect, string>> = {};

beforeAll(async () => {
  const bin = debianPostgresBin();
  if (!bin) throw new Error('these tests need Debian\'s PostgreSQL server and client (apt-get install postgresql)');
  const cluster = await startCluster(bin);
  try {
    for (const dialect of ['public-dump', 'current'] as const) {
      const name = dialect.replace('-', '_');
      const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      await admin.end();
      const url = new URL(cluster.url);
      url.pathname = `/${name}`;
      const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await createPhilomenaSchema(sql, dialect);
      await fillPhilomenaDatabase(sql, dialect, rows);
      await sql.end();
      archives[dialect] = join(work, `${name}.pgdump`);
      await dumpDatabase(cluster, name, archives[dialect]!);
    }
  } finally {
    await cluster.stop();
  }
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function importArchive(h: Harness, file: string): Promise<MigrateResult> {
  const source = await openDumpSource(file);
  try {
    return await migratePhilomena(h.db, source);
  } finally {
    await source.close();
  }
}

describe('the public dump shape', () => {
  let h: Harness;
  let result: MigrateResult;
  beforeAll(async () => {
    h = await startHarness();
    result = await importArchive(h, archives['public-dump']!);
  });
  afterAll(async () => h?.close());

  test('the archive header names its versions', async () => {
    const info = await readArchiveInfo(archives['public-dump']!);
    expect(info.format).toMatch(/^1\.\d+\.\d+$/);
    expect(info.dumpVersion).toMatch(/^\d+\.\d+/);
  });

  test('is recognised, and says which tables it lacks', () => {
    expect(result.dialect).toBe('public dump');
    expect(Object.keys(result.absent).sort()).toEqual(
      ['badge_awards', 'badges', 'dnp_entries', 'filters', 'forums', 'galleries', 'gallery_interactions', 'image_features', 'image_hides', 'image_intensities', 'posts', 'topics', 'user_links'].sort(),
    );
    for (const [table, tally] of result.tallies) expect(tally.skipped, table).toEqual({});
  });

  test('published images render as the reference renders them, with defaults for what the dump lacks', async () => {
    const published = rows.images!.filter((i) => !i.hidden_from_users);
    for (const image of published) {
      // What the dump carries of the image, then the defaults: no intensities, processed files at
      // the origin, the stored size for the upload size.
      const seen = { ...image, anonymous: false, user_id: image.anonymous ? null : image.user_id, processed: true, thumbnails_generated: true, image_orig_size: image.image_size };
      const visible = { ...rows, image_intensities: [] };
      const res = await h.api(`/images/${image.id}`);
      expect(res.status, `image ${image.id}`).toBe(200);
      expect(res.body.image, `image ${image.id}`).toMatchObject(expectedImage(visible, seen, CDN_URL));
    }
    for (const image of rows.images!.filter((i) => i.hidden_from_users)) expect((await h.api(`/images/${image.id}`)).status).toBe(404);
  });

  test('tags carry aliases from tag_aliases and implications from tag_implications', async () => {
    for (const tag of rows.tags!) {
      const res = await h.api(`/tags/${encodeURIComponent(tag.slug)}`);
      expect(res.status, tag.name).toBe(200);
      const body = res.body.tag;
      for (const k of ['aliases', 'implied_tags', 'implied_by_tags']) body[k] = [...body[k]].sort();
      expect(body, tag.name).toEqual(expectedTag({ ...rows, dnp_entries: [] }, { ...tag, image: null, created_at: tag.created_at }, CDN_URL));
    }
  });

  test('published comments render, anonymous ones without their author', async () => {
    const shown = rows.comments!.filter((c) => !c.destroyed_content && !c.hidden_from_users && !rows.images!.find((i) => i.id === c.image_id)!.hidden_from_users);
    for (const c of shown) {
      const res = await h.api(`/comments/${c.id}`);
      expect(res.status, `comment ${c.id}`).toBe(200);
      expect(res.body.comment).toMatchObject(expectedComment(rows, { ...c, anonymous: false, user_id: c.anonymous ? null : c.user_id, edited_at: null, edit_reason: null }));
    }
  });

  test('importing the same archive again writes nothing', async () => {
    const again = await importArchive(h, archives['public-dump']!);
    for (const [table, t] of again.tallies) expect([t.inserted, t.updated, t.deleted], table).toEqual([0, 0, 0]);
  });

  test('upvotes become up votes; nothing private is written', async () => {
    const sql = sqlClientOf(h.db);
    const votes = await sql`select image_id, user_id, up from image_votes order by image_id, user_id`;
    expect(votes.map((v) => [v.image_id, v.user_id, v.up])).toEqual(rows.image_votes!.filter((v) => v.up).map((v) => [v.image_id, v.user_id, true]));
    expect(await findPrivateValues(sql, [h.dataDir])).toEqual([]);
  });
});

describe('a full private archive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    const result = await importArchive(h, archives.current!);
    expect(result.dialect).toBe('current Philomena');
    expect(result.absent).toEqual({});
  });
  afterAll(async () => h?.close());

  test('imports like the live database, and drops every private column in memory', async () => {
    for (const image of rows.images!) {
      const res = await h.api(`/images/${image.id}`);
      expect(res.body.image, `image ${image.id}`).toMatchObject(expectedImage(rows, image, CDN_URL));
    }
    expect(await findPrivateValues(sqlClientOf(h.db), [h.dataDir])).toEqual([]);
  });

  test('a missing pg_restore is named with its package and the archive version', async () => {
    const source = await openDumpSource(archives.current!, { pgRestore: '/nonexistent/pg_restore' });
    await expect(source.tables()).rejects.toThrow(/postgresql-client.*archive format 1\.\d+\.\d+, written by pg_dump \d+/);
  });
});
