/**
 * `npm run admin -- image delete|restore`: a moderator deletes an image for a rule violation on a
 * running board, and restores it. Served by the real app over the embedded engine, kept up to
 * date from the change log as the service keeps it: once deleted, the image is its stub with the
 * reason, no search finds it and none of its files is served; restored, it is back whole.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandIo } from '../../src/cli/admin.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { UsageError } from '../../src/lib/command-line.js';
import { startUploadHarness, type UploadHarness } from '../upload/harness.js';

let h: UploadHarness;
let id: number;
let files: string[];

/** One admin command in this process: its output, or its refusal (1) or usage error (2). */
async function admin(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CommandIo = { out: (line) => (out += `${line}\n`) };
  try {
    await runCommand(args, io, (fn) => fn(h.db));
    return { code: 0, out };
  } catch (err) {
    return { code: err instanceof UsageError ? 2 : 1, out: (err as Error).message };
  }
}

/** What the service does after a change: the live views from the change log, the indices from the outbox. */
async function caughtUp(): Promise<void> {
  await recordChangeFeedOf(h.db).sync();
  await h.sync();
}

const searchTotal = async () => (await h.api('/search/images?q=deletiontest')).body.total as number;

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3366aa' } }).png().toBuffer();
  const res = await h.submit(h.uploader.key, { url: h.serve('/to-delete.png', { body: png, headers: { 'content-type': 'image/png' } }), image: { tag_input: 'safe, solo, pony, deletiontest' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  id = res.body.image.id;
  await h.drain();
  await caughtUp();
  const shown = (await h.api(`/images/${id}`)).body.image;
  files = [shown.view_url, ...Object.values(shown.representations as Record<string, string>)];
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('image delete and restore', () => {
  it('shows the image, its files and its search hit before', async () => {
    expect(await searchTotal()).toBe(1);
    for (const url of files) expect((await h.get(url)).status, url).toBe(200);
  });

  it('deletes it: its stub with the reason, no search hit, no file', async () => {
    expect(await admin('image', 'delete', String(id), '--reason', '  Rule #2: off-topic  ')).toEqual({ code: 0, out: `image ${id} is deleted: "Rule #2: off-topic"\n` });
    await caughtUp();
    const { status, body } = await h.api(`/images/${id}`);
    expect(status).toBe(200);
    expect(body.image).toMatchObject({ id, hidden_from_users: true, deletion_reason: 'Rule #2: off-topic', duplicate_of: null });
    expect(body.image).not.toHaveProperty('representations');
    expect(body.image).not.toHaveProperty('tags');
    expect(await searchTotal()).toBe(0);
    for (const url of files) expect((await h.get(url)).status, url).toBe(404);
  });

  it('refuses what cannot be done, changing nothing', async () => {
    expect(await admin('image', 'delete', String(id), '--reason', 'again')).toEqual({ code: 1, out: `image ${id} is already deleted` });
    expect(await admin('image', 'delete', '999999', '--reason', 'x')).toEqual({ code: 1, out: 'no image 999999' });
    expect((await admin('image', 'delete', String(id))).code).toBe(2);
    expect(await admin('image', 'delete', String(id), '--reason', '   ')).toMatchObject({ code: 1, out: expect.stringMatching(/needs a reason/) });
    expect((await admin('image', 'delete', String(id), '--reason', 'x'.repeat(1_001))).code).toBe(1);
    expect((await admin('image', 'restore', 'abc')).code).toBe(2);
    expect((await h.api(`/images/${id}`)).body.image.deletion_reason).toBe('Rule #2: off-topic');
  });

  it('restores it whole: tags, files and its search hit', async () => {
    expect(await admin('image', 'restore', String(id))).toEqual({ code: 0, out: `image ${id} is shown again\n` });
    await caughtUp();
    const image = (await h.api(`/images/${id}`)).body.image;
    expect(image).toMatchObject({ id, hidden_from_users: false, deletion_reason: null });
    expect(image.tags).toContain('deletiontest');
    expect(await searchTotal()).toBe(1);
    for (const url of files) expect((await h.get(url)).status, url).toBe(200);
    expect(await admin('image', 'restore', String(id))).toEqual({ code: 1, out: `image ${id} is not deleted` });
  });
});
