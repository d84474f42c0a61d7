/**
 * The change feed over real HTTP: changes in commit order with a cursor to continue from, one
 * entry per record per transaction, paging with `limit`, the cursor surviving a new app over the
 * same database, and 410 with the dump to restart from once the cursor is older than the log or
 * beyond its newest position.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retagImages } from '../../src/contexts/images/retag.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { LiveService } from '../../src/http/live/service.js';
import { insertImage, insertTag, serveApp, startHarness, stubEngine, type Harness } from '../http/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const feed = async (query: string) => h.api(`/changes${query}`);

describe('change feed', () => {
  let cursor = 0;

  it('lists created, updated, hidden, merged and deleted records in commit order', async () => {
    const start = await feed('');
    expect(start.status).toBe(200);
    cursor = start.body.cursor;
    const cat = await insertTag(h.db, 'cat');
    const a = await insertImage(h.db);
    const b = await insertImage(h.db);
    await retagImages(h.db, [a.id], { add: 'cat' });
    await h.db.update(s.images).set({ hiddenFromUsers: true, duplicateId: a.id }).where(sql`id = ${b.id}`);
    await h.db.update(s.images).set({ hiddenFromUsers: true }).where(sql`id = ${a.id}`);
    await h.db.delete(s.images).where(sql`id = ${b.id}`);
    const { status, body, headers } = await feed(`?since=${cursor}`);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.changes.map((c: any) => `${c.kind}:${c.id}:${c.change}`)).toEqual([
      `tag:${cat.id}:created`,
      `image:${a.id}:created`,
      `image:${b.id}:created`,
      `image:${a.id}:updated`,
      `image:${b.id}:merged`,
      `image:${a.id}:hidden`,
      `image:${b.id}:deleted`,
    ]);
    expect(body.changes[4].duplicate_of).toBe(a.id);
    const cursors = body.changes.map((c: any) => c.cursor);
    expect([...cursors].sort((x, y) => x - y)).toEqual(cursors);
    expect(body.cursor).toBe(cursors[cursors.length - 1]);
    expect(body.more).toBe(false);
    expect(body.changes[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    cursor = body.cursor;
  });

  it('pages with limit and answers an empty page at the end', async () => {
    for (let i = 0; i < 5; i++) await insertImage(h.db);
    const first = await feed(`?since=${cursor}&limit=2`);
    expect(first.body.changes).toHaveLength(2);
    expect(first.body.more).toBe(true);
    const rest = await feed(`?since=${first.body.cursor}&limit=100`);
    expect(rest.body.changes).toHaveLength(3);
    const end = await feed(`?since=${rest.body.cursor}`);
    expect(end.body).toEqual({ changes: [], cursor: rest.body.cursor, more: false });
    cursor = rest.body.cursor;
  });

  it('the cursor holds in another app over the same database', async () => {
    const image = await insertImage(h.db);
    const other = await serveApp(createApp(composeApp({ config: h.config, db: h.db, engine: stubEngine })));
    try {
      const res = await fetch(`${other.url}/api/v1/json/changes?since=${cursor}`);
      const body = (await res.json()) as { changes: { kind: string; id: number; change: string }[] };
      expect(body.changes.map((c: any) => `${c.kind}:${c.id}:${c.change}`)).toEqual([`image:${image.id}:created`]);
    } finally {
      await other.close();
    }
  });

  it('refuses bad parameters', async () => {
    for (const query of ['?since=abc', '?since=-1', '?limit=0', '?limit=1001', '?limit=x']) {
      const { status, body } = await feed(query);
      expect(status, query).toBe(400);
      expect(body).toEqual({ error: expect.any(String) });
    }
  });

  it('a cursor beyond the newest change is 410 with the head, not an empty page forever', async () => {
    const head = (await feed(`?since=${cursor}&limit=1000`)).body.cursor;
    expect((await feed(`?since=${head}`))).toMatchObject({ status: 200, body: { changes: [], cursor: head } });
    for (const since of [head + 1, head + 1_000_000]) {
      const { status, body } = await feed(`?since=${since}`);
      expect(status, String(since)).toBe(410);
      expect(body).toEqual({ error: expect.stringContaining(`beyond the newest change (${head})`), dump: null, head });
    }
  });

  it('a cursor older than the log keeps is 410 with the newest dump and where to continue', async () => {
    const dumps = join(h.dataDir, 'dumps');
    mkdirSync(dumps, { recursive: true });
    const taken = new Date(Date.now() + 120_000);
    writeFileSync(join(dumps, 'latest.json'), JSON.stringify({ name: taken.toISOString().slice(0, 10), created_at: taken.toISOString() }));
    const newest = (await feed(`?since=${cursor}`)).body.cursor;
    await new LiveService({ config: h.config, db: h.db }).prune(new Date(Date.now() + 86_400_000 * 30));
    const { status, body } = await feed(`?since=${cursor - 1}`);
    expect(status).toBe(410);
    expect(body).toEqual({
      error: expect.any(String),
      dump: { name: taken.toISOString().slice(0, 10), url: `${h.config.baseUrl}/dumps/${taken.toISOString().slice(0, 10)}/`, cursor: newest },
      head: newest,
    });
    // Once the log is pruned empty, the newest position given is still a cursor to continue from.
    expect((await feed(`?since=${newest}`)).status).toBe(200);
    // Continuing from the dump's cursor works.
    expect((await feed(`?since=${body.dump.cursor}`)).status).toBe(200);
  });
});
