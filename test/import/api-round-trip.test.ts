/**
 * Export → import through the API's own responses: the demo board is read resource by resource
 * over the HTTP API (as a client mirroring a board would), those responses are written as an
 * import file unchanged apart from the context the URL gave (a topic's forum, a post's topic, a
 * gallery's images in order), imported into an empty database, and then both boards must answer
 * every one of those requests the same, field by field.
 *
 * What the API never shows cannot survive (e-mails, API keys, who wrote anonymous content, when a
 * gallery was made): the comparison leaves out only what is derived from those, the salted
 * anonymous names and the order of the unsorted gallery list.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { importBoard, type ImportSummary } from '../../src/import/api-json/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

interface Board {
  tdb: TestDatabase;
  engine: EmbeddedEngine;
  app: ReturnType<typeof createApp>;
  /** The body of a 200 answer, null for a 404 (what a crawling client skips). */
  get(path: string): Promise<any>;
  close(): Promise<void>;
}

let config: Config;
let dataDir: string;
let source: Board;
let target: Board;
/** Every path read from the source board, in the order read. */
const paths: string[] = [];
let file: Record<string, unknown>;
let summary: ImportSummary;

async function openBoard(tdb: TestDatabase): Promise<Board> {
  const engine = new EmbeddedEngine({});
  const indexer = new Indexer({ db: tdb.db, engine });
  await indexer.ensureIndexes();
  await indexer.reindex();
  const app = createApp(composeApp({ config, db: tdb.db, engine, logger: { error: () => {} } }));
  return {
    tdb,
    engine,
    app,
    async get(path) {
      const res = await app.request(`/api/v1/json${path}`);
      const body = await res.json();
      if (res.status === 404) return null;
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
    async close() {
      await engine.close();
      await tdb.drop();
    },
  };
}

/** What exists, to be asked for one by one (the API has no list of every image or tag). */
const ids = async (db: Database, table: 'users' | 'images' | 'comments') =>
  (await db.execute<{ id: number }>(sql.raw(`select id from ${table} order by id`))).map((r) => r.id);

/** Every page of a paginated list. */
async function allPages(board: Board, path: string, key: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const p = `${path}${path.includes('?') ? '&' : '?'}per_page=50&page=${page}`;
    paths.push(p);
    const body = await board.get(p);
    out.push(...body[key]);
    if (body[key].length < 50) return out;
  }
}

/** Read the whole board through its API, as an import file. */
async function exportThroughApi(board: Board): Promise<Record<string, unknown>> {
  const db = board.tdb.db;
  const one = async (path: string, key: string) => {
    paths.push(path);
    return (await board.get(path))?.[key];
  };
  const found = (list: any[]) => list.filter((x) => x != null);
  const users = [];
  for (const id of await ids(db, 'users')) users.push(await one(`/profiles/${id}`, 'user'));
  const tags = [];
  for (const { slug } of await db.select({ slug: s.tags.slug }).from(s.tags).orderBy(asc(s.tags.id))) tags.push(await one(`/tags/${encodeURIComponent(slug)}`, 'tag'));
  const images = [];
  for (const id of await ids(db, 'images')) images.push(await one(`/images/${id}`, 'image'));
  const comments = [];
  for (const id of await ids(db, 'comments')) comments.push(await one(`/comments/${id}`, 'comment'));
  paths.push('/forums');
  const forums = (await board.get('/forums')).forums;
  const topics = [];
  const posts = [];
  for (const f of forums) {
    for (const t of await allPages(board, `/forums/${f.short_name}/topics`, 'topics')) {
      topics.push({ ...t, forum: f.short_name });
      paths.push(`/forums/${f.short_name}/topics/${t.slug}`);
      for (const p of await allPages(board, `/forums/${f.short_name}/topics/${t.slug}/posts`, 'posts')) {
        paths.push(`/posts/${p.id}`);
        posts.push({ ...p, topic: t.slug, forum: f.short_name });
      }
    }
  }
  const galleries = [];
  for (const g of await allPages(board, '/search/galleries?q=*', 'galleries')) {
    const inOrder = await allPages(board, `/search/images?q=gallery_id:${g.id}&sf=gallery_id:${g.id}&sd=asc&filter_id=2`, 'images');
    galleries.push({ ...g, image_ids: inOrder.map((i) => i.id) });
  }
  const filters = [...(await one('/filters/system', 'filters'))];
  for (const f of await allPages(board, '/search/filters?q=public:true', 'filters')) if (!f.system) filters.push(await one(`/filters/${f.id}`, 'filter'));
  const featured = await one('/images/featured', 'image');
  // Whole-board searches, compared afterwards (their order rests on fields the records carry).
  for (const index of ['images', 'tags', 'comments', 'posts', 'filters']) await allPages(board, `/search/${index}?q=*&filter_id=2`, index);
  return { users: found(users), tags: found(tags), images: found(images), comments: found(comments), forums, topics, posts, galleries, filters, featured_image_id: featured.id };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-round-trip-'));
  config = loadConfig({
    BASE_URL: 'https://booru.test',
    CDN_URL: 'https://cdn.booru.test',
    DATA_DIR: dataDir,
    ANONYMOUS_NAME_SALT: 'round-trip-salt',
    DEMO_DATA: 'false',
    RATE_LIMITS: 'off',
    DUMP_AT: 'off',
  });
  const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  await seedDemoBoard(a.db, { images: 24, withFiles: false, seed: 7 });
  source = await openBoard(a);
  file = await exportThroughApi(source);
  // The file goes through JSON as a client would write it.
  summary = await importBoard(b.db, JSON.parse(JSON.stringify(file)));
  target = await openBoard(b);
}, 240_000);

afterAll(async () => {
  await Promise.all([source?.close(), target?.close()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The salted anonymous name (and the avatar drawn from it) depends on who wrote, which the API withholds. */
function withoutAnonymousNames(value: any): any {
  if (Array.isArray(value)) return value.map(withoutAnonymousNames);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const anonymous = typeof value.author === 'string' && /^Background Pony #[0-9A-F]{4}$/.test(value.author);
  for (const [k, v] of Object.entries(value)) {
    if (anonymous && (k === 'author' || k === 'avatar')) continue;
    out[k] = withoutAnonymousNames(v);
  }
  return out;
}

describe('a board exported through its API and imported again', () => {
  it('covers every resource of the board', () => {
    for (const key of ['users', 'tags', 'images', 'comments', 'forums', 'topics', 'posts', 'galleries', 'filters']) {
      expect((file[key] as unknown[]).length, key).toBeGreaterThan(0);
    }
    expect(summary.inserted).toMatchObject({
      users: (file.users as unknown[]).length,
      tags: (file.tags as unknown[]).length,
      images: (file.images as unknown[]).length,
      comments: (file.comments as unknown[]).length,
      posts: (file.posts as unknown[]).length,
      galleries: (file.galleries as unknown[]).length,
      filters: (file.filters as unknown[]).length,
    });
  });

  it('includes deleted and merged images, anonymous content, galleries and public filters', async () => {
    const images = file.images as any[];
    expect(images.some((i) => i.hidden_from_users && i.duplicate_of === null)).toBe(true);
    expect(images.some((i) => i.duplicate_of !== null)).toBe(true);
    expect(images.some((i) => i.tags.length > 0 && i.tag_ids.length === i.tags.length)).toBe(true);
    expect((file.comments as any[]).some((c) => c.user_id === null)).toBe(true);
    expect((file.galleries as any[]).some((g) => g.image_ids.length > 1)).toBe(true);
    expect((file.filters as any[]).some((f) => !f.system && f.public)).toBe(true);
  });

  it('answers every request the same, field by field', async () => {
    expect(paths.length).toBeGreaterThan(150);
    const differences: string[] = [];
    for (const path of [...new Set(paths)]) {
      const [a, b] = await Promise.all([source.get(path), target.get(path).catch((e: Error) => ({ error: e.message }))]);
      // The gallery list is newest first, by a creation time the API does not show.
      const comparable = (x: any) => withoutAnonymousNames(path.startsWith('/search/galleries') ? { ...x, galleries: [...x.galleries].sort((p: any, q: any) => p.id - q.id) } : x);
      try {
        expect(comparable(b)).toEqual(comparable(a));
      } catch {
        differences.push(`${path}: ${JSON.stringify(a).slice(0, 1500)}\n  vs ${JSON.stringify(b).slice(0, 1500)}`);
      }
    }
    expect(differences.slice(0, 5).join('\n\n')).toBe('');
  });

  it('changes nothing when the same file is imported again', async () => {
    const again = await importBoard(target.tdb.db, JSON.parse(JSON.stringify(file)));
    expect(again.inserted).toEqual({});
    expect(again.updated).toEqual({});
  });

  it('keeps the order of every gallery', async () => {
    const order = async (db: Database) =>
      (await db.select().from(s.galleryInteractions).orderBy(asc(s.galleryInteractions.galleryId), asc(s.galleryInteractions.position))).map((r) => [r.galleryId, r.imageId]);
    expect(await order(target.tdb.db)).toEqual(await order(source.tdb.db));
  });
});
