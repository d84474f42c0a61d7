/**
 * An image whose processing fails its every attempt (its stored original is gone): the job is
 * parked and the API shows the end state, `processed: true` with `thumbnails_generated: false`,
 * instead of `processed: false` for ever; once the file is back, `npm run admin -- jobs retry`
 * (through the command runner the CLI uses) queues it again and processing makes the image whole.
 */
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/admin.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
let key: string;

beforeAll(async () => {
  h = await startUploadHarness();
  key = h.uploader.key;
});

afterAll(async () => {
  await h?.close();
});

/** Runs every attempt now: the queue's backoff is waited out by moving each job's run time. */
async function drainAllAttempts(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await h.db.execute(sql`update jobs set run_at = now() where state = 'queued'`);
    if ((await h.drain()) === 0) return;
  }
}

describe('an image whose processing was given up', () => {
  it('shows processed without thumbnails once its job is parked, and is processed after an admin retry', async () => {
    // A colour of its own per try: a second try must not meet the first one's upload as a duplicate.
    const blue = 100 + Math.floor(Math.random() * 150);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 51, g: 102, b: blue } } }).png().toBuffer();
    const submitted = await h.submit(key, { url: h.serve(`/parked-${blue}.png`, { body: png }), image: { tag_input: 'safe, solo, pony' } });
    expect(submitted.status).toBe(200);
    const id = submitted.body.image.id as number;
    expect(submitted.body.image).toMatchObject({ processed: false, thumbnails_generated: false });

    const [row] = await h.db.select({ storageKey: s.images.storageKey }).from(s.images).where(eq(s.images.id, id));
    const original = await h.store.get(row!.storageKey!);
    await h.store.delete(row!.storageKey!);
    await drainAllAttempts();
    const [job] = await h.db.execute<{ id: number; state: string; attempts: number }>(sql`select id, state, attempts from jobs where payload->>'imageId' = ${String(id)}`);
    expect(job).toMatchObject({ state: 'parked', attempts: 5 });
    expect((await h.api(`/images/${id}`)).body.image).toMatchObject({ processed: true, thumbnails_generated: false });

    await h.store.put(row!.storageKey!, original!);
    const lines: string[] = [];
    await runCommand(['jobs', 'retry', String(job!.id)], { out: (line) => lines.push(line) }, <T>(fn: (db: Database) => Promise<T>) => fn(h.db));
    expect(lines).toEqual([`queued job ${job!.id} again`]);
    await drainAllAttempts();
    expect((await h.api(`/images/${id}`)).body.image).toMatchObject({ processed: true, thumbnails_generated: true });
  });
});
