/**
 * The change log's one generic trigger function (migration 0009) writes the rows the four
 * functions of migration 0007 wrote. Every kind of write on every logged table is run, step by
 * step, on a database with all migrations and on one migrated only through 0007; each step's
 * rows must be the ones written out here by hand, on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestDatabaseThrough, type TestDatabase } from '../support/db.js';

type Sql = TestDatabase['db']['$client'];

interface Step {
  name: string;
  run(sql: Sql): Promise<unknown>;
  /** `kind:record_id:change`, then ` ` and the detail as PostgreSQL prints jsonb, when there is one. */
  rows: string[];
}

const IMAGE = `(id, user_id, image_format, image_mime_type, description)`;

const steps: Step[] = [
  { name: 'setup', run: (sql) => sql`insert into users (id, name, slug) values (1, 'Alice', 'alice');
      insert into forums (id, name, short_name) values (1, 'General', 'general');
      insert into topics (id, forum_id, title, slug) values (1, 1, 'Hello', 'hello')`.simple(), rows: [] },

  // Tags and galleries: created, updated, deleted.
  { name: 'tags created', run: (sql) => sql`insert into tags (id, name, slug, name_in_namespace) values (1, 'safe', 'safe', 'safe'), (2, 'cat', 'cat', 'cat')`, rows: ['tag:1:created', 'tag:2:created'] },
  { name: 'tag updated', run: (sql) => sql`update tags set short_description = 'rated safe' where id = 1`, rows: ['tag:1:updated'] },
  { name: 'tag update changing nothing', run: (sql) => sql`update tags set name = name where id = 1`, rows: [] },

  // Images.
  { name: 'images created', run: (sql) => sql.unsafe(`insert into images ${IMAGE} values (10, 1, 'png', 'image/png', 'before'), (11, 1, 'png', 'image/png', ''), (12, 1, 'png', 'image/png', '')`),
    rows: ['image:10:created', 'image:11:created', 'image:12:created'] },
  { name: 'image updated', run: (sql) => sql`update images set score = 5 where id = 10`, rows: ['image:10:updated'] },
  { name: 'image update changing nothing', run: (sql) => sql`update images set score = score where id = 10`, rows: [] },
  { name: 'description', run: (sql) => sql`update images set description = 'after' where id = 10`,
    rows: ['image:10:description {"new": "after", "old": "before"}', 'image:10:updated'] },
  { name: 'processed', run: (sql) => sql`update images set thumbnails_generated = true where id = 10`, rows: ['image:10:processed', 'image:10:updated'] },
  { name: 'processed again is no news', run: (sql) => sql`update images set thumbnails_generated = false where id = 10`, rows: ['image:10:updated'] },
  { name: 'hidden with a new description', run: (sql) => sql`update images set hidden_from_users = true, description = 'gone' where id = 10`,
    rows: ['image:10:hidden', 'image:10:description {"new": "gone", "old": "after"}', 'image:10:updated'] },
  { name: 'unhidden', run: (sql) => sql`update images set hidden_from_users = false where id = 10`, rows: ['image:10:unhidden', 'image:10:updated'] },
  { name: 'merged and hidden: merged only', run: (sql) => sql`update images set hidden_from_users = true, duplicate_id = 11 where id = 12`,
    rows: ['image:12:merged {"duplicate_of": 11}', 'image:12:updated'] },
  { name: 'unmerged and unhidden', run: (sql) => sql`update images set hidden_from_users = false, duplicate_id = null where id = 12`,
    rows: ['image:12:unhidden', 'image:12:updated'] },
  { name: 'several images in one statement', run: (sql) => sql`update images set hidden_from_users = true where id in (11, 12)`,
    rows: ['image:11:hidden', 'image:11:updated', 'image:12:hidden', 'image:12:updated'] },

  // An image's tag and source lists.
  { name: 'tags added', run: (sql) => sql`insert into image_taggings (image_id, tag_id) values (10, 1), (10, 2), (11, 2)`,
    rows: ['image:10:tag_added {"tag": "safe", "tag_id": 1}', 'image:10:tag_added {"tag": "cat", "tag_id": 2}', 'image:11:tag_added {"tag": "cat", "tag_id": 2}'] },
  { name: 'tag renamed', run: (sql) => sql`update tags set name = 'safe-renamed' where id = 1`, rows: ['tag:1:updated'] },
  { name: 'tag removed, by its name at that moment', run: (sql) => sql`delete from image_taggings where image_id = 10 and tag_id = 1`,
    rows: ['image:10:tag_removed {"tag": "safe-renamed", "tag_id": 1}'] },
  { name: 'sources added', run: (sql) => sql`insert into image_sources (image_id, source) values (10, 'https://a.example/1'), (10, 'https://b.example/2')`,
    rows: ['image:10:source_added {"source": "https://a.example/1"}', 'image:10:source_added {"source": "https://b.example/2"}'] },
  { name: 'source removed', run: (sql) => sql`delete from image_sources where image_id = 10 and source = 'https://a.example/1'`,
    rows: ['image:10:source_removed {"source": "https://a.example/1"}'] },

  // Comments and posts: a change of state is logged alone.
  { name: 'comments created', run: (sql) => sql`insert into comments (id, image_id, user_id, body) values (100, 10, 1, 'hi'), (101, 10, 1, 'yo')`,
    rows: ['comment:100:created', 'comment:101:created'] },
  { name: 'comment edited', run: (sql) => sql`update comments set body = 'hello' where id = 100`, rows: ['comment:100:updated'] },
  { name: 'comment update changing nothing', run: (sql) => sql`update comments set body = body where id = 100`, rows: [] },
  { name: 'comment hidden and edited', run: (sql) => sql`update comments set hidden_from_users = true, body = 'x' where id = 100`, rows: ['comment:100:hidden'] },
  { name: 'hidden comment edited', run: (sql) => sql`update comments set body = 'y' where id = 100`, rows: ['comment:100:updated'] },
  { name: 'comment unhidden', run: (sql) => sql`update comments set hidden_from_users = false where id = 100`, rows: ['comment:100:unhidden'] },
  { name: 'comment deleted', run: (sql) => sql`delete from comments where id = 101`, rows: ['comment:101:deleted'] },
  { name: 'posts created', run: (sql) => sql`insert into posts (id, topic_id, user_id, body, topic_position) values (200, 1, 1, 'first', 0), (201, 1, 1, 'second', 1)`,
    rows: ['post:200:created', 'post:201:created'] },
  { name: 'post edited', run: (sql) => sql`update posts set body = 'first!' where id = 200`, rows: ['post:200:updated'] },
  { name: 'post update changing nothing', run: (sql) => sql`update posts set body = body where id = 200`, rows: [] },
  { name: 'post hidden', run: (sql) => sql`update posts set hidden_from_users = true where id = 200`, rows: ['post:200:hidden'] },
  { name: 'post unhidden and edited', run: (sql) => sql`update posts set hidden_from_users = false, body = 'z' where id = 200`, rows: ['post:200:unhidden'] },
  { name: 'post deleted', run: (sql) => sql`delete from posts where id = 201`, rows: ['post:201:deleted'] },

  // Galleries.
  { name: 'gallery created', run: (sql) => sql`insert into galleries (id, title, thumbnail_id, creator_id) values (300, 'Best', 11, 1)`, rows: ['gallery:300:created'] },
  { name: 'gallery updated', run: (sql) => sql`update galleries set title = 'Better' where id = 300`, rows: ['gallery:300:updated'] },
  { name: 'gallery update changing nothing', run: (sql) => sql`update galleries set title = title where id = 300`, rows: [] },
  { name: 'gallery deleted', run: (sql) => sql`delete from galleries where id = 300`, rows: ['gallery:300:deleted'] },

  // Deletions that cascade.
  { name: 'image deleted with its tags, sources and comments', run: (sql) => sql`delete from images where id = 10`,
    rows: ['image:10:deleted', 'comment:100:deleted'] },
  { name: 'tag deleted from a live image', run: (sql) => sql`delete from tags where id = 2`,
    rows: ['tag:2:deleted', 'image:11:tag_removed {"tag": null, "tag_id": 2}'] },

  // Transactions.
  { name: 'several tables in one transaction, in write order', run: (sql) => sql.begin(async (tx) => {
      await tx`insert into tags (id, name, slug, name_in_namespace) values (3, 'dog', 'dog', 'dog')`;
      await tx`insert into image_taggings (image_id, tag_id) values (11, 3)`;
      await tx`update images set hidden_from_users = false where id = 11`;
      await tx`insert into comments (id, image_id, user_id, body) values (102, 11, 1, 'woof')`;
    }),
    rows: ['tag:3:created', 'image:11:tag_added {"tag": "dog", "tag_id": 3}', 'image:11:unhidden', 'image:11:updated', 'comment:102:created'] },
  { name: 'a rolled-back write', run: (sql) => sql.begin(async (tx) => {
      await tx`update images set score = 9 where id = 11`;
      throw new Error('roll back');
    }).catch(() => {}), rows: [] },
  { name: 'a bulk load that skips the outbox: one reset', run: (sql) => sql.begin(async (tx) => {
      await tx`select set_config('tagwise.skip_outbox', 'on', true)`;
      await tx.unsafe(`insert into images ${IMAGE} values (13, 1, 'png', 'image/png', '')`);
      await tx`insert into image_taggings (image_id, tag_id) values (13, 3)`;
      await tx`update images set description = 'bulk' where id = 13`;
      await tx`insert into comments (id, image_id, user_id, body) values (103, 13, 1, 'bulk')`;
    }),
    rows: ['board:0:reset'] },
];

/** Each step's rows, as `Step.rows` writes them, in commit order. */
async function runSteps(sql: Sql): Promise<Record<string, string[]>> {
  const seen: Record<string, string[]> = {};
  let after = 0;
  for (const step of steps) {
    await step.run(sql);
    const rows = await sql<{ seq: string; kind: string; record_id: number; change: string; detail: string | null }[]>`
      select seq, kind, record_id, change, detail::text as detail from change_log where seq > ${after} order by seq`;
    seen[step.name] = rows.map((r) => `${r.kind}:${r.record_id}:${r.change}${r.detail === null ? '' : ` ${r.detail}`}`);
    after = Number(rows.at(-1)?.seq ?? after);
  }
  return seen;
}

const expected = Object.fromEntries(steps.map((s) => [s.name, s.rows]));

describe('change log triggers', () => {
  let generic: TestDatabase;
  let perTable: TestDatabase;
  beforeAll(async () => {
    [generic, perTable] = await Promise.all([createTestDatabase(), createTestDatabaseThrough('0007_change_log')]);
  });
  afterAll(async () => {
    await Promise.all([generic?.drop(), perTable?.drop()]);
  });

  it('one generic function is attached to every logged table, and the per-table ones are gone', async () => {
    const triggers = await generic.db.$client`
      select tgrelid::regclass::text as table, tgname as name, p.proname as fn
      from pg_trigger t join pg_proc p on p.oid = t.tgfoid where tgname like '%change_log' order by 1`;
    expect(triggers.map((t) => `${t.table} ${t.name} ${t.fn}`)).toEqual([
      'comments comments_change_log tagwise_change_row',
      'galleries galleries_change_log tagwise_change_row',
      'image_sources image_sources_change_log tagwise_change_row',
      'image_taggings image_taggings_change_log tagwise_change_row',
      'images images_change_log tagwise_change_row',
      'posts posts_change_log tagwise_change_row',
      'tags tags_change_log tagwise_change_row',
    ]);
    const gone = await generic.db.$client`select proname from pg_proc where proname in ('tagwise_change_image', 'tagwise_change_tagging', 'tagwise_change_source', 'tagwise_change_record')`;
    expect(gone).toEqual([]);
  });

  it('the generic function writes the rows expected of each write', async () => {
    expect(await runSteps(generic.db.$client)).toEqual(expected);
  });

  it('the per-table functions it replaced wrote the same rows', async () => {
    expect(await runSteps(perTable.db.$client)).toEqual(expected);
  });
});
