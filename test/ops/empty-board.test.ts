/**
 * A board that starts empty (`DEMO_DATA=false`, users brought by `npm run import`) searches what
 * it is given, in every index. Uploads follow the reference's approval (§8.3): a verified user's
 * upload is searchable (and found by a reverse search of the same file) once processed; an
 * unverified user's waits, out of every search while `GET /images/:id` serves it, until
 * `npm run admin -- approve`. Comments, posts, galleries and filters imported later reach their
 * indices through the outbox.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startHttpsServer, type TestHttpsServer } from '../support/https-server.js';
import { runTool } from '../support/run-tool.js';
import { waitUntil } from '../support/wait.js';
import { startService, type Service } from './service-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tagwise-empty-board-'));
const children: ChildProcess[] = [];
let t: TestDatabase | undefined;
let files: TestHttpsServer | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await files?.close();
  await t?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const TRUSTED_KEY = 't'.repeat(32);
const NEW_KEY = 'n'.repeat(32);
const CREATED = '2020-01-01T00:00:00Z';
const users = [
  { id: 1, name: 'Owner', role: 'user', created_at: CREATED, api_key: TRUSTED_KEY, verified: true },
  { id: 2, name: 'Newcomer', role: 'user', created_at: CREATED, api_key: NEW_KEY },
];

async function importBoard(name: string, board: unknown): Promise<void> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(board));
  const run = await runTool('src/cli/import.ts', [file], { DATABASE_URL: t!.url, DATA_DIR: join(dir, 'data') });
  expect(run.code, run.stderr).toBe(0);
}

async function api(svc: Service, path: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${svc.base}/api/v1/json${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function upload(svc: Service, key: string, path: string): Promise<number> {
  const res = await api(svc, `/images?key=${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${files!.origin}${path}`, image: { tag_input: 'safe, solo, pony', source_url: 'https://example.com/a' } }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.image as { id: number }).id;
}

const processed = (svc: Service, id: number) =>
  waitUntil(`image ${id} processed`, async () => ((await api(svc, `/images/${id}`)).body.image as { processed: boolean }).processed, 60_000);

/** The ids a search of `index` answers for `q` (as the uploader, who may see their own filters). */
async function searched(svc: Service, index: string, q = '*'): Promise<number[]> {
  const res = await api(svc, `/search/${index}?q=${encodeURIComponent(q)}&key=${TRUSTED_KEY}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body[index] as { id: number }[]).map((r) => r.id);
}

describe('a board started without demo data', () => {
  it('searches its uploads and imports in every index', async () => {
    t = await createTestDatabase();
    await importBoard('users.json', { users });
    const trusted = await generateDemoImage(11, 'png');
    const waiting = await generateDemoImage(12, 'jpeg');
    files = await startHttpsServer((req, res) => {
      const body = req.url === '/trusted.png' ? trusted.bytes : waiting.bytes;
      res.writeHead(200, { 'content-type': req.url === '/trusted.png' ? 'image/png' : 'image/jpeg' });
      res.end(body);
    });
    const svc = await startService(join(dir, 'data'), {
      DATABASE_URL: t.url,
      DEMO_DATA: 'false',
      FETCH_ALLOW_HOSTS: files.hostPort,
      IMAGE_CACHE_WARM: 'off',
      DUMP_AT: 'off',
      RATE_LIMITS: 'off',
    });
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    expect(await searched(svc, 'images')).toEqual([]);
    expect(await searched(svc, 'tags')).toEqual([]);

    // the verified user's upload: searchable once processed, and found by its own file
    const mine = await upload(svc, TRUSTED_KEY, '/trusted.png');
    await processed(svc, mine);
    await waitUntil('the upload in searches', async () => (await searched(svc, 'images')).includes(mine), 10_000);
    expect(await searched(svc, 'images', 'safe, pony')).toEqual([mine]);
    expect((await searched(svc, 'tags')).length).toBe(3);
    const reverse = await api(svc, `/search/reverse?url=${encodeURIComponent(`${files.origin}/trusted.png`)}`, { method: 'POST' });
    expect(reverse.status, JSON.stringify(reverse.body)).toBe(200);
    expect((reverse.body.images as { id: number }[]).map((i) => i.id)).toEqual([mine]);

    // an unverified user's upload waits for approval: served by id, out of every search
    const theirs = await upload(svc, NEW_KEY, '/waiting.jpg');
    await processed(svc, theirs);
    expect((await api(svc, `/images/${theirs}`)).status).toBe(200);
    expect(await searched(svc, 'images')).toEqual([mine]);
    const approve = await runTool('src/cli/admin.ts', ['approve', String(theirs)], { DATABASE_URL: t.url, DATA_DIR: join(dir, 'data') });
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain(`approved 1 image (${theirs})`);
    await waitUntil('the approved upload in searches', async () => (await searched(svc, 'images')).includes(theirs), 10_000);

    // the other indices, empty until now, take what a later import brings
    await importBoard('more.json', {
      users,
      comments: [{ id: 1, image_id: mine, body: 'a first comment', created_at: CREATED, user_id: 1 }],
      forums: [{ id: 1, name: 'General', short_name: 'general' }],
      topics: [{ id: 1, forum: 'general', slug: 'hello', title: 'Hello', last_replied_to_at: CREATED, user_id: 1, created_at: CREATED }],
      posts: [{ id: 1, topic: 'hello', body: 'a first post', created_at: CREATED, user_id: 1 }],
      galleries: [{ id: 1, title: 'Mine', thumbnail_id: mine, user_id: 1, image_ids: [mine] }],
      filters: [{ id: 1, name: 'Mine', user_id: 1, public: true }],
    });
    for (const index of ['comments', 'posts', 'galleries', 'filters']) {
      await waitUntil(`the imported ${index} in searches`, async () => (await searched(svc, index)).includes(1), 10_000);
    }
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  }, 240_000);
});
