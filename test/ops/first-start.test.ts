/**
 * The first start on an empty DATA_DIR (`npm start` with the demo board): the API is ready once
 * the demo's rows are written and indexed, before its image files are made; the log tells how far
 * the files are, and each image's representations appear as its job finishes.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { cleanUpAfter, startService } from './service-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-first-start-'));
const children: ChildProcess[] = [];

afterAll(() => cleanUpAfter(children, dataDir));

interface Listed {
  id: number;
  thumbnails_generated: boolean;
  processed: boolean;
  representations: Record<string, string>;
}

/** Every image the `Everything` filter lets a search list, oldest first. */
async function listed(base: string): Promise<Listed[]> {
  const res = await fetch(`${base}/api/v1/json/search/images?q=*&per_page=50&sf=id&sd=asc&filter_id=2`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { images: Listed[] }).images;
}

describe('the first start', () => {
  it('is ready before the demo images have their files, which then appear job by job', async () => {
    const svc = await startService(dataDir, { DEMO_IMAGES: '40', IMAGE_CACHE_WARM: 'off' }, { freshCluster: true });
    children.push(svc.child);
    await waitUntil('/readyz to answer 200', async () => (await fetch(`${svc.base}/readyz`).catch(() => null))?.status === 200, 120_000, 50);
    const atReady = await listed(svc.base);
    expect(atReady.length).toBeGreaterThan(30);
    // the newest images come first in the queue, so some are still waiting at this point
    expect(atReady.filter((i) => !i.thumbnails_generated).length, 'images without files when ready').toBeGreaterThan(0);

    await svc.waitFor('demo board: every image has its files', 120_000);
    const progress = svc.lines.filter((l) => l.msg === 'demo board: making image files' || l.msg === 'demo board: every image has its files');
    expect(progress.at(-1)).toMatchObject({ done: 40, total: 40 });
    const done = await waitUntil(
      'every listed image to say its files are made',
      async () => {
        const now = await listed(svc.base);
        return now.every((i) => i.thumbnails_generated && i.processed) && now;
      },
      10_000,
      100,
    );
    expect(done.map((i) => i.id)).toEqual(atReady.map((i) => i.id));
    for (const image of [done[0]!, done.at(-1)!]) {
      const thumb = await fetch(image.representations.thumb!);
      expect(thumb.status, image.representations.thumb).toBe(200);
      expect(thumb.headers.get('content-type')).toMatch(/^image\//);
    }
    // the pages a newcomer opens first: their scripts are bundled from the sources when asked for
    for (const path of ['/search/app.js', '/api/docs/app.js']) {
      const script = await fetch(`${svc.base}${path}`);
      expect(script.status, path).toBe(200);
      expect(script.headers.get('content-type'), path).toMatch(/^text\/javascript/);
      expect((await script.text()).length, path).toBeGreaterThan(1_000);
    }
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  }, 240_000);
});
