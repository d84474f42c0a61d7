/**
 * The warm start of the image cache in the service (`src/main.ts`): on by default, it loads the
 * board's images after start-up and says so in one log line and in `/metrics`;
 * `IMAGE_CACHE_WARM=off` starts without it (and its request line is written while it idles, as
 * the log's batches are flushed on a timer).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { cleanUpAfter, startService } from './service-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-warm-'));
const children: ChildProcess[] = [];

afterAll(() => cleanUpAfter(children, dataDir));

/** The value of the warm start's counter in the service's `/metrics`. */
async function warmedMetric(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = /^image_cache_warmed_images_total (\d+)$/m.exec(text);
  if (line === null) throw new Error('no image_cache_warmed_images_total in /metrics');
  return Number(line[1]);
}

describe('the warm start of the image cache', () => {
  let warmMs = 0;

  it('loads the visible images after start-up: one log line with count, time and bytes, and a metric', async () => {
    const svc = await startService(dataDir, { DEMO_IMAGES: '20' });
    children.push(svc.child);
    const ready = await svc.waitFor('indexer following the outbox');
    const line = await svc.waitFor('image cache warmed');
    warmMs = Number(line.time) - Number(ready.time);
    // the images searches can find through a filter that hides nothing
    const { filters } = (await (await fetch(`${svc.base}/api/v1/json/filters/system`)).json()) as { filters: { id: number; hidden_tag_ids: number[]; hidden_complex: string | null }[] };
    const everything = filters.find((f) => f.hidden_tag_ids.length === 0 && !f.hidden_complex);
    expect(everything).toBeDefined();
    const visible = (await (await fetch(`${svc.base}/api/v1/json/search/images?q=*&per_page=1&filter_id=${everything!.id}`)).json()) as { total: number };
    expect(visible.total).toBeGreaterThan(0);
    expect(line).toMatchObject({ stop: 'all', loaded: visible.total, images: visible.total });
    expect(Number(line.bytes)).toBeGreaterThan(visible.total * 600);
    expect(Number(line.ms)).toBeGreaterThanOrEqual(0);
    expect(await warmedMetric(svc.base)).toBe(visible.total);
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  });

  it('IMAGE_CACHE_WARM=off: no warm start', async () => {
    const svc = await startService(dataDir, { DEMO_IMAGES: '20', IMAGE_CACHE_WARM: 'off' });
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    // several times as long as the warm start took with it on
    await sleep(Math.max(2_000, 5 * warmMs));
    expect(svc.lines.some((l) => l.msg === 'image cache warmed')).toBe(false);
    expect(await warmedMetric(svc.base)).toBe(0);
    // the log gathers lines into batches, yet a lone request line of an idle service is written
    expect((await fetch(`${svc.base}/api/v1/json/images/2147483647`, { headers: { 'X-Request-Id': 'lone-line' } })).status).toBe(404);
    const lone = await waitUntil('the lone request line', () => svc.lines.find((l) => l.reqId === 'lone-line'), 10_000, 50);
    expect(lone).toMatchObject({ msg: 'request', status: 404, route: '/api/v1/json/images/:image_id' });
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  });
});
