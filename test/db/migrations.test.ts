import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('migrations', () => {
  const name = `tagwise_empty_${process.pid}`;
  let url: string;

  beforeAll(async () => {
    const admin = postgres(inject('pgServerUrl'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const u = new URL(inject('pgServerUrl'));
    u.pathname = `/${name}`;
    url = u.toString();
  });

  afterAll(async () => {
    const admin = postgres(inject('pgServerUrl'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('apply on an empty database, concurrently from several processes, exactly once', async () => {
    const dbs = [0, 1, 2].map(() => createDatabase(url, { max: 2 }));
    await Promise.all(dbs.map((db) => runMigrations(db)));
    const db = dbs[0]!;
    const applied = await db.$client`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(applied[0]!.n).toBeGreaterThanOrEqual(2);
    const tables = await db.$client`select table_name from information_schema.tables where table_schema = 'public' order by 1`;
    const names = tables.map((t) => t.table_name);
    for (const t of ['users', 'api_keys', 'tags', 'tag_implications', 'images', 'image_taggings', 'comments', 'forums', 'topics', 'posts', 'filters', 'galleries', 'gallery_interactions', 'bans', 'search_outbox', 'jobs']) {
      expect(names).toContain(t);
    }
    // A second run finds nothing to do.
    await runMigrations(db);
    const again = await db.$client`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(again[0]!.n).toBe(applied[0]!.n);
    await Promise.all(dbs.map((d) => d.$client.end()));
  });
});

describe('outbox triggers', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  const outbox = async () =>
    (await t.db.$client`select index, record_id from search_outbox order by id`).map((r) => `${r.index}:${r.record_id}`);

  it('write a row in the same transaction as each change', async () => {
    const sql = t.db.$client;
    await sql`insert into users (id, name, slug) values (1, 'Alice', 'alice')`;
    await sql`insert into tags (id, name, slug, name_in_namespace) values (1, 'safe', 'safe', 'safe')`;
    await sql`insert into images (id, user_id, image_format, image_mime_type) values (10, 1, 'png', 'image/png')`;
    await sql`insert into image_taggings (image_id, tag_id) values (10, 1)`;
    expect(await outbox()).toEqual(['tags:1', 'images:10', 'image_comments:10', 'images:10', 'image_comments:10']);
    await sql`delete from search_outbox`;

    await sql`update users set name = 'Alicia' where id = 1`;
    await sql`update users set description = 'hi' where id = 1`;
    expect(await outbox()).toEqual(['user:1']);
    await sql`delete from search_outbox`;

    await sql`insert into tags (id, name, slug, name_in_namespace, aliased_tag_id) values (2, 'sfw', 'sfw', 'sfw', 1)`;
    expect(await outbox()).toEqual(['tags:2', 'tags:1', 'tag_images:1']);
    await sql`delete from search_outbox`;

    // A rolled-back change leaves nothing behind.
    await sql.begin(async (tx) => {
      await tx`update images set score = 5 where id = 10`;
      throw new Error('rollback');
    }).catch(() => {});
    expect(await outbox()).toEqual([]);
  });

  it('stay silent for bulk loaders that reindex afterwards', async () => {
    const sql = t.db.$client;
    await sql.begin(async (tx) => {
      await tx`set local tagwise.skip_outbox = on`;
      await tx`insert into images (id, image_format, image_mime_type) values (11, 'png', 'image/png')`;
    });
    expect(await outbox()).toEqual([]);
  });
});
