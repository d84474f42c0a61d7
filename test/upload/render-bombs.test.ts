/**
 * Render bombs over real HTTP (issue 35): an SVG that declares 9,999 × 10,000 with a turbulence
 * and a blur, and one whose filters cost more than the decode deadline at any size, sent to the
 * reverse search and the submission endpoint. Each is answered within seconds, its rendering is
 * killed when the deadline passes or the client hangs up, and other reverse searches are answered
 * meanwhile; an accepted SVG whose processing passes the jobs' deadline is given up at once.
 */
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobHandlers } from '../../src/contexts/images/process-job.js';
import { PROCESS_IMAGE_JOB } from '../../src/contexts/images/submit.js';
import * as s from '../../src/db/schema/index.js';
import { MEDIA_MESSAGES } from '../../src/media/errors.js';
import { requestDecodes } from '../../src/media/sandbox/decodes.js';
import { DecodeSandbox } from '../../src/media/sandbox/pool.js';
import { issueSvgBomb, renderTimeBomb } from '../media/svg-bombs.js';
import { waitUntil } from '../support/wait.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

const TAGS = 'safe, solo, pony';
const EMPTY = { images: [], interactions: [], total: 0 };
const NOT_READABLE = '199 tagwise "image not readable"';

let h: UploadHarness;

function reverseForm(bytes: Buffer, type: string, name: string): FormData {
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
}

const reverseWith = (bytes: Buffer, type = 'image/svg+xml', name = 'bomb.svg', init: RequestInit = {}) =>
  h.api('/search/reverse', { method: 'POST', body: reverseForm(bytes, type, name), ...init });

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** The service's setting (`DECODE_REQUEST_SECONDS`) made shorter, so that the bombs' deadlines pass sooner. */
const DEADLINE_MS = 4_000;
const deadlineBefore = requestDecodes.options.deadlineMs;

beforeAll(async () => {
  requestDecodes.setDeadline(DEADLINE_MS);
  h = await startUploadHarness({ search: true });
  // Both decode children loaded before the clocks start: their start is not the bombs' time.
  requestDecodes.warm();
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000000' } }).png().toBuffer();
  await Promise.all([requestDecodes.run('search-key', png, {}), requestDecodes.run('search-key', png, {})]);
});

afterAll(async () => {
  requestDecodes.setDeadline(deadlineBefore);
  await h?.close();
});

describe('the issue\'s SVG bomb (9,999 × 10,000, turbulence and blur)', () => {
  it('is answered by a reverse search within seconds, rendered at a bounded size', async () => {
    const { value: res, ms } = await timed(() => reverseWith(issueSvgBomb()));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(EMPTY);
    expect(res.headers.get('warning')).toBeNull();
    expect(ms).toBeLessThan(8_000);
  });

  it('is accepted by a submission within seconds (its size is only declared)', async () => {
    const { value: res, ms } = await timed(() => h.submit(h.uploader.key, { url: h.serve('/issue-bomb.svg', { body: issueSvgBomb(), headers: { 'content-type': 'image/svg+xml' } }), image: { tag_input: TAGS } }));
    expect(res.status).toBe(200);
    expect(res.body.image).toMatchObject({ width: 9999, height: 10000, format: 'svg' });
    expect(ms).toBeLessThan(8_000);
  });
});

describe('an SVG whose rendering outlasts the deadline at any size', () => {
  it('is killed at the deadline: the reverse search finds nothing, the submission is refused on errors.image', async () => {
    const { deadlineMs } = requestDecodes.options;
    const before = requestDecodes.kills.deadline;
    const { value: searched, ms } = await timed(() => reverseWith(renderTimeBomb()));
    expect(searched).toMatchObject({ status: 200, body: EMPTY });
    expect(searched.headers.get('warning')).toBe(NOT_READABLE);
    expect(ms).toBeGreaterThanOrEqual(deadlineMs - 100);
    expect(ms).toBeLessThan(deadlineMs + 5_000);
    const submitted = await h.submit(h.uploader.key, { url: h.serve('/render-bomb.svg', { body: renderTimeBomb(), headers: { 'content-type': 'image/svg+xml' } }), image: { tag_input: TAGS } });
    expect(submitted).toMatchObject({ status: 400, body: { errors: { image: [MEDIA_MESSAGES.tooCostly] } } });
    expect(requestDecodes.kills.deadline - before).toBe(2);
  });

  it('leaves the other slot to other reverse searches, which are answered meanwhile', async () => {
    const bomb = reverseWith(renderTimeBomb());
    await waitUntil('the bomb decoding', () => requestDecodes.active === 1, 5_000, 20);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } }).png().toBuffer();
    const { value: normal, ms } = await timed(() => reverseWith(png, 'image/png', 'normal.png'));
    expect(normal).toMatchObject({ status: 200, body: EMPTY });
    expect(normal.headers.get('warning')).toBeNull();
    expect(ms).toBeLessThan(5_000);
    expect(requestDecodes.active).toBe(1);
    expect(await bomb).toMatchObject({ status: 200, body: EMPTY });
  });

  it('stops rendering when the client hangs up', async () => {
    const before = requestDecodes.kills.abandoned;
    const client = new AbortController();
    const request = reverseWith(renderTimeBomb(), 'image/svg+xml', 'bomb.svg', { signal: client.signal }).catch((error: unknown) => error);
    await waitUntil('the bomb decoding', () => requestDecodes.active === 1, 5_000, 20);
    const pids = requestDecodes.pids;
    client.abort();
    await request;
    await waitUntil('the rendering killed', () => requestDecodes.kills.abandoned === before + 1, 2_000, 20);
    await waitUntil('the slot freed', () => requestDecodes.active === 0, 2_000, 20);
    // The child that rendered is gone.
    expect(requestDecodes.pids.filter((pid) => pids.includes(pid)).length).toBeLessThan(pids.length);
  });
});

describe('processing an accepted SVG that passes the jobs\' deadline', () => {
  it('kills it at the deadline and gives the image up at once, without a retry', async () => {
    // Another file than the one submitted above (a comment after it), which would be a duplicate.
    const bomb = Buffer.concat([issueSvgBomb(), Buffer.from('<!-- job -->')]);
    const submitted = await h.submit(h.uploader.key, { url: h.serve('/issue-bomb-job.svg', { body: bomb, headers: { 'content-type': 'image/svg+xml' } }), image: { tag_input: `${TAGS}, job bomb` } });
    expect(submitted.status).toBe(200);
    const imageId = submitted.body.image.id as number;
    // Its 2048² rendering takes seconds; a one-second deadline stands in for the jobs' two minutes.
    const sandbox = new DecodeSandbox({ size: 1, maxWaiting: 1, maxWaitMs: 60_000, deadlineMs: 1_000, memoryMb: 2048 });
    const logged: string[] = [];
    const handle = createJobHandlers({ db: h.db, fileStore: h.store, sandbox, log: (msg) => logged.push(msg) })[PROCESS_IMAGE_JOB]!;
    try {
      const started = performance.now();
      await handle({ id: 0, kind: PROCESS_IMAGE_JOB, payload: { imageId }, attempts: 1, maxAttempts: 5 });
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      sandbox.close();
    }
    expect(sandbox.kills.deadline).toBe(1);
    expect(logged).toEqual([`image ${imageId}: given up, ${MEDIA_MESSAGES.tooCostly}`]);
    const [row] = await h.db.select({ processed: s.images.processed, thumbnails: s.images.thumbnailsGenerated }).from(s.images).where(eq(s.images.id, imageId));
    expect(row).toEqual({ processed: true, thumbnails: false });
  });
});
