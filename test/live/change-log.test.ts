/**
 * The change log (migration 0007) against a real PostgreSQL: rows in commit order whatever the
 * order the transactions began in, the values a listener cannot read afterwards, and one reset
 * row for a bulk load that bypasses the outbox.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeGroupsAfter, changesAfter, latestChangeSeq, pruneChangeLog, prunedThrough } from '../../src/contexts/changes/log.js';
import * as s from '../../src/db/schema/index.js';
import { insertImage, insertTag } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const summary = (rows: { kind: string; recordId: number; change: string }[]) => rows.map((r) => `${r.kind}:${r.recordId}:${r.change}`);

describe('change log', () => {
  it('orders rows by commit, not by the start of their transaction', async () => {
    const start = await latestChangeSeq(t.db);
    const sqlc = t.db.$client;
    const early = await sqlc.reserve();
    try {
      await early`begin`;
      await early`insert into tags (name, slug, name_in_namespace) values ('early', 'early', 'early')`;
      // A later transaction commits first.
      await insertTag(t.db, 'late');
      await early`commit`;
    } finally {
      early.release();
    }
    const rows = await changesAfter(t.db, start, 100);
    expect(rows.map((r) => r.change)).toEqual(['created', 'created']);
    const names = await t.db.select({ id: s.tags.id, name: s.tags.name }).from(s.tags);
    const idOf = (n: string) => names.find((x) => x.name === n)!.id;
    expect(rows.map((r) => r.recordId)).toEqual([idOf('late'), idOf('early')]);
    expect(rows[1]!.seq).toBeGreaterThan(rows[0]!.seq);
  });

  it('keeps removed tag names, old descriptions and sources, grouped by transaction', async () => {
    const safe = await insertTag(t.db, 'safe');
    const cat = await insertTag(t.db, 'cat');
    const image = await insertImage(t.db, { tags: [safe], sources: ['https://a.example/1'], values: { description: 'before' } });
    const start = await latestChangeSeq(t.db);
    await t.db.transaction(async (tx) => {
      await tx.delete(s.imageTaggings).where(sql`image_id = ${image.id} and tag_id = ${safe.id}`);
      await tx.insert(s.imageTaggings).values({ imageId: image.id, tagId: cat.id });
      await tx.update(s.images).set({ description: 'after' }).where(sql`id = ${image.id}`);
      await tx.delete(s.imageSources).where(sql`image_id = ${image.id}`);
    });
    // Renaming the tag afterwards does not change what was logged.
    await t.db.update(s.tags).set({ name: 'safe-renamed' }).where(sql`id = ${safe.id}`);
    const groups = await changeGroupsAfter(t.db, start, 100);
    expect(groups).toHaveLength(2);
    const [edit] = groups;
    expect(summary(edit!.rows)).toEqual([
      `image:${image.id}:tag_removed`,
      `image:${image.id}:tag_added`,
      `image:${image.id}:description`,
      `image:${image.id}:updated`,
      `image:${image.id}:source_removed`,
    ]);
    expect(edit!.rows.map((r) => r.detail)).toEqual([
      { tag: 'safe', tag_id: safe.id },
      { tag: 'cat', tag_id: cat.id },
      { old: 'before', new: 'after' },
      null,
      { source: 'https://a.example/1' },
    ]);
    expect(summary(groups[1]!.rows)).toEqual([`tag:${safe.id}:updated`]);
  });

  it('logs hiding, merging and deletion; taggings go with their image', async () => {
    const tag = await insertTag(t.db, 'gone-tag');
    const image = await insertImage(t.db, { tags: [tag] });
    const target = await insertImage(t.db);
    const start = await latestChangeSeq(t.db);
    await t.db.update(s.images).set({ hiddenFromUsers: true }).where(sql`id = ${target.id}`);
    await t.db.update(s.images).set({ hiddenFromUsers: true, duplicateId: target.id }).where(sql`id = ${image.id}`);
    await t.db.delete(s.images).where(sql`id = ${image.id}`);
    const rows = await changesAfter(t.db, start, 100);
    expect(summary(rows)).toEqual([
      `image:${target.id}:hidden`,
      `image:${target.id}:updated`,
      `image:${image.id}:merged`,
      `image:${image.id}:updated`,
      `image:${image.id}:deleted`,
    ]);
    expect(rows[2]!.detail).toEqual({ duplicate_of: target.id });
  });

  it('a bulk load that skips the outbox logs one reset', async () => {
    const start = await latestChangeSeq(t.db);
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('tagwise.skip_outbox', 'on', true)`);
      await tx.insert(s.tags).values([
        { name: 'bulk1', slug: 'bulk1', nameInNamespace: 'bulk1' },
        { name: 'bulk2', slug: 'bulk2', nameInNamespace: 'bulk2' },
      ]);
    });
    expect(summary(await changesAfter(t.db, start, 100))).toEqual(['board:0:reset']);
  });

  it('pruning moves the horizon past what it deleted', async () => {
    const newest = await latestChangeSeq(t.db);
    expect(await pruneChangeLog(t.db, new Date(Date.now() + 60_000))).toBeGreaterThan(0);
    expect(await prunedThrough(t.db)).toBe(newest);
    expect(await changesAfter(t.db, 0, 10)).toEqual([]);
  });
});
